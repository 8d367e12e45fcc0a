import GeoPipeCore
import GeoPipeIO
import Synchronization

/// Runs a plan: sources are read one after another in plan order, and each feature is pushed
/// through the stages that read it.
///
/// Pushing lets one stage feed several without buffering or reading its input twice. A stage
/// that reads several inputs gets them concatenated in the order listed: features of a later
/// input that arrive while an earlier one is still running wait in memory until it ends (with
/// inputs listed in plan order, nothing waits). Before a stage finishes it receives the
/// members of its first input's FeatureCollection other than its features (a `name`), when it
/// keeps them (`CollectionMembersReceiver`). Progress goes to the context's counters.
public final class PlanRunner {
  private let plan: StagePlan
  private let context: StageContext
  private let nodes: [Node]

  /// Builds every stage of `plan`, the CRS passed on (`StagePlan.passingCRSOn`); when one
  /// cannot be built, the ones built before are aborted and the error is rethrown.
  public init(_ plan: StagePlan, context: StageContext) throws {
    self.plan = plan
    self.context = context
    var nodes: [Node] = []
    do {
      for step in plan.passingCRSOn() {
        nodes.append(Node(instance: try step.definition.make(step.values, context), step: step))
      }
    } catch {
      for node in nodes { node.stage?.abort() }
      throw error
    }
    for (node, consumers) in zip(nodes, plan.consumers()) { node.consumers = consumers }
    self.nodes = nodes
  }

  /// Builds and runs `plan`.
  @discardableResult
  public static func run(_ plan: StagePlan, context: StageContext, standardOutput: Emit? = nil)
    throws -> RunResult
  {
    try PlanRunner(plan, context: context).run(standardOutput: standardOutput)
  }

  /// Runs the built stages, sending the features of the plan's standard output step to
  /// `standardOutput`; on failure every stage is aborted (writers remove their partial files)
  /// and the error is rethrown.
  public func run(standardOutput: Emit? = nil) throws -> RunResult {
    let counters = context.counters
    var warnings: [ReadDiagnostic] = []
    do {
      var total = 0
      var bytesBefore = 0
      for (k, node) in nodes.enumerated() {
        guard let reader = node.reader else { continue }
        var n = 0
        if let (batches, consumer) = batchPath(k) {
          while needsInput(k), let features = try batches.nextBatch() {
            node.received += features.count
            consumer.node.received += features.count
            n += features.count
            try consumer.batchStage.process(contentsOf: features)
            counters.features.store(total + n, ordering: .relaxed)
            counters.bytes.store(bytesBefore + reader.bytesRead, ordering: .relaxed)
          }
        } else {
          while needsInput(k), let feature = try reader.next() {
            node.received += 1
            try deliver(feature, from: k, to: standardOutput)
            n += 1
            if n & 1023 == 0 {
              counters.features.store(total + n, ordering: .relaxed)
              counters.bytes.store(bytesBefore + reader.bytesRead, ordering: .relaxed)
            }
          }
        }
        total += n
        bytesBefore += reader.bytesRead
        counters.features.store(total, ordering: .relaxed)
        counters.bytes.store(bytesBefore, ordering: .relaxed)
        if reader.skippedCount > 0 {
          warnings.append(Self.skippedWarning(reader.skippedCount, line: plan.steps[k].line))
        }
        node.collectionMembers = reader.collectionMembers
        try ended(k, output: standardOutput)
      }
    } catch {
      for node in nodes { node.stage?.abort() }
      throw error
    }
    return RunResult(received: nodes.map(\.received), warnings: warnings)
  }

  /// The warning for features a source stepped over (`--on-error skip`).
  static func skippedWarning(_ count: Int, line: Int?) -> ReadDiagnostic {
    var message = "skipped \(count) bad feature\(count == 1 ? "" : "s") (--on-error skip)"
    if let line { message += " in the read stage on line \(line)" }
    return ReadDiagnostic(severity: .warning, message: message)
  }

  /// Whether the features of source `k` can go to their only reader a batch at a time: the
  /// source decodes in batches, and its reader takes batches, emits nothing and reads this
  /// source now (its only input, or its first).
  private func batchPath(_ k: Int)
    -> (BatchFeatureReader, (node: Node, batchStage: BatchConsumingStage))?
  {
    guard k != plan.standardOutput, let reader = nodes[k].reader as? BatchFeatureReader,
      reader.decodesInBatches, nodes[k].consumers.count == 1
    else { return nil }
    let (step, slot) = nodes[k].consumers[0]
    let consumer = nodes[step]
    guard consumer.active == slot, consumer.consumers.isEmpty, step != plan.standardOutput,
      let stage = consumer.stage as? BatchConsumingStage
    else { return nil }
    return (reader, (consumer, stage))
  }

