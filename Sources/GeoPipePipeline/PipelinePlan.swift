import GeoPipeStageKit
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

  /// The plan the runner runs: the same steps, each with the line naming it.
  public var stagePlan: StagePlan {
    StagePlan(
      steps: steps.map {
        StagePlan.Step(
          definition: $0.definition, values: $0.values, inputs: $0.inputs, line: $0.position.line)
      }, standardOutput: standardOutput)
  }
}

/// Runs a checked pipeline with the runner every command uses (`PlanRunner`).
public enum PipelineRunner {
  /// Builds every stage, then runs them; on failure every stage is aborted (writers remove
  /// their partial files) and the error is rethrown.
  ///
  /// Returns how many features each step received (a source: how many it read).
  @discardableResult
  public static func run(_ plan: PipelinePlan, context: StageContext, standardOutput: Emit? = nil)
    throws -> [Int]
  {
    try PlanRunner.run(plan.stagePlan, context: context, standardOutput: standardOutput).received
  }
}
