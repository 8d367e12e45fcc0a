/// Where a point lies relative to an area.
public enum AreaLocation: Sendable, Equatable {
  /// Inside, off the boundary.
  case interior
  /// On an edge or a vertex of a ring.
  case boundary
  /// Outside.
  case exterior
}

/// Locates points in a polygon or multipolygon given as rings: the same answers as GEOS's
/// `IndexedPointInAreaLocator` (the test behind a prepared polygon's `contains` and
/// `intersects` of a point), with its ray-crossing rules and an exact orientation test.
///
/// A ray from the point towards +x crosses the rings' edges; an odd count of crossings over
/// all rings means the interior (GEOS's `RayCrossingCounter`: an upward edge includes its
/// start and excludes its end, a downward edge the reverse, horizontal edges never count;
/// a point on an edge or a vertex is on the boundary). The edges are kept in horizontal bands
/// so that a lookup tests only the few whose span of y holds the point's. Immutable: lookups
/// may run concurrently.
public struct PointInAreaLocator: Sendable {
  /// The bounding box of the rings.
  public let bounds: BoxTree.Box
  /// Edges as x1, y1, x2, y2.
  private let edges: [Double]
  /// For band `k`, its edges are `bandEdges[bandStarts[k]..<bandStarts[k + 1]]`.
  private let bandStarts: [Int32]
  private let bandEdges: [Int32]
  private let bandHeight: Double

  /// Indexes rings given as flat x, y pairs.
  ///
  /// A ring may be closed or not (its first point closes it). Rings with fewer than three
  /// points bound nothing and are left out.
  public init(rings: [[Double]]) {
    var edges: [Double] = []
    var minX = Double.infinity
    var minY = Double.infinity
    var maxX = -Double.infinity
    var maxY = -Double.infinity
    for ring in rings where ring.count >= 6 {
      let n = ring.count / 2
      for k in 0..<n {
        let x1 = ring[2 * k]
        let y1 = ring[2 * k + 1]
        let j = (k + 1) % n
        let x2 = ring[2 * j]
        let y2 = ring[2 * j + 1]
        minX = min(minX, x1)
        maxX = max(maxX, x1)
        minY = min(minY, y1)
        maxY = max(maxY, y1)
        if x1 == x2 && y1 == y2 { continue }
        edges.append(contentsOf: [x1, y1, x2, y2])
      }
    }
    self.edges = edges
    let edgeCount = edges.count / 4
    guard edgeCount > 0, minY.isFinite, maxY.isFinite else {
      bounds = BoxTree.Box(minX: 0, minY: 0, maxX: -1, maxY: -1)
      bandStarts = [0, 0]
      bandEdges = []
      bandHeight = 1
      return
    }
    bounds = BoxTree.Box(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
    // About four edges a band on average keeps lookups short and the index small.
    let bandCount = max(1, min(edgeCount / 4, 1 << 20))
    let height = (maxY - minY) / Double(bandCount)
    let bandHeight = height > 0 ? height : 1
    self.bandHeight = bandHeight
    func band(_ y: Double) -> Int {
      min(bandCount - 1, max(0, Int((y - minY) / bandHeight)))
    }
    var counts = [Int32](repeating: 0, count: bandCount + 1)
    for e in 0..<edgeCount {
      let y1 = edges[4 * e + 1]
      let y2 = edges[4 * e + 3]
      for k in band(min(y1, y2))...band(max(y1, y2)) { counts[k + 1] += 1 }
    }
    for k in 0..<bandCount { counts[k + 1] += counts[k] }
    var next = counts
    var members = [Int32](repeating: 0, count: Int(counts[bandCount]))
    for e in 0..<edgeCount {
      let y1 = edges[4 * e + 1]
      let y2 = edges[4 * e + 3]
      for k in band(min(y1, y2))...band(max(y1, y2)) {
        members[Int(next[k])] = Int32(e)
        next[k] += 1
      }
    }
    bandStarts = counts
    bandEdges = members
  }

  /// Where the point (x, y) lies.
  public func locate(x: Double, y: Double) -> AreaLocation {
    guard x >= bounds.minX, x <= bounds.maxX, y >= bounds.minY, y <= bounds.maxY else {
      return .exterior
    }
    let bandCount = bandStarts.count - 1
    let k = min(bandCount - 1, max(0, Int((y - bounds.minY) / bandHeight)))
    var crossings = 0
    for slot in Int(bandStarts[k])..<Int(bandStarts[k + 1]) {
      let e = Int(bandEdges[slot]) * 4
      let x1 = edges[e]
      let y1 = edges[e + 1]
      let x2 = edges[e + 2]
      let y2 = edges[e + 3]
      // Entirely left of the point: the ray cannot cross it.
      if x1 < x && x2 < x { continue }
      if x == x2 && y == y2 { return .boundary }
      if y1 == y && y2 == y {
        if x >= min(x1, x2) && x <= max(x1, x2) { return .boundary }
        continue
      }
      guard (y1 > y && y2 <= y) || (y2 > y && y1 <= y) else { continue }
      var side = Orientation.of(x1, y1, x2, y2, x, y).rawValue
      if side == 0 { return .boundary }
      if y2 < y1 { side = -side }
      if side > 0 { crossings += 1 }
    }
    return crossings % 2 == 1 ? .interior : .exterior
  }
}
