import GeoPipeCore
import GeoPipeIO
import Synchronization

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

/// Drives a linear chain: pulls features from a source and pushes each through the stages.
public enum Runner {
  /// Runs `source → stages[0] → … → stages[n-1]`; the last stage's emissions go to `sink`.
  ///
  /// On failure every stage is aborted (sinks remove their partial files) and the error is
  /// rethrown.
  public static func run(
    source: any FeatureReader, stages: [any Stage], counters: RunCounters? = nil,
    sink: @escaping Emit = { _ in }
  ) throws {
    var emitters: [Emit] = Array(repeating: sink, count: stages.count + 1)
    for k in stride(from: stages.count - 1, through: 0, by: -1) {
      let stage = stages[k]
      let next = emitters[k + 1]
      emitters[k] = { feature in try stage.process(feature, emit: next) }
    }
    let first = emitters[0]
    do {
      var n = 0
      while !stages.contains(where: \.isSatisfied), let feature = try source.next() {
        try first(feature)
        n += 1
        if let counters, n & 1023 == 0 {
          counters.features.store(n, ordering: .relaxed)
          counters.bytes.store(source.bytesRead, ordering: .relaxed)
        }
      }
      counters?.features.store(n, ordering: .relaxed)
      counters?.bytes.store(source.bytesRead, ordering: .relaxed)
      let members = source.collectionMembers
      for k in stages.indices {
        if !members.isEmpty, let receiver = stages[k] as? CollectionMembersReceiver {
          receiver.receive(collectionMembers: members)
        }
        try stages[k].finish(emit: emitters[k + 1])
      }
    } catch {
      for stage in stages { stage.abort() }
      throw error
    }
  }
}
