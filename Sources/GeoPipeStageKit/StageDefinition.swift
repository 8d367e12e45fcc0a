import GeoPipeCore
import GeoPipeIO

/// Everything the front ends need to know about a stage: its name, help, options and how to build
/// it.
///
/// The command line, pipeline files and the Swift API all use this one table.
public struct StageDefinition: Sendable {
  /// The subcommand and pipeline-file name (`filter`).
  public var name: String
  /// One line for `geopipe --help`.
  public var abstract: String
  /// Paragraphs for `geopipe NAME --help`.
  public var discussion: String
  /// Example command lines.
  public var examples: [String]
  /// Options, positional ones first in the order they are given.
  public var options: [OptionSpec]
  /// Source, transform or sink.
  public var role: StageRole
  /// Whether the stage must see all features before it emits (said in help).
  public var buffersAll: Bool
  /// Whether the positional `path` names the stage's input rather than its output (`info`).
  public var pathIsInput: Bool
  /// The option that names the CRS of the stage's input coordinates, taken as they are: the
  /// command line then reads standard input in that CRS without range checks or reprojection
  /// (`write --crs`, `reproject --from`).
  public var inputCRSOption: String?
  /// The option that names the CRS of the features the stage emits, when it changes it
  /// (`reproject --to`); a pipeline passes it on to the stages downstream.
  public var outputCRSOption: String?
  /// What building the stage would refuse that its option values alone decide (an output path
  /// whose format cannot be told), so that a pipeline file's check reports it at the option.
  public var checkValues: (@Sendable (OptionValues) -> OptionProblem?)?
  /// Builds the stage from validated options.
  public var make: @Sendable (OptionValues, StageContext) throws -> StageInstance

  /// Creates a definition.
  public init(
    name: String, abstract: String, discussion: String, examples: [String], options: [OptionSpec],
    role: StageRole, buffersAll: Bool = false, pathIsInput: Bool = false,
    inputCRSOption: String? = nil, outputCRSOption: String? = nil,
    checkValues: (@Sendable (OptionValues) -> OptionProblem?)? = nil,
    make: @escaping @Sendable (OptionValues, StageContext) throws -> StageInstance
  ) {
    self.name = name
    self.abstract = abstract
    self.discussion = discussion
    self.examples = examples
    self.options = options
    self.role = role
    self.buffersAll = buffersAll
    self.pathIsInput = pathIsInput
    self.inputCRSOption = inputCRSOption
    self.outputCRSOption = outputCRSOption
    self.checkValues = checkValues
    self.make = make
  }

  /// The option named `name`.
  public func option(_ name: String) -> OptionSpec? { options.first { $0.name == name } }
}

/// What a built stage is.
public enum StageInstance {
  /// A reader of an input.
  case source(any FeatureReader)
  /// A stage handed features.
  case stage(any Stage)
}

/// What stages share while they run: where diagnostics go and how progress is counted.
public struct StageContext: Sendable {
  /// Receives warnings and notes.
  public var diagnostics: @Sendable (ReadDiagnostic) -> Void
  /// Standard output, for stages that print reports.
  public var standardOutput: @Sendable ([UInt8]) throws -> Void
  /// How many threads a stage may use for parsing.
  public var threads: Int
  /// What the run has done, for the progress line; long stages report where they are here.
  public var counters: RunCounters
  /// The shard of a sharded run (`run --shard`): sources read only its share of their inputs.
  public var shard: Shard?
  /// The share of the tile space that `tiles` steps write (`merge --tile-share`): each reads
  /// every feature and writes only its share of the tiles.
  public var tileShare: Shard?

  /// Creates a context.
  public init(
    diagnostics: @escaping @Sendable (ReadDiagnostic) -> Void,
    standardOutput: @escaping @Sendable ([UInt8]) throws -> Void, threads: Int = 1,
    counters: RunCounters = RunCounters()
  ) {
    self.diagnostics = diagnostics
    self.standardOutput = standardOutput
    self.threads = threads
    self.counters = counters
  }
}
