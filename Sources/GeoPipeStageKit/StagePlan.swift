import GeoPipeCore
import GeoPipeIO

/// Stages wired into a graph: what a pipeline file and a command line both run.
///
/// A command is a plan of one or two steps (`read` alone; `read` then the command's stage;
/// `read` then `write` for `convert`); a pipeline file is a plan of any number.
public struct StagePlan: Sendable {
  /// One stage of the plan.
  public struct Step: Sendable {
    /// What the stage is.
    public var definition: StageDefinition
    /// Its option values, defaults filled in.
    public var values: OptionValues
    /// The steps it reads, in order (their outputs are concatenated).
    public var inputs: [Int]
    /// The line naming the stage in a pipeline file, for messages; nil on the command line.
    public var line: Int?

    /// Creates a step.
    public init(definition: StageDefinition, values: OptionValues, inputs: [Int], line: Int? = nil)
    {
      self.definition = definition
      self.values = values
      self.inputs = inputs
      self.line = line
    }
  }

  /// The steps in order; every input names an earlier step.
  public var steps: [Step]
  /// The step whose features go to standard output as GeoJSONSeq, if any.
  public var standardOutput: Int?

  /// Creates a plan.
  public init(steps: [Step], standardOutput: Int? = nil) {
    self.steps = steps
    self.standardOutput = standardOutput
  }

  /// For each step, the steps reading it with the input slot each reads it in, in step order.
  public func consumers() -> [[(step: Int, slot: Int)]] {
    var result = Array(repeating: [(step: Int, slot: Int)](), count: steps.count)
    for (k, step) in steps.enumerated() {
      for (slot, input) in step.inputs.enumerated() where result.indices.contains(input) {
        result[input].append((k, slot))
      }
    }
    return result
  }

  /// The steps with each one's input CRS filled in where it takes one and was not given it:
  /// features leave `read --crs X --keep-crs` and `reproject --to X` in X, and every other
  /// stage passes its input's CRS on, so that `write` after `reproject` knows what it writes.
  public func passingCRSOn() -> [Step] {
    var result = steps
    var output: [String?] = []
    for k in result.indices {
      let definition = result[k].definition
      var crs = result[k].inputs.first.flatMap { output[$0] }
      if let option = definition.inputCRSOption {
        if let given = result[k].values.string(option) {
          crs = given
        } else if let crs {
          result[k].values.set(option, .string(crs))
        }
      }
      if definition.role == .source {
        let values = result[k].values
        crs = values.flag("keep-crs") ? values.string("crs") : nil
      }
      if let option = definition.outputCRSOption { crs = result[k].values.string(option) }
      output.append(crs)
    }
    return result
  }
}
