extension Geometry {
  /// The rings of a Polygon or MultiPolygon as flat x, y arrays (exteriors and holes alike,
  /// in order), or nil for any other geometry: what a point-in-polygon test by ray crossings
  /// needs.
  public var flatRings: [[Double]]? {
    var rings: [[Double]] = []
    func add(_ ring: CoordinateArray) {
      var flat: [Double] = []
      flat.reserveCapacity(ring.count * 2)
      ring.forEachXY { x, y in
        flat.append(x)
        flat.append(y)
      }
      rings.append(flat)
    }
    switch self {
    case .polygon(let polygon): polygon.forEach(add)
    case .multiPolygon(let polygons): polygons.forEach { $0.forEach(add) }
    default: return nil
    }
    return rings
  }
}
