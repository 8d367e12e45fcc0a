import GeoPipeCore

/// Shapefile polygon rings assembled into polygons.
///
/// The ESRI Shapefile Technical Description (p. 8) has outer rings clockwise and holes
/// counter-clockwise.
/// Each clockwise ring is an outer ring; each counter-clockwise ring is a hole of the smallest
/// outer ring that contains it, or, contained by none, an outer ring of its own (as GDAL
/// reads such files). Polygons come out in the order of their outer rings, holes in file order.
enum RingAssembly {
  /// The polygon or multipolygon the rings make; nil when there are none.
  static func geometry(_ rings: [CoordinateArray]) -> Geometry? {
    guard !rings.isEmpty else { return nil }
    if rings.count == 1 { return .polygon(rings) }
    let areas = rings.map(\.signedDoubleArea)
    var isOuter = areas.map { $0 <= 0 }
    var boxes: [BBox] = []
    boxes.reserveCapacity(rings.count)
    for ring in rings {
      var box = BBox.empty
      ring.forEachXY { x, y in box.extend(x: x, y: y) }
      boxes.append(box)
    }
    let outers = rings.indices.filter { isOuter[$0] }
    var owner = [Int](repeating: -1, count: rings.count)
    for hole in rings.indices where !isOuter[hole] {
      var best = -1
      for outer in outers
      where contains(boxes[outer], boxes[hole])
        && (best < 0 || abs(areas[outer]) < abs(areas[best]))
        && ringInside(rings[hole], rings[outer])
      {
        best = outer
      }
      if best < 0 { isOuter[hole] = true } else { owner[hole] = best }
    }
    var polygons: [[CoordinateArray]] = []
    var slot = [Int](repeating: -1, count: rings.count)
    for k in rings.indices where isOuter[k] {
      slot[k] = polygons.count
      polygons.append([rings[k]])
    }
    for k in rings.indices where owner[k] >= 0 { polygons[slot[owner[k]]].append(rings[k]) }
    return polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(polygons)
  }

  private static func contains(_ a: BBox, _ b: BBox) -> Bool {
    b.west >= a.west && b.east <= a.east && b.south >= a.south && b.north <= a.north
  }

  /// Whether `inner` lies inside `outer`: decided by its first vertex that is not on `outer`'s
  /// boundary (rings that touch share vertices).
  private static func ringInside(_ inner: CoordinateArray, _ outer: CoordinateArray) -> Bool {
    for k in inner.indices {
      let p = inner[k]
      switch locate(p.x, p.y, in: outer) {
      case .inside: return true
      case .outside: return false
      case .boundary: continue
      }
    }
    // Every vertex on the boundary: the same ring, or one drawn along it.
    return true
  }

  private enum Location { case inside, outside, boundary }

  /// Crossing-number test, with points on an edge reported as such.
  private static func locate(_ x: Double, _ y: Double, in ring: CoordinateArray) -> Location {
    let n = ring.count
    guard n >= 3 else { return .outside }
    var inside = false
    var previous = ring[n - 1]
    for k in 0..<n {
      let current = ring[k]
      let (x1, y1, x2, y2) = (previous.x, previous.y, current.x, current.y)
      if (y1 > y) != (y2 > y) {
        let crossX = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
        if crossX == x { return .boundary }
        if crossX > x { inside.toggle() }
      } else if y1 == y && y2 == y && min(x1, x2) <= x && x <= max(x1, x2) {
        return .boundary
      }
      if x == x2 && y == y2 { return .boundary }
      previous = current
    }
    return inside ? .inside : .outside
  }
}
