import Foundation
import GeoPipeSpatialIndex

/// Options of a cluster index, with supercluster's defaults.
///
/// The one home of those defaults (supercluster's `defaultOptions`): `ClusterOptions()` is what
/// the `cluster` stage starts from and what its option table shows.
public struct ClusterOptions: Sendable, Equatable {
  /// The lowest zoom with clusters.
  public var minZoom = 0
  /// The highest zoom with clusters (above it every point stands alone).
  public var maxZoom = 16
  /// The fewest points that form a cluster.
  public var minPoints = 2
  /// The cluster radius, in pixels of a tile `extent` pixels wide.
  public var radius = 40.0
  /// The tile width in pixels that `radius` is relative to.
  public var extent = 512.0
  /// The kd-tree leaf size.
  public var nodeSize = 64
  /// Whether cluster centroids are summed in kdbush's order, as supercluster sums them.
  ///
  /// Off, the members of a cluster of three or more items are summed in level order, which can
  /// change a centroid in its last bit (about 1e-14°) and nothing else: memberships, ids and
  /// counts do not depend on the order when `minPoints` is 2. On, or with `minPoints` above 2
  /// (where the order decides memberships), the kd-tree of every level is built while
  /// clustering to find that order, which doubles the build time.
  public var exactOrder = false

  /// Creates the default options.
  public init() {}
}

/// Points clustered at every zoom level, with supercluster 8.0.1's semantics.
///
/// Points are projected to Web Mercator in [0, 1] and rounded to `Float`; from `maxZoom` down,
/// each level is clustered greedily from the level above it, visiting its items in order and
/// their neighbours within `radius / (extent · 2^zoom)` in kdbush's order. A cluster sits at
/// the count-weighted centroid of its members and gets the id
/// `(position << 5) + (zoom + 1) + n`, where `position` is the position of its first member
/// in the finer level and `n` the number of input points (counting those without geometry).
///
/// Items are kept once, in `entries`; each level lists the entries it holds, so memory grows
/// with the number of distinct points and clusters, not with the number of levels times points.
/// A level's kd-tree, which answers box and radius queries in kdbush's order, is built the first
/// time the level is queried.
public final class ClusterIndex: @unchecked Sendable {
  /// The options the index was built with.
  public let options: ClusterOptions
  /// The offset of cluster ids: by default the number of input points, including those
  /// without coordinates.
  public let inputCount: Int

  var entries = Entries()
  /// `levels[z]`: the items visible at zoom z (z in minZoom...maxZoom + 1).
  var levels: [Level?]

  /// One zoom level: its items in level order.
  struct Level {
    /// Entry numbers in level order.
    var members: [UInt32]
  }

  /// `trees[z]`: the kd-tree over the members of `levels[z]` (ids are level positions), once
  /// built.
  private var trees: [KDBush?]
  /// `treeMembers[z][i]`: the entry stored at position `i` of `trees[z]`.
  private var treeMembers: [[UInt32]]
  private let treeLock = NSLock()

  /// Builds the index from input coordinates (nil for an input without coordinates).
  ///
  /// Cluster ids are offset by `idBase`, by default the number of inputs (supercluster's `n`);
  /// indexes that must not share ids (one per group) take distinct bases. `progress` is told
  /// each zoom once its clusters are made, from `maxZoom` down.
  public init(
    coordinates: [(longitude: Double, latitude: Double)?],
    options: ClusterOptions = ClusterOptions(), idBase: Int? = nil,
    progress: ((_ zoom: Int) -> Void)? = nil
  ) {
    self.options = options
    inputCount = idBase ?? coordinates.count
    levels = Array(repeating: nil, count: options.maxZoom + 2)
    trees = Array(repeating: nil, count: options.maxZoom + 2)
    treeMembers = Array(repeating: [], count: options.maxZoom + 2)
    // The points in input order (supercluster's order at the top level), their entries in
    // Z-order, so that the queries' lookups of nearby items read nearby memory.
    var inputs: [Int] = []
    var xs: [Float] = []
    var ys: [Float] = []
    inputs.reserveCapacity(coordinates.count)
    xs.reserveCapacity(coordinates.count)
    ys.reserveCapacity(coordinates.count)
    for (i, point) in coordinates.enumerated() {
      guard let point else { continue }
      inputs.append(i)
      xs.append(Float(Projection.x(longitude: point.longitude)))
      ys.append(Float(Projection.y(latitude: point.latitude)))
    }
    var members = [UInt32](repeating: 0, count: inputs.count)
    entries.reserveCapacity(inputs.count * 2)
    for p in ZOrder.order(xs: xs, ys: ys) {
      let p = Int(p)
      members[p] = UInt32(entries.size)
      entries.append(x: Double(xs[p]), y: Double(ys[p]), count: 1, ident: inputs[p])
    }
    var level = Level(members: members)
    levels[options.maxZoom + 1] = level
    if options.maxZoom >= options.minZoom {
      for zoom in stride(from: options.maxZoom, through: options.minZoom, by: -1) {
        level = Level(members: cluster(level, zoom: zoom))
        levels[zoom] = level
        progress?(zoom)
      }
    }
  }

