import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// Every stage geopipe knows, in the order `geopipe --help` lists them.
public enum StageRegistry {
  /// All stage definitions.
  public static let all: [StageDefinition] = [
    ReadStage.definition,
    WriteStage.definition,
    FilterStage.definition,
    SelectStage.definition,
    StyleStage.definition,
    SortStage.definition,
    HeadStage.definition,
    DedupeStage.definition,
    RenameLayerStage.definition,
    SimplifyStage.definition,
    ReprojectStage.definition,
    CircleStage.definition,
    BufferStage.definition,
    ClipStage.definition,
    DissolveStage.definition,
    ExplodeStage.definition,
    JoinStage.definition,
    GeocodeStage.definition,
    SearchStage.definition,
    ClusterStage.definition,
    TilesStage.definition,
    ReverseGeocodeStage.definition,
    RenderStage.definition,
    InfoStage.definition,
  ]

  /// The definition named `name`.
  public static func definition(named name: String) -> StageDefinition? {
    all.first { $0.name == name }
  }

  /// Options every command reading standard input also takes.
  public static var standardInputOptions: [OptionSpec] { ReadStage.inputOptions }

  /// The options of reading a file: CSV's and those the other formats add.
  public static var csvInputOptions: [OptionSpec] { ReadStage.fileOptions }

  /// The writer options (shared by `write` and `convert`).
  public static var outputOptions: [OptionSpec] { WriteStage.outputOptions }

  /// The plan a stage's subcommand runs: the stage alone for a source (its features to
  /// standard output); otherwise `read` of standard input (or of the stage's input path,
  /// `info FILE`) into the stage, whose features go to standard output unless it is a sink.
  ///
  /// When the stage's input CRS is given (`write --crs`, `reproject --from`), the input is
  /// read in that CRS as it is (no range checks, no reprojection).
  public static func commandPlan(_ definition: StageDefinition, values: OptionValues) -> StagePlan {
    if definition.role == .source {
      return StagePlan(
        steps: [StagePlan.Step(definition: definition, values: values, inputs: [])],
        standardOutput: 0)
    }
    var input = values
    input.set("path", .string(definition.pathIsInput ? (values.string("path") ?? "-") : "-"))
    // `read`'s --bbox is its own: another stage's --bbox is not the input's; --layer picks the
    // layer of a stage's input file (`info --layer`).
    if !definition.pathIsInput { input.remove("layer") }
    input.remove("bbox")
    if let option = definition.inputCRSOption, let crs = values.string(option) {
      input.set("crs", .string(crs))
      input.set("keep-crs", .flag(true))
    }
    return StagePlan(
      steps: [
        StagePlan.Step(definition: ReadStage.definition, values: input, inputs: []),
        StagePlan.Step(definition: definition, values: values, inputs: [0]),
      ], standardOutput: definition.role == .sink ? nil : 1)
  }

  /// The plan of `convert IN OUT`: `read IN` into `write OUT`, with the options of both.
  public static func convertPlan(input: String, output: String, values: OptionValues) -> StagePlan {
    var read = values
    read.set("path", .string(input))
    // The writer is told the CRS by the plan: the declared one when --keep-crs kept it.
    var write = values
    write.set("path", .string(output))
    write.remove("crs")
    return StagePlan(steps: [
      StagePlan.Step(definition: ReadStage.definition, values: read, inputs: []),
      StagePlan.Step(definition: WriteStage.definition, values: write, inputs: [0]),
    ])
  }
}
