import GeoPipeCore
import GeoPipeGEOS
import GeoPipeGeometry
import GeoPipeStageKit

/// A circle on the WGS84 ellipsoid as a lon/lat polygon (RFC 7946), like MapKit's MKCircle.
///
/// Vertices are `geod_direct` destinations at equal azimuth steps, so each lies at the radius
/// from the centre along the ellipsoid. A circle that contains a pole becomes a cap closed along
/// the pole's latitude; one that crosses the antimeridian is cut there into a MultiPolygon
/// (RFC 7946 §3.1.9). The vertices added for the cut or the cap are the only ones not at the
/// radius.
enum GeodesicCircle {
  /// The polygon for a circle of `radius` metres around (`lon`, `lat`), with `segments`
  /// vertices on the circle.
  static func polygon(
    lon: Double, lat: Double, radius: Double, segments: Int, geos: GEOSContext
  ) throws -> Geometry {
    let geodesic = Geodesic.wgs84
    let points = (0..<segments).map { i in
      geodesic.destination(
        lon: lon, lat: lat, azimuth: 360 * Double(i) / Double(segments), distance: radius)
    }
    let northPole = geodesic.distance(lon1: lon, lat1: lat, lon2: lon, lat2: 90) < radius
    let southPole = geodesic.distance(lon1: lon, lat1: lat, lon2: lon, lat2: -90) < radius
    if northPole && southPole {
      throw GeoPipeError.data(
        "a circle of radius \(radius) m contains both poles: use a smaller radius", at: nil)
    }
    if northPole || southPole { return cap(points, north: northPole) }
    // Longitudes taken continuously around the centre, so that a circle across the antimeridian
    // is one ring that runs past ±180.
    var ring = CoordinateArray()
    ring.reserveCapacity(segments + 1)
    var crosses = false
    for p in points + [points[0]] {
      var x = p.lon
      if x - lon > 180 { x -= 360 } else if x - lon < -180 { x += 360 }
      if x > 180 || x < -180 { crosses = true }
      ring.append(Position(x: x, y: p.lat))
    }
    guard crosses else { return .polygon([ring]) }
    let shape = Geometry.polygon([ring])
    var parts: [[CoordinateArray]] = []
    for shift in [-360.0, 0, 360] {
      let window = BBox(west: -180 - shift, south: -90, east: 180 - shift, north: 90)
      var piece = try geos.clip(shape, to: window)
      piece.transformXY { x, _ in x += shift }
      switch piece {
      case .polygon(let rings) where !rings.isEmpty: parts.append(rings)
      case .multiPolygon(let polygons): parts += polygons.filter { !$0.isEmpty }
      default: break
      }
    }
    return parts.count == 1 ? .polygon(parts[0]) : .multiPolygon(parts)
  }

  /// A polar cap: the circle's vertices in order of longitude, closed along the pole.
  private static func cap(_ points: [(lon: Double, lat: Double)], north: Bool) -> Geometry {
    let sorted = points.sorted { $0.lon < $1.lon }
    guard let first = sorted.first, let last = sorted.last else { return .polygon([]) }
    // Where the circle meets the antimeridian, between the easternmost and westernmost vertex.
    let gap = first.lon + 360 - last.lon
    let edgeLat = gap > 0 ? last.lat + (180 - last.lon) / gap * (first.lat - last.lat) : last.lat
    let pole = north ? 90.0 : -90.0
    var ring = CoordinateArray()
    ring.reserveCapacity(points.count + 5)
    if north {
      ring.append(Position(x: -180, y: edgeLat))
      for p in sorted { ring.append(Position(x: p.lon, y: p.lat)) }
      ring.append(Position(x: 180, y: edgeLat))
      ring.append(Position(x: 180, y: pole))
      ring.append(Position(x: -180, y: pole))
      ring.append(Position(x: -180, y: edgeLat))
    } else {
      ring.append(Position(x: -180, y: pole))
      ring.append(Position(x: 180, y: pole))
      ring.append(Position(x: 180, y: edgeLat))
      for p in sorted.reversed() { ring.append(Position(x: p.lon, y: p.lat)) }
      ring.append(Position(x: -180, y: edgeLat))
      ring.append(Position(x: -180, y: pole))
    }
    return .polygon([ring])
  }
}