  /// Builds the kd-tree of every zoom now rather than at each zoom's first query, as
  /// supercluster's `load()` does (for timing, or before querying from several threads).
  public func buildTrees() {
    for zoom in levels.indices where levels[zoom] != nil { _ = tree(zoom) }
  }

  /// The kd-tree of the level at `zoom`, built on first use.
  func tree(_ zoom: Int) -> KDBush { treeAndMembers(zoom).tree }

  /// The kd-tree of the level at `zoom` and the entry at each of its storage positions.
  func treeAndMembers(_ zoom: Int) -> (tree: KDBush, members: [UInt32]) {
    treeLock.lock()
    defer { treeLock.unlock() }
    if let tree = trees[zoom] { return (tree, treeMembers[zoom]) }
    let members = levels[zoom]?.members ?? []
    let coordinates = [Float](unsafeUninitializedCapacity: members.count * 2) { buffer, count in
      entries.x.withUnsafeBufferPointer { xs in
        entries.y.withUnsafeBufferPointer { ys in
          for (k, member) in members.enumerated() {
            buffer[2 * k] = Float(xs[Int(member)])
            buffer[2 * k + 1] = Float(ys[Int(member)])
          }
        }
      }
      count = members.count * 2
    }
    let tree = KDBush(coordinates: coordinates, nodeSize: options.nodeSize)
    let stored = tree.ids.map { members[Int($0)] }
    trees[zoom] = tree
    treeMembers[zoom] = stored
    return (tree, stored)
  }

  /// Clusters the items of the level above `zoom` (supercluster's `_cluster`).
  ///
  /// supercluster queries the level's tree around each item in turn. The neighbours of every
  /// item are found here at once instead (`FixedRadiusNeighbours`, the same sets as the tree
  /// queries). Their order decides the order in which centroids are summed and, with
  /// `minPoints` > 2, the order of the next level: with `exactOrder` or `minPoints` > 2 they are
  /// put in the order the tree reports them (its traversal ranks), otherwise in level order.
  /// Items are visited in level order, as supercluster does.
  private func cluster(_ level: Level, zoom: Int) -> [UInt32] {
    let r = options.radius / (options.extent * pow(2, Double(zoom)))
    let n = level.members.count
    var queryX = [Double](repeating: 0, count: n)
    var queryY = [Double](repeating: 0, count: n)
    var pointX = [Float](repeating: 0, count: n)
    var pointY = [Float](repeating: 0, count: n)
    entries.x.withUnsafeBufferPointer { xs in
      entries.y.withUnsafeBufferPointer { ys in
        for (p, member) in level.members.enumerated() {
          let x = xs[Int(member)]
          let y = ys[Int(member)]
          queryX[p] = x
          queryY[p] = y
          pointX[p] = Float(x)
          pointY[p] = Float(y)
        }
      }
    }
    let found = queryX.withUnsafeBufferPointer { qx in
      queryY.withUnsafeBufferPointer { qy in
        pointX.withUnsafeBufferPointer { px in
          pointY.withUnsafeBufferPointer { py in
            FixedRadiusNeighbours(queryX: qx, queryY: qy, pointX: px, pointY: py, radius: r)
          }
        }
      }
    }
    guard let found else {
      // Coordinates the grid cannot hold (not finite): one tree query per item, which returns
      // the neighbours in the tree's order.
      let tree = tree(zoom + 1)
      return greedy(level, zoom: zoom) { p, taken, neighbours in
        let e = Int(level.members[p])
        tree.within(x: entries.x[e], y: entries.y[e], radius: r) {
          if !taken[$0] { neighbours.append($0) }
        }
      }
    }
    let treeOrder = options.exactOrder || options.minPoints > 2
    var ranks: [UInt32] = []
    return greedy(level, zoom: zoom) { p, taken, neighbours in
      for q in found.neighbours(of: p) where !taken[Int(q)] { neighbours.append(Int(q)) }
      if neighbours.count > 1 {
        if treeOrder {
          if ranks.isEmpty { ranks = tree(zoom + 1).traversalRanks() }
          neighbours.sort { ranks[$0] < ranks[$1] }
        } else {
          neighbours.sort()
        }
      }
    }
  }

