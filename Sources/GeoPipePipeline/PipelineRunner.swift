import GeoPipeCore
import GeoPipeIO
import GeoPipeStages

/// Runs a checked pipeline: sources are read one after another in file order, and each
/// feature is pushed through the stages that read it.
///
/// Pushing lets one stage feed several without buffering or reading its input twice. A stage
/// that reads several inputs gets them concatenated in the order listed: features of a later
/// input that arrive while an earlier one is still running wait in memory until it ends (with
/// inputs listed in file order, nothing waits).
public enum PipelineRunner {
  /// Builds every stage, then runs them; on failure every stage is aborted (writers remove
  /// their partial files) and the error is rethrown.
  ///
  /// Returns how many features each step received (a source: how many it read).
  @discardableResult
  public static func run(
    _ plan: PipelinePlan, context: StageContext, counters: RunCounters? = nil,
    standardOutput: Emit? = nil
  ) throws -> [Int] {
    var graph = Graph(
      plan: plan, context: context, standardOutput: standardOutput, counters: counters)
    do {
      for step in passingCRSOn(plan.steps) {
        graph.nodes.append(
          Node(instance: try step.definition.make(step.values, context), step: step))
      }
      try graph.run()
      return graph.nodes.map(\.received)
    } catch {
      graph.abort()
      throw error
    }
  }
}

/// The steps with each one's input CRS filled in where it takes one and was not given it:
/// features leave `read --crs X --keep-crs` and `reproject --to X` in X, and every other stage
/// passes its input's CRS on, so that `write` after `reproject` knows what it writes.
func passingCRSOn(_ steps: [PipelinePlan.Step]) -> [PipelinePlan.Step] {
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

/// A built stage and the state of its inputs.
private final class Node {
  let reader: (any FeatureReader)?
  let stage: (any Stage)?
  var finished: [Bool]
  var active = 0
  var waiting: [Int: [Feature]] = [:]
  var consumers: [(step: Int, slot: Int)] = []
  var received = 0

  init(instance: StageInstance, step: PipelinePlan.Step) {
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

private struct Graph {
  let plan: PipelinePlan
  let context: StageContext
  let standardOutput: Emit?
  let counters: RunCounters?
  var nodes: [Node] = []

  init(plan: PipelinePlan, context: StageContext, standardOutput: Emit?, counters: RunCounters?) {
    self.plan = plan
    self.context = context
    self.standardOutput = standardOutput
    self.counters = counters
  }

  func run() throws {
    for (node, consumers) in zip(nodes, plan.consumers()) { node.consumers = consumers }
    var total = 0
    var bytesBefore = 0
    for (k, node) in nodes.enumerated() {
      guard let reader = node.reader else { continue }
      var n = 0
      while needsInput(k), let feature = try reader.next() {
        node.received += 1
        try deliver(feature, from: k)
        n += 1
        if let counters, n & 1023 == 0 {
          counters.features.store(total + n, ordering: .relaxed)
          counters.bytes.store(bytesBefore + reader.bytesRead, ordering: .relaxed)
        }
      }
      total += n
      bytesBefore += reader.bytesRead
      counters?.features.store(total, ordering: .relaxed)
      counters?.bytes.store(bytesBefore, ordering: .relaxed)
      if reader.skippedCount > 0 {
        let count = reader.skippedCount
        context.diagnostics(
          ReadDiagnostic(
            severity: .warning,
            message: "skipped \(count) bad feature\(count == 1 ? "" : "s") (--on-error skip) "
              + "in the read stage on line \(plan.steps[k].position.line)"))
      }
      try ended(k)
    }
  }

  /// Whether anything downstream of node `k` still wants features: false once every path
  /// from it ends in a satisfied stage (a `head` that has its features).
  func needsInput(_ k: Int) -> Bool {
    if nodes[k].stage?.isSatisfied == true { return false }
    if k == plan.standardOutput || nodes[k].consumers.isEmpty { return true }
    return nodes[k].consumers.contains { needsInput($0.step) }
  }

  /// Sends a feature from node `k` to the nodes reading it.
  func deliver(_ feature: Feature, from k: Int) throws {
    for (step, slot) in nodes[k].consumers {
      let consumer = nodes[step]
      if consumer.active == slot {
        consumer.received += 1
        try consumer.stage?.process(feature) { try deliver($0, from: step) }
      } else {
        consumer.waiting[slot, default: []].append(feature)
      }
    }
    if k == plan.standardOutput, let standardOutput { try standardOutput(feature) }
  }

  /// Node `k` has emitted everything: its readers move on to their next input.
  func ended(_ k: Int) throws {
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
            try consumer.stage?.process(feature) { try deliver($0, from: step) }
          }
        }
      }
      if consumer.active == consumer.finished.count {
        try consumer.stage?.finish { try deliver($0, from: step) }
        try ended(step)
      }
    }
  }

  func abort() {
    for node in nodes { node.stage?.abort() }
  }
}
