import GeoPipeCore
import GeoPipeStageKit

/// The centroid of a geometry in planar lon/lat, from its highest-dimension parts: the
/// area-weighted centroid of polygons, else the length-weighted centroid of lines, else the
/// mean of points (as GEOS's `GEOSGetCentroid` does).
enum Centroid {
  static func of(_ geometry: Geometry) -> (longitude: Double, latitude: Double)? {
    var area = Accumulator()
    var length = Accumulator()
    var points = Accumulator()
    collect(geometry, area: &area, length: &length, points: &points)
    return area.result ?? length.result ?? points.result
  }

  /// A weighted sum of positions.
  private struct Accumulator {
    var weight = 0.0
    var x = 0.0
    var y = 0.0

    mutating func add(_ px: Double, _ py: Double, weight w: Double) {
      weight += w
      x += px * w
      y += py * w
    }

    var result: (longitude: Double, latitude: Double)? {
      weight > 0 ? (x / weight, y / weight) : nil
    }
  }

  private static func collect(
    _ geometry: Geometry, area: inout Accumulator, length: inout Accumulator,
    points: inout Accumulator
  ) {
    switch geometry {
    case .point(let p): points.add(p.x, p.y, weight: 1)
    case .multiPoint(let c): c.forEachXY { points.add($0, $1, weight: 1) }
    case .lineString(let c): addLine(c, to: &length, points: &points)
    case .multiLineString(let lines):
      for line in lines { addLine(line, to: &length, points: &points) }
    case .polygon(let rings): addPolygon(rings, area: &area, length: &length, points: &points)
    case .multiPolygon(let polygons):
      for rings in polygons { addPolygon(rings, area: &area, length: &length, points: &points) }
    case .geometryCollection(let members):
      for member in members { collect(member, area: &area, length: &length, points: &points) }
    }
  }

  private static func addLine(
    _ line: CoordinateArray, to length: inout Accumulator, points: inout Accumulator
  ) {
    var previous: (Double, Double)?
    line.forEachXY { x, y in
      points.add(x, y, weight: 1)
      if let (px, py) = previous {
        let d = ((x - px) * (x - px) + (y - py) * (y - py)).squareRoot()
        length.add((x + px) / 2, (y + py) / 2, weight: d)
      }
      previous = (x, y)
    }
  }

  private static func addPolygon(
    _ rings: [CoordinateArray], area: inout Accumulator, length: inout Accumulator,
    points: inout Accumulator
  ) {
    for (k, ring) in rings.enumerated() {
      // Shoelace terms relative to the first vertex, for precision far from the origin.
      var sum = 0.0
      var cx = 0.0
      var cy = 0.0
      let first = ring.first
      var previous: (Double, Double)?
      ring.forEachXY { x, y in
        if let (px, py) = previous, let first {
          let ax = px - first.x
          let ay = py - first.y
          let bx = x - first.x
          let by = y - first.y
          let cross = ax * by - bx * ay
          sum += cross
          cx += (ax + bx) * cross
          cy += (ay + by) * cross
        }
        previous = (x, y)
      }
      addLine(ring, to: &length, points: &points)
      guard sum != 0, let first else { continue }
      let ringArea = abs(sum) / 2
      // The exterior adds, holes subtract.
      let sign = k == 0 ? 1.0 : -1.0
      area.add(first.x + cx / (3 * sum), first.y + cy / (3 * sum), weight: sign * ringArea)
    }
  }
}
