import GeoPipeCore

/// One of the equal parts a run is split into (`geopipe run FILE --shard 2/7`): shard `index`
/// of `count`, numbered from 0.
///
/// Each source reads a disjoint share of its inputs, and the shares of shards 0 to `count - 1`
/// together cover every input exactly once, in input order (see `InputShare`).
public struct Shard: Sendable, Hashable, CustomStringConvertible {
  /// The shard's number, from 0.
  public let index: Int
  /// How many shards there are.
  public let count: Int

  /// The most shards a run is split into.
  public static let maxCount = 1 << 20

  /// A shard; throws a usage error unless `0 <= index < count <= maxCount`.
  public init(index: Int, count: Int) throws {
    guard count >= 1, count <= Self.maxCount else {
      throw GeoPipeError.usage("the shard count must be 1 to \(Self.maxCount), not \(count)")
    }
    guard index >= 0, index < count else {
      throw GeoPipeError.usage(
        "shard \(index) does not exist: shards of \(count) are numbered 0 to \(count - 1)")
    }
    self.index = index
    self.count = count
  }

  /// Parses `i/N`.
  public init(parsing text: String) throws {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
      throw GeoPipeError.usage(
        "--shard '\(text)' is not i/N (shard i of N, numbered from 0, such as 0/4)")
    }
    try self.init(index: index, count: count)
  }

  /// The shard a Kubernetes Indexed Job's pod runs: `JOB_COMPLETION_INDEX` of
  /// `GEOPIPE_SHARDS`.
  public init(environment: [String: String]) throws {
    guard let index = environment["JOB_COMPLETION_INDEX"].flatMap({ Int($0) }) else {
      throw GeoPipeError.usage(
        "--shard env needs JOB_COMPLETION_INDEX (set in the pods of a Kubernetes Indexed Job) "
          + "to be a whole number")
    }
    guard let count = environment["GEOPIPE_SHARDS"].flatMap({ Int($0) }) else {
      throw GeoPipeError.usage(
        "--shard env needs GEOPIPE_SHARDS, the number of shards (the Job's completions)")
    }
    try self.init(index: index, count: count)
  }

  /// `i/N`.
  public var description: String { "\(index)/\(count)" }

  /// Where this shard's part of `total` units starts: ⌊index · total / count⌋, so that one
  /// shard's end is the next one's start.
  public func start(of total: Int) -> Int { Self.boundary(index, of: total, count: count) }

  /// Where this shard's part of `total` units ends (`Int.max` for the last shard, so that it
  /// also takes what lies at `total`).
  public func end(of total: Int) -> Int {
    index == count - 1 ? Int.max : Self.boundary(index + 1, of: total, count: count)
  }

  /// The shares of inputs of `sizes` read one after another: the inputs are laid end to end
  /// and cut into `count` ranges of (nearly) equal size; each input's share is the part of
  /// this shard's range that falls on it, in the input's own units.
  public func shares(of sizes: [Int]) -> [InputShare] {
    let total = sizes.reduce(0, +)
    let lower = start(of: total)
    let upper = end(of: total)
    var offset = 0
    var result: [InputShare] = []
    for size in sizes {
      result.append(
        InputShare(
          lower: lower - offset, upper: upper == Int.max ? Int.max : upper - offset, size: size))
      offset += size
    }
    return result
  }

  private static func boundary(_ k: Int, of total: Int, count: Int) -> Int {
    let product = k.multipliedFullWidth(by: total)
    return count.dividingFullWidth(product).quotient
  }
}

/// The share of one input that a shard reads: the records whose position falls in
/// `lower..<upper`.
///
/// A record's position is where it begins in the input's `size` units: its byte offset for
/// formats cut by bytes (GeoJSONSeq, CSV, a FeatureCollection's features), or `k · size / n`
/// for the `k`th of `n` numbered records. An input that cannot be split (standard input, gzip,
/// a database query, a format without a way to split) is read whole by the shard whose share
/// holds position 0. Bounds may lie outside `0...size`.
public struct InputShare: Sendable, Hashable {
  /// The first position of the share (may be negative: the share starts before the input).
  public var lower: Int
  /// The position after the share (`Int.max` for the last shard's).
  public var upper: Int
  /// The input's size in the units positions count.
  public var size: Int

  /// Describes a share.
  public init(lower: Int, upper: Int, size: Int) {
    self.lower = lower
    self.upper = upper
    self.size = size
  }

  /// Whether a record at `position` belongs to the share.
  public func contains(_ position: Int) -> Bool { lower <= position && position < upper }

  /// Whether the shard reads an input that cannot be split: the share holds its position 0.
  public var readsWhole: Bool { contains(0) }

  /// Whether no record of the input can fall in the share.
  public var isEmpty: Bool { upper <= 0 || lower >= size || upper <= lower }

  /// The numbers of the records in the share, for an input of `count` numbered records: the
  /// `k`th is at position `k · size / count`, taken exactly.
  public func records(count: Int) -> Range<Int> {
    guard size > 0 else { return readsWhole ? 0..<count : 0..<0 }
    func first(atOrAfter position: Int) -> Int {
      // The least k with k · size ≥ position · count.
      if position <= 0 { return 0 }
      if position >= size { return count }
      let product = position.multipliedFullWidth(by: count)
      let (quotient, remainder) = size.dividingFullWidth(product)
      return remainder == 0 ? quotient : quotient + 1
    }
    let from = first(atOrAfter: lower)
    let to = upper == Int.max ? count : first(atOrAfter: upper)
    return from..<max(from, to)
  }
}
