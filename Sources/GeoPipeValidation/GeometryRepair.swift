import GeoPipeCore

/// Repairs that need no GEOS.
public enum GeometryRepair {
  /// The geometry without consecutive repeated positions in its lines and rings.
  public static func droppingDuplicates(_ geometry: Geometry) -> Geometry {
    switch geometry {
    case .point, .multiPoint: geometry
    case .lineString(let c): .lineString(dedupe(c))
    case .multiLineString(let lines): .multiLineString(lines.map(dedupe))
    case .polygon(let rings): .polygon(rings.map(dedupe))
    case .multiPolygon(let polygons): .multiPolygon(polygons.map { $0.map(dedupe) })
    case .geometryCollection(let members): .geometryCollection(members.map(droppingDuplicates))
    }
  }

  /// The path without repeats, unless that leaves too few positions for a line (2) or a
  /// ring (4): then GEOS's make-valid decides what the degenerate part becomes.
  private static func dedupe(_ path: CoordinateArray) -> CoordinateArray {
    guard path.count > 1 else { return path }
    let isRing = path.count > 3 && path[0] == path[path.count - 1]
    var result = CoordinateArray(dimension: path.dimension)
    result.reserveCapacity(path.count)
    var previous = path[0]
    result.append(previous)
    for k in 1..<path.count {
      let p = path[k]
      if p.x == previous.x && p.y == previous.y { continue }
      result.append(p)
      previous = p
    }
    return result.count >= (isRing ? 4 : 2) ? result : path
  }
}
