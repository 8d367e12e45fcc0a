/// A quick proof that a tile's rounded polygons are valid, so that GEOS need not be asked.
///
/// Exact integer arithmetic on the rounded points. It answers true only when the polygons are
/// certainly valid in the OGC sense GEOS checks: every ring has three or more points, all
/// distinct (also between rings) and a non-zero area; no two edges meet except neighbours at
/// their shared point, and no neighbours fold back onto each other; every hole lies inside
/// its exterior and outside the other holes, and no exterior lies inside another polygon.
/// Anything else — and tiles with many polygons or holes, where the nesting checks would cost
/// more than they save — answers false, and GEOS decides.
enum RoundedPolygonCheck {
  /// Polygons in a tile, and holes in a polygon, beyond which GEOS decides.
  static let nestingLimit = 64

  struct Point: Hashable {
    var x: Int64
    var y: Int64
  }

  static func isCertainlyValid(_ polygons: [[[Int32]]]) -> Bool {
    guard polygons.count <= nestingLimit else { return false }
    var rings: [[Point]] = []
    // Each polygon's rings in `rings`, exterior first.
    var members: [Range<Int>] = []
    var seen = Set<Point>()
    for polygon in polygons {
      guard !polygon.isEmpty, polygon.count <= nestingLimit else { return false }
      let start = rings.count
      for flat in polygon {
        guard TileGeometryEncoder.signedArea(flat) != 0 else { return false }
        var ring: [Point] = []
        ring.reserveCapacity(flat.count / 2)
        var k = 0
        while k + 1 < flat.count {
          ring.append(Point(x: Int64(flat[k]), y: Int64(flat[k + 1])))
          k += 2
        }
        if ring.count > 1 && ring.first == ring.last { ring.removeLast() }
        guard ring.count >= 3 else { return false }
        for point in ring where !seen.insert(point).inserted { return false }
        rings.append(ring)
      }
      members.append(start..<rings.count)
    }
    return edgesOnlyMeetAtNeighbours(rings) && nestingIsValid(rings, polygons: members)
  }

  static func orientation(_ a: Point, _ b: Point, _ c: Point) -> Int64 {
    let d = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    return d > 0 ? 1 : d < 0 ? -1 : 0
  }

  /// Whether c lies on the closed segment a–b, given that the three are collinear.
  static func onSegment(_ a: Point, _ b: Point, _ c: Point) -> Bool {
    min(a.x, b.x) <= c.x && c.x <= max(a.x, b.x) && min(a.y, b.y) <= c.y && c.y <= max(a.y, b.y)
  }

  /// Whether the closed segments a–b and c–d share any point.
  static func intersect(_ a: Point, _ b: Point, _ c: Point, _ d: Point) -> Bool {
    let o1 = orientation(a, b, c)
    let o2 = orientation(a, b, d)
    let o3 = orientation(c, d, a)
    let o4 = orientation(c, d, b)
    if o1 != o2 && o3 != o4 && o1 != 0 && o2 != 0 && o3 != 0 && o4 != 0 { return true }
    return (o1 == 0 && onSegment(a, b, c)) || (o2 == 0 && onSegment(a, b, d))
      || (o3 == 0 && onSegment(c, d, a)) || (o4 == 0 && onSegment(c, d, b))
  }

  /// No two edges share a point other than neighbours at their common vertex, and no
  /// neighbours fold back along each other.
  static func edgesOnlyMeetAtNeighbours(_ rings: [[Point]]) -> Bool {
    struct Edge {
      var a: Point
      var b: Point
      var ring: Int
      var index: Int
      var minX: Int64 { min(a.x, b.x) }
    }
    var edges: [Edge] = []
    for (r, ring) in rings.enumerated() {
      let n = ring.count
      for i in 0..<n {
        let a = ring[(i + n - 1) % n]
        let v = ring[i]
        let c = ring[(i + 1) % n]
        // A spike: the edges into and out of v overlap.
        if orientation(a, v, c) == 0 && (a.x - v.x) * (c.x - v.x) + (a.y - v.y) * (c.y - v.y) > 0 {
          return false
        }
        edges.append(Edge(a: v, b: c, ring: r, index: i))
      }
    }
    edges.sort { $0.minX < $1.minX }
    for i in edges.indices {
      let e = edges[i]
      let maxX = max(e.a.x, e.b.x)
      let minY = min(e.a.y, e.b.y)
      let maxY = max(e.a.y, e.b.y)
      var j = i + 1
      while j < edges.count && edges[j].minX <= maxX {
        let f = edges[j]
        j += 1
        if max(f.a.y, f.b.y) < minY || min(f.a.y, f.b.y) > maxY { continue }
        if e.ring == f.ring {
          let n = rings[e.ring].count
          if (e.index + 1) % n == f.index || (f.index + 1) % n == e.index { continue }
        }
        if intersect(e.a, e.b, f.a, f.b) { return false }
      }
    }
    return true
  }

  /// Whether p is inside the ring (p on no edge, which the edge test has ruled out).
  static func contains(_ ring: [Point], _ p: Point) -> Bool {
    var inside = false
    var j = ring.count - 1
    for i in ring.indices {
      let a = ring[j]
      let b = ring[i]
      if (a.y > p.y) != (b.y > p.y) {
        // p is left of the edge's crossing of its row.
        let cross = (p.x - a.x) * (b.y - a.y) - (b.x - a.x) * (p.y - a.y)
        if (b.y > a.y) ? cross < 0 : cross > 0 { inside.toggle() }
      }
      j = i
    }
    return inside
  }

  /// Holes inside their exterior and not inside each other; no exterior inside another
  /// polygon (outside all of its holes).
  ///
  /// `polygons` are each polygon's rings in `rings`, exterior first.
  static func nestingIsValid(_ rings: [[Point]], polygons: [Range<Int>]) -> Bool {
    for (p, members) in polygons.enumerated() {
      let exterior = rings[members.lowerBound]
      let holes = members.dropFirst()
      for h in holes {
        let v = rings[h][0]
        guard contains(exterior, v) else { return false }
        for other in holes where other != h && contains(rings[other], v) { return false }
      }
      let v = exterior[0]
      for (q, others) in polygons.enumerated() where q != p {
        guard contains(rings[others.lowerBound], v) else { continue }
        if !others.dropFirst().contains(where: { contains(rings[$0], v) }) { return false }
      }
    }
    return true
  }
}
