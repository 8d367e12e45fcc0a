import Foundation
import GeoPipeSpatialIndex

/// Options of a cluster index, with supercluster's defaults.
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
public final class ClusterIndex: @unchecked Sendable {
  /// The options the index was built with.
  public let options: ClusterOptions
  /// The offset of cluster ids: by default the number of input points, including those
  /// without coordinates.
  public let inputCount: Int

  var entries = Entries()
  /// `levels[z]`: the items visible at zoom z (z in minZoom...maxZoom + 1).
  var levels: [Level?]

  /// One zoom level: its items in level order and their kd-tree.
  struct Level {
    /// Entry numbers in level order.
    var members: [UInt32]
    /// The tree over the members' coordinates; its ids are level positions.
    var tree: KDBush
  }

  /// Builds the index from input coordinates (nil for an input without coordinates).
  ///
  /// Cluster ids are offset by `idBase`, by default the number of inputs (supercluster's `n`);
  /// indexes that must not share ids (one per group) take distinct bases.
  public init(
    coordinates: [(longitude: Double, latitude: Double)?],
    options: ClusterOptions = ClusterOptions(), idBase: Int? = nil
  ) {
    self.options = options
    inputCount = idBase ?? coordinates.count
    levels = Array(repeating: nil, count: options.maxZoom + 2)
    var members: [UInt32] = []
    members.reserveCapacity(coordinates.count)
    entries.reserveCapacity(coordinates.count * 2)
    for (i, point) in coordinates.enumerated() {
      guard let point else { continue }
      let x = Double(Float(Projection.x(longitude: point.longitude)))
      let y = Double(Float(Projection.y(latitude: point.latitude)))
      members.append(UInt32(entries.size))
      entries.append(x: x, y: y, count: 1, ident: i)
    }
    var level = makeLevel(members)
    levels[options.maxZoom + 1] = level
    if options.maxZoom >= options.minZoom {
      for zoom in stride(from: options.maxZoom, through: options.minZoom, by: -1) {
        level = makeLevel(cluster(level, zoom: zoom))
        levels[zoom] = level
      }
    }
  }

  private func makeLevel(_ members: [UInt32]) -> Level {
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
    return Level(
      members: members, tree: KDBush(coordinates: coordinates, nodeSize: options.nodeSize))
  }

  /// Clusters the items of the level above `zoom` (supercluster's `_cluster`).
  private func cluster(_ level: Level, zoom: Int) -> [UInt32] {
    let r = options.radius / (options.extent * pow(2, Double(zoom)))
    let minPoints = options.minPoints
    let mark = Int8(zoom)
    var next: [UInt32] = []
    next.reserveCapacity(level.members.count)
    // Clusters formed at this zoom; they join `entries` after the loop, which only reads and
    // marks the entries of the level above.
    var formed = Entries()
    let firstNew = entries.size
    var neighbours: [Int] = []
    // The marks and parents are taken out of `entries` while the loop writes them, so that the
    // reads of the coordinates and counts do not overlap a write to the same storage.
    var zoomMarks = entries.zoom
    var parentIds = entries.parent
    entries.zoom = []
    entries.parent = []
    let allX = entries.x
    let allY = entries.y
    let allCounts = entries.count
    level.members.withUnsafeBufferPointer { members in
      allX.withUnsafeBufferPointer { xs in
        allY.withUnsafeBufferPointer { ys in
          allCounts.withUnsafeBufferPointer { counts in
            zoomMarks.withUnsafeMutableBufferPointer { zooms in
              parentIds.withUnsafeMutableBufferPointer { parents in
                for i in 0..<members.count {
                  let e = Int(members[i])
                  if zooms[e] <= mark { continue }
                  zooms[e] = mark
                  let x = xs[e]
                  let y = ys[e]
                  neighbours.removeAll(keepingCapacity: true)
                  level.tree.within(x: x, y: y, radius: r) { neighbours.append(Int(members[$0])) }
                  let originCount = counts[e]
                  var count = originCount
                  for k in neighbours where zooms[k] > mark { count += counts[k] }
                  if count > originCount && count >= minPoints {
                    var wx = x * Double(originCount)
                    var wy = y * Double(originCount)
                    let id = (i << 5) + (zoom + 1) + inputCount
                    for k in neighbours {
                      if zooms[k] <= mark { continue }
                      zooms[k] = mark
                      let n = Double(counts[k])
                      wx += xs[k] * n
                      wy += ys[k] * n
                      parents[k] = id
                    }
                    parents[e] = id
                    next.append(UInt32(firstNew + formed.size))
                    formed.append(
                      x: wx / Double(count), y: wy / Double(count), count: count, ident: id)
                  } else {
                    next.append(UInt32(e))
                    if count > 1 {
                      for k in neighbours where zooms[k] > mark {
                        zooms[k] = mark
                        next.append(UInt32(k))
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
    entries.zoom = zoomMarks
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
  /// The last zoom the item was visited at while clustering (`Int8.max`: not yet).
  var zoom: [Int8] = []

  var size: Int { x.count }

  mutating func reserveCapacity(_ n: Int) {
    x.reserveCapacity(n)
    y.reserveCapacity(n)
    count.reserveCapacity(n)
    ident.reserveCapacity(n)
    parent.reserveCapacity(n)
    zoom.reserveCapacity(n)
  }

  mutating func append(contentsOf other: Entries) {
    x += other.x
    y += other.y
    count += other.count
    ident += other.ident
    parent += other.parent
    zoom += other.zoom
  }

  mutating func append(x: Double, y: Double, count: Int, ident: Int) {
    self.x.append(x)
    self.y.append(y)
    self.count.append(count)
    self.ident.append(ident)
    parent.append(-1)
    zoom.append(Int8.max)
  }
}

/// supercluster's Web Mercator projection to [0, 1], in its order of operations.
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