  /// supercluster's greedy pass over a level; returns the next level's entries.
  ///
  /// Each unclaimed item, in level order, takes its unclaimed neighbours, which
  /// `unclaimedNeighbours(p, taken, &list)` appends to `list` in the order their centroid terms
  /// are summed (and, below `minPoints`, the next level lists them).
  private func greedy(
    _ level: Level, zoom: Int,
    unclaimedNeighbours: (Int, UnsafeMutableBufferPointer<Bool>, inout [Int]) -> Void
  ) -> [UInt32] {
    let n = level.members.count
    let minPoints = options.minPoints
    var next: [UInt32] = []
    next.reserveCapacity(n)
    // Clusters formed at this zoom; they join `entries` after the loop, which only reads the
    // entries of the level above.
    var formed = Entries()
    let firstNew = entries.size
    var takenFlags = [Bool](repeating: false, count: n)
    var neighbours: [Int] = []
    var parentIds = entries.parent
    entries.parent = []
    level.members.withUnsafeBufferPointer { members in
      entries.x.withUnsafeBufferPointer { xs in
        entries.y.withUnsafeBufferPointer { ys in
          entries.count.withUnsafeBufferPointer { counts in
            parentIds.withUnsafeMutableBufferPointer { parents in
              takenFlags.withUnsafeMutableBufferPointer { taken in
                for p in 0..<n {
                  if taken[p] { continue }
                  taken[p] = true
                  let e = Int(members[p])
                  neighbours.removeAll(keepingCapacity: true)
                  unclaimedNeighbours(p, taken, &neighbours)
                  if neighbours.isEmpty {
                    next.append(UInt32(e))
                    continue
                  }
                  let originCount = counts[e]
                  var count = originCount
                  for q in neighbours { count += counts[Int(members[q])] }
                  if count >= minPoints {
                    var wx = xs[e] * Double(originCount)
                    var wy = ys[e] * Double(originCount)
                    let id = (p << 5) + (zoom + 1) + inputCount
                    for q in neighbours {
                      taken[q] = true
                      let k = Int(members[q])
                      let weight = Double(counts[k])
                      wx += xs[k] * weight
                      wy += ys[k] * weight
                      parents[k] = id
                    }
                    parents[e] = id
                    next.append(UInt32(firstNew + formed.size))
                    formed.append(
                      x: wx / Double(count), y: wy / Double(count), count: count, ident: id)
                  } else {
                    next.append(UInt32(e))
                    if count > 1 {
                      for q in neighbours {
                        taken[q] = true
                        next.append(members[q])
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    entries.parent = parentIds
    entries.append(contentsOf: formed)
    return next
  }
}

/// The distinct points and clusters of an index, as parallel arrays.
struct Entries {
  var x: [Double] = []
  var y: [Double] = []
  /// Points in the cluster (1 for an input point).
  var count: [Int] = []
  /// The input index of a point, or the id of a cluster.
  var ident: [Int] = []
  /// The id of the cluster the item joined, or -1.
  var parent: [Int] = []

  var size: Int { x.count }

  mutating func reserveCapacity(_ n: Int) {
    x.reserveCapacity(n)
    y.reserveCapacity(n)
    count.reserveCapacity(n)
    ident.reserveCapacity(n)
    parent.reserveCapacity(n)
  }

  mutating func append(contentsOf other: Entries) {
    x += other.x
    y += other.y
    count += other.count
    ident += other.ident
    parent += other.parent
  }

  mutating func append(x: Double, y: Double, count: Int, ident: Int) {
    self.x.append(x)
    self.y.append(y)
    self.count.append(count)
    self.ident.append(ident)
    parent.append(-1)
  }
}

/// supercluster's Web Mercator projection to [0, 1], in its order of operations.
///
/// Deliberately not GeoPipeMercator's `WebMercator`: cluster ids, memberships and centroids
/// must match supercluster's to the last bit, so this keeps its exact arithmetic (no latitude
/// clamp before the sine, `atan(exp)` for the inverse) rather than the shared projection's.
public enum Projection {
  /// Longitude to x.
  public static func x(longitude: Double) -> Double { longitude / 360 + 0.5 }

  /// Latitude to y, clamped to [0, 1].
  public static func y(latitude: Double) -> Double {
    let s = sin(latitude * Double.pi / 180)
    let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / Double.pi
    return y < 0 ? 0 : y > 1 ? 1 : y
  }

  /// x to longitude.
  public static func longitude(x: Double) -> Double { (x - 0.5) * 360 }

  /// y to latitude.
  public static func latitude(y: Double) -> Double {
    let y2 = (180 - y * 360) * Double.pi / 180
    return 360 * atan(exp(y2)) / Double.pi - 90
  }
}
