import GeoPipeCore
import GeoPipeSpatialIndex

extension Join {
  /// The layer features a point intersects or lies within (or on the boundary of: see the
  /// boundary rule), through the polygons' locators and GEOS for other layer features.
  func pointMatches(
    _ p: Position, _ geometry: Geometry, box: BBox, worker: PreparedLayer
  ) throws -> [(index: Int, distance: Double?)] {
    var inside: [(index: Int, distance: Double?)] = []
    var edge: Int?
    for candidate in layer.candidates(box) {
      let location: AreaLocation
      if let locator = layer.locators[candidate] {
        location = locator.locate(x: p.x, y: p.y)
      } else {
        let prepared = try worker.geometry(candidate)
        let intersects = try prepared.intersects(geometry)
        let inside = predicate == .intersects ? intersects : try prepared.contains(geometry)
        location = inside ? .interior : intersects ? .boundary : .exterior
      }
      switch location {
      case .interior: inside.append((candidate, nil))
      case .boundary:
        if predicate == .intersects {
          inside.append((candidate, nil))
        } else if edge == nil {
          edge = candidate
        }
      case .exterior: break
      }
    }
    if inside.isEmpty, let edge { return [(edge, nil)] }
    return inside
  }
}
