import GeoPipeCore
import GeoPipeIO

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

  /// Opens an input as `read` would, from parsed option values; `layer` and `bbox` are those of
  /// `read` (and `convert`), not another stage's.
  public static func openInput(
    _ path: String, values: OptionValues, context: StageContext, layer: String? = nil,
    bbox: BBox? = nil
  ) throws -> any FeatureReader {
    try ReadStage.open(path, values: values, context: context, layer: layer, bbox: bbox)
  }

  /// Creates a writer as `write` would.
  public static func makeWriter(path: String, values: OptionValues, threads: Int = 1) throws
    -> any Stage
  {
    // convert writes what read produced: WGS84 unless --keep-crs kept the declared CRS.
    try WriteStage(
      path: path, values: values, threads: threads,
      crs: values.flag("keep-crs") ? values.string("crs") : nil)
  }
}
