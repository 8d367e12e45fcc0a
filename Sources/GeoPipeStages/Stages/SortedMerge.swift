import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// A k-way merge of feature sequences each sorted in `sort`'s order, itself in that order.
///
/// A binary heap holds each sequence's next feature and its key; on equal keys the feature of
/// the earlier sequence goes first. When every feature of one sequence came in before every
/// feature of the next (sorted runs of one input, the sorted parts of shards 0 to N-1), the
/// merge is the stable sort of all the features: exactly what one `sort` would emit. Only one
/// feature per sequence is held.
final class SortedMerge {
  private let order: SortOrder
  private let sources: [() throws -> Feature?]
  /// The sequences that have a next feature, as a min-heap of (key, sequence) pairs.
  private var heap: [(key: [SortValue], source: Int)] = []
  /// The next feature of each sequence, nil once it has ended.
  private var heads: [Feature?]

  /// Starts merging `sources`, reading the first feature of each.
  init(order: SortOrder, sources: [() throws -> Feature?]) throws {
    self.order = order
    self.sources = sources
    heads = Array(repeating: nil, count: sources.count)
    heap.reserveCapacity(sources.count)
    for source in sources.indices { try pull(source) }
  }

  /// The next feature in order, or nil when every sequence has ended.
  func next() throws -> Feature? {
    guard let top = heap.first, let feature = heads[top.source] else { return nil }
    let last = heap.removeLast()
    if !heap.isEmpty {
      heap[0] = last
      siftDown(0)
    }
    heads[top.source] = nil
    try pull(top.source)
    return feature
  }

  /// Reads the next feature of `source` into the heap, if it has one.
  private func pull(_ source: Int) throws {
    guard let feature = try sources[source]() else { return }
    heads[source] = feature
    heap.append((order.key(for: feature), source))
    siftUp(heap.count - 1)
  }

  /// Whether the entry at `a` goes before the entry at `b`: by key, then by sequence.
  private func precedes(_ a: Int, _ b: Int) -> Bool {
    let c = order.compare(heap[a].key, heap[b].key)
    return c != 0 ? c < 0 : heap[a].source < heap[b].source
  }

  private func siftUp(_ start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard precedes(child, parent) else { return }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private func siftDown(_ start: Int) {
    var parent = start
    while true {
      var first = parent
      let left = 2 * parent + 1
      if left < heap.count && precedes(left, first) { first = left }
      if left + 1 < heap.count && precedes(left + 1, first) { first = left + 1 }
      guard first != parent else { return }
      heap.swapAt(parent, first)
      parent = first
    }
  }
}

/// The k-way merge of the sorted parts of a sharded `sort` (each shard sorted its share of the
/// features, in input order), as a reader: the features one `sort` with the same options
/// would emit, in that order.
///
/// The check that the `--by` properties are on some feature, which each shard skips (its share
/// may lack them), is done here over all the features.
public final class SortedPartsReader: FeatureReader {
  private let parts: [any FeatureReader]
  private let merge: SortedMerge
  private var usage: PropertyUsage
  private let report: @Sendable (ReadDiagnostic) -> Void
  private var ended = false

  /// Merges `parts`, each sorted by the `sort` options in `values` (`by`, `by-hilbert`, `desc`,
  /// `strict`), the part of shard 0 first.
  public init(
    _ parts: [any FeatureReader], values: OptionValues,
    report: @escaping @Sendable (ReadDiagnostic) -> Void
  ) throws {
    let properties = values.list("by") ?? []
    let order = SortOrder(
      properties: properties, descending: values.flag("desc"), hilbert: values.flag("by-hilbert"))
    self.parts = parts
    merge = try SortedMerge(order: order, sources: parts.map { part in { try part.next() } })
    usage = PropertyUsage(stage: "sort", names: properties, strict: values.flag("strict"))
    self.report = report
  }

  /// The next feature in order; at the end, the check of the `--by` properties.
  public func next() throws -> Feature? {
    guard !ended else { return nil }
    guard let feature = try merge.next() else {
      ended = true
      try usage.finish(report: report)
      return nil
    }
    usage.observe(feature.properties)
    return feature
  }

  /// The bytes of the parts read so far.
  public var bytesRead: Int { parts.reduce(0) { $0 + $1.bytesRead } }
  /// None: parts hold only features that were read well.
  public var skippedCount: Int { 0 }
  /// The first part's members that are not empty: every shard that read some of a
  /// FeatureCollection kept the same ones.
  public var collectionMembers: JSONObject {
    parts.lazy.map(\.collectionMembers).first { !$0.isEmpty } ?? JSONObject()
  }
}
