import GeoPipeCore
import GeoPipeStageKit

/// Exact intersection tests between geometries and longitude/latitude boxes.
enum GeometryIntersection {
  /// Whether `geometry` shares any point with `box` (which may cross the antimeridian).
  static func intersects(_ geometry: Geometry, _ box: BBox) -> Bool {
    if box.crossesAntimeridian {
      return intersects(
        geometry, BBox(west: box.west, south: box.south, east: 180, north: box.north))
        || intersects(
          geometry, BBox(west: -180, south: box.south, east: box.east, north: box.north))
    }
    guard let bounds = geometry.bbox, box.intersects(bounds) else { return false }
    switch geometry {
    case .point(let p): return box.contains(x: p.x, y: p.y)
    case .multiPoint(let c):
      return c.contains { box.contains(x: $0.x, y: $0.y) }
    case .lineString(let c): return lineIntersects(c, box)
    case .multiLineString(let lines): return lines.contains { lineIntersects($0, box) }
    case .polygon(let rings): return polygonIntersects(rings, box)
    case .multiPolygon(let polygons): return polygons.contains { polygonIntersects($0, box) }
    case .geometryCollection(let members): return members.contains { intersects($0, box) }
    }
  }

  private static func lineIntersects(_ line: CoordinateArray, _ box: BBox) -> Bool {
    guard line.count > 0 else { return false }
    if line.count == 1 { return box.contains(x: line[0].x, y: line[0].y) }
    for k in 1..<line.count where segmentIntersects(line[k - 1], line[k], box) { return true }
    return false
  }

  private static func polygonIntersects(_ rings: [CoordinateArray], _ box: BBox) -> Bool {
    guard let exterior = rings.first, exterior.count > 0 else { return false }
    // An edge crossing the box, or the box's corner inside the polygon (box inside polygon),
    // or the polygon inside the box (its first vertex is in the box).
    if rings.contains(where: { lineIntersects($0, box) }) { return true }
    let cx = box.west
    let cy = box.south
    guard pointInRing(cx, cy, exterior) else { return false }
    return !rings.dropFirst().contains { pointInRing(cx, cy, $0) }
  }

  private static func pointInRing(_ x: Double, _ y: Double, _ ring: CoordinateArray) -> Bool {
    var inside = false
    var j = ring.count - 1
    for i in 0..<ring.count {
      let a = ring[i]
      let b = ring[j]
      if (a.y > y) != (b.y > y) && x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x {
        inside.toggle()
      }
      j = i
    }
    return inside
  }

  /// Whether the segment a–b reaches the box (Liang–Barsky clipping).
  private static func segmentIntersects(_ a: Position, _ b: Position, _ box: BBox) -> Bool {
    if box.contains(x: a.x, y: a.y) || box.contains(x: b.x, y: b.y) { return true }
    return box.segmentParameters(x0: a.x, y0: a.y, x1: b.x, y1: b.y) != nil
  }
}
