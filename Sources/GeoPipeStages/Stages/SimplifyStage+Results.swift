import GeoPipeCore
import GeoPipeGeometry

extension SimplifyStage {
  /// `result` as the input's kind where GEOS returned one part of a Multi* as a single part
  /// (its simplifiers do), so that a layer's geometry type does not change.
  static func keepingKind(of input: Geometry, _ result: Geometry) -> Geometry {
    switch (input, result) {
    case (.multiPolygon, .polygon(let rings)): .multiPolygon([rings])
    case (.multiLineString, .lineString(let line)): .multiLineString([line])
    default: result
    }
  }

  /// The geometry without polygons and holes smaller than `minArea` square metres, or nil if
  /// nothing is left.
  static func dropSmallParts(_ geometry: Geometry, below minArea: Double) -> Geometry? {
    func keep(_ rings: [CoordinateArray]) -> [CoordinateArray]? {
      guard let exterior = rings.first, Geodesic.wgs84.area(of: exterior) >= minArea else {
        return nil
      }
      return [exterior] + rings.dropFirst().filter { Geodesic.wgs84.area(of: $0) >= minArea }
    }
    switch geometry {
    case .polygon(let rings):
      return keep(rings).map { .polygon($0) }
    case .multiPolygon(let polygons):
      let kept = polygons.compactMap(keep)
      return kept.isEmpty ? nil : .multiPolygon(kept)
    case .geometryCollection(let members):
      let kept = members.compactMap { dropSmallParts($0, below: minArea) }
      return kept.isEmpty ? nil : .geometryCollection(kept)
    default:
      return geometry
    }
  }
}
