import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit
import GeoPipeStages
import Testing

@testable import GeoPipePipeline

/// The runner on hand-built plans: fan-out, concatenated inputs in the order listed, and
/// aborting every stage when one fails.
@Suite struct RunnerTests {
  /// A source of features named by numbers.
  final class Numbers: FeatureReader, @unchecked Sendable {
    var values: [Int]
    init(_ values: [Int]) { self.values = values }
    func next() throws -> Feature? {
      guard !values.isEmpty else { return nil }
      return Feature(properties: ["n": .integer(Int64(values.removeFirst()))])
    }
    var bytesRead: Int { 0 }
    var skippedCount: Int { 0 }
    var collectionMembers: JSONObject { JSONObject() }
  }

  /// Records what reaches it.
  final class Recorder: Stage, @unchecked Sendable {
    var seen: [Int64] = []
    var finished = false
    var aborted = false
    var failAt: Int64?
    func process(_ feature: Feature, emit: Emit) throws {
      guard case .integer(let n)? = feature.properties?["n"] else { return }
      if n == failAt { throw GeoPipeError("boom", status: .dataError) }
      seen.append(n)
      try emit(feature)
    }
    func finish(emit: Emit) throws { finished = true }
    func abort() { aborted = true }
  }

  private func step(
    _ instance: @escaping @Sendable () -> StageInstance, inputs: [Int], role: StageRole
  )
    -> PipelinePlan.Step
  {
    let definition = StageDefinition(
      name: "test", abstract: "", discussion: "", examples: [], options: [], role: role,
      make: { _, _ in instance() })
    return PipelinePlan.Step(
      id: nil, definition: definition, values: OptionValues(), inputs: inputs,
      position: TextPosition(line: 1, column: 1))
  }

  private let context = StageContext(diagnostics: { _ in }, standardOutput: { _ in })

  @Test func concatenatesInputsInTheOrderListed() throws {
    let late = Recorder()
    let both = Recorder()
    let a = Numbers([1, 2])
    let b = Numbers([3, 4])
    let plan = PipelinePlan(steps: [
      step({ .source(a) }, inputs: [], role: .source),
      step({ .source(b) }, inputs: [], role: .source),
      // Reads b first, then a: a's features wait until b has ended.
      step({ .stage(late) }, inputs: [1, 0], role: .transform),
      step({ .stage(both) }, inputs: [0, 2, 1], role: .sink),
    ])
    let counts = try PipelineRunner.run(plan, context: context)
    #expect(late.seen == [3, 4, 1, 2])
    #expect(both.seen == [1, 2, 3, 4, 1, 2, 3, 4])
    #expect(late.finished && both.finished)
    #expect(counts == [2, 2, 4, 8])
  }

  @Test func fansOutAndAbortsEveryStageOnFailure() throws {
    let first = Recorder()
    let second = Recorder()
    second.failAt = 3
    let source = Numbers([1, 2, 3, 4])
    let plan = PipelinePlan(steps: [
      step({ .source(source) }, inputs: [], role: .source),
      step({ .stage(first) }, inputs: [0], role: .sink),
      step({ .stage(second) }, inputs: [0], role: .sink),
    ])
    #expect(throws: GeoPipeError.self) { try PipelineRunner.run(plan, context: context) }
    #expect(first.seen == [1, 2, 3])
    #expect(second.seen == [1, 2])
    #expect(first.aborted && second.aborted)
    #expect(!first.finished)
  }
}
