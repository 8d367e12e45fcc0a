internal import CPROJ
import GeoPipeCore

/// Geodesics on the WGS84 ellipsoid, with PROJ's implementation of Karney's algorithms
/// (`<geodesic.h>`).
///
/// Distances are in metres, azimuths in degrees clockwise from north.
public struct Geodesic: Sendable {
  private let ellipsoid: geod_geodesic

  /// The WGS84 ellipsoid (a = 6378137 m, f = 1/298.257223563).
  public static let wgs84 = Geodesic(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

  private init(equatorialRadius: Double, flattening: Double) {
    var ellipsoid = geod_geodesic()
    geod_init(&ellipsoid, equatorialRadius, flattening)
    self.ellipsoid = ellipsoid
  }

  /// The point `distance` metres from (`lon`, `lat`) along the geodesic that starts with
  /// `azimuth` (`geod_direct`); its longitude is in [-180, 180].
  public func destination(lon: Double, lat: Double, azimuth: Double, distance: Double) -> (
    lon: Double, lat: Double
  ) {
    var g = ellipsoid
    var lat2 = 0.0
    var lon2 = 0.0
    geod_direct(&g, lat, lon, azimuth, distance, &lat2, &lon2, nil)
    return (lon2, lat2)
  }

  /// The length in metres of the shortest geodesic between two points (`geod_inverse`).
  public func distance(lon1: Double, lat1: Double, lon2: Double, lat2: Double) -> Double {
    var g = ellipsoid
    var s12 = 0.0
    geod_inverse(&g, lat1, lon1, lat2, lon2, &s12, nil, nil)
    return s12
  }

  /// The area in square metres enclosed by a ring of lon/lat positions (`geod_polygonarea`),
  /// whichever way it is wound.
  public func area(of ring: CoordinateArray) -> Double {
    var g = ellipsoid
    var lats: [Double] = []
    var lons: [Double] = []
    lats.reserveCapacity(ring.count)
    lons.reserveCapacity(ring.count)
    ring.forEachXY { x, y in
      lons.append(x)
      lats.append(y)
    }
    var area = 0.0
    geod_polygonarea(&g, &lats, &lons, Int32(clamping: lats.count), &area, nil)
    return abs(area)
  }
}
