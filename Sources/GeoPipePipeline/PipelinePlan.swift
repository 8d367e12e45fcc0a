import GeoPipeStages

/// A checked pipeline: its stages with their option values and where each reads from.
public struct PipelinePlan: Sendable {
  /// One stage of the plan.
  public struct Step: Sendable {
    /// The stage's `id`, if it has one.
    public var id: String?
    /// What the stage is.
    public var definition: StageDefinition
    /// Its option values, defaults filled in.
    public var values: OptionValues
    /// The steps it reads, in order (their outputs are concatenated).
    public var inputs: [Int]
    /// Where the stage is named in the file.
    public var position: TextPosition
  }

  /// The steps in file order; every input names an earlier step.
  public var steps: [Step]
  /// The step whose features go to standard output as GeoJSONSeq: the last step, when it is
  /// not a sink.
  public var standardOutput: Int?

  /// For each step, the steps reading it with the input slot each reads it in, in step order.
  func consumers() -> [[(step: Int, slot: Int)]] {
    var result = Array(repeating: [(step: Int, slot: Int)](), count: steps.count)
    for (k, step) in steps.enumerated() {
      for (slot, input) in step.inputs.enumerated() where result.indices.contains(input) {
        result[input].append((k, slot))
      }
    }
    return result
  }
}