  /// Whether anything downstream of node `k` still wants features: false once every path
  /// from it ends in a satisfied stage (a `head` that has its features).
  private func needsInput(_ k: Int) -> Bool {
    if nodes[k].stage?.isSatisfied == true { return false }
    if k == plan.standardOutput || nodes[k].consumers.isEmpty { return true }
    return nodes[k].consumers.contains { needsInput($0.step) }
  }

  /// Sends a feature from node `k` to the nodes reading it.
  private func deliver(_ feature: Feature, from k: Int, to output: Emit?) throws {
    for (step, slot) in nodes[k].consumers {
      let consumer = nodes[step]
      if consumer.active == slot {
        consumer.received += 1
        try consumer.stage?.process(feature) { try deliver($0, from: step, to: output) }
      } else {
        consumer.waiting[slot, default: []].append(feature)
      }
    }
    if k == plan.standardOutput, let output { try output(feature) }
  }

  /// Node `k` has emitted everything: its readers move on to their next input.
  private func ended(_ k: Int, output: Emit?) throws {
    for (step, slot) in nodes[k].consumers {
      let consumer = nodes[step]
      consumer.finished[slot] = true
      while consumer.active < consumer.finished.count && consumer.finished[consumer.active] {
        consumer.active += 1
        if consumer.active < consumer.finished.count,
          let waiting = consumer.waiting.removeValue(forKey: consumer.active)
        {
          for feature in waiting {
            consumer.received += 1
            try consumer.stage?.process(feature) { try deliver($0, from: step, to: output) }
          }
        }
      }
      if consumer.active == consumer.finished.count {
        if let first = plan.steps[step].inputs.first {
          consumer.collectionMembers = nodes[first].collectionMembers
        }
        if let transformer = consumer.stage as? CollectionMembersTransformer {
          consumer.collectionMembers = transformer.transform(
            collectionMembers: consumer.collectionMembers)
        }
        if !consumer.collectionMembers.isEmpty,
          let receiver = consumer.stage as? CollectionMembersReceiver
        {
          receiver.receive(collectionMembers: consumer.collectionMembers)
        }
        try consumer.stage?.finish { try deliver($0, from: step, to: output) }
        try ended(step, output: output)
      }
    }
  }
}

/// What a run did.
public struct RunResult: Sendable {
  /// How many features each step received (a source: how many it read).
  public var received: [Int]
  /// Warnings about the run as a whole (features skipped by `--on-error skip`), to print
  /// after it.
  public var warnings: [ReadDiagnostic]
}

/// Counts what a run has done, for the progress line.
public final class RunCounters: Sendable {
  /// Features read.
  public let features = Atomic<Int>(0)
  /// Input bytes read.
  public let bytes = Atomic<Int>(0)
  private let stageDetail = Mutex<(text: String, version: Int)>(("", 0))

  /// Creates zeroed counters.
  public init() {}

  /// Says where a long stage is (`zoom 12 of 14: 3,210 tiles`), for the progress line.
  ///
  /// Stages call it when something changes that a person waiting would want to see: a zoom
  /// done, a run spilled, a batch of tiles written; not for every feature.
  public func report(_ text: String) {
    stageDetail.withLock { $0 = (text, $0.version + 1) }
  }

  /// The last text a stage reported, and how many reports there have been (to tell a new
  /// report from the same one).
  public var detail: (text: String, version: Int) { stageDetail.withLock { $0 } }
}

/// A built stage and the state of its inputs.
private final class Node {
  let reader: (any FeatureReader)?
  let stage: (any Stage)?
  var finished: [Bool]
  var active = 0
  var waiting: [Int: [Feature]] = [:]
  var consumers: [(step: Int, slot: Int)] = []
  var received = 0
  var collectionMembers = JSONObject()

  init(instance: StageInstance, step: StagePlan.Step) {
    switch instance {
    case .source(let reader):
      self.reader = reader
      stage = nil
    case .stage(let stage):
      reader = nil
      self.stage = stage
    }
    finished = Array(repeating: false, count: step.inputs.count)
  }
}
