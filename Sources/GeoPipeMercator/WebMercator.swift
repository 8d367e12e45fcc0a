import Foundation

/// Spherical Web Mercator (EPSG:3857) in the units map clients use: the world is a square
/// `256 · 2^zoom` points wide, x growing east from the antimeridian and y growing south from
/// the top edge at about 85.0511° N (the Google Maps SDK and MapKit convention).
///
/// Coordinates in `[0, 1]` ("world units") are the same at every zoom; multiply by
/// `worldSize(zoom:)` for points.
public enum WebMercator {
  /// Points across one 256-point tile.
  public static let tileSize = 256.0
  /// The latitude of the top and bottom edges of the square world (`atan(sinh(π))`).
  public static let maxLatitude = 85.051_128_779_806_59
  /// The sphere's radius in metres (EPSG:3857).
  public static let earthRadius = 6_378_137.0

  /// The width and height of the world in points at a (fractional) zoom.
  public static func worldSize(zoom: Double) -> Double { tileSize * exp2(zoom) }

  /// Longitude to x in world units; longitudes outside ±180 continue past 0 and 1.
  public static func x(longitude: Double) -> Double { longitude / 360 + 0.5 }

  /// Latitude to y in world units (0 at the top), clamped to the square world.
  public static func y(latitude: Double) -> Double {
    let clamped = min(max(latitude, -maxLatitude), maxLatitude)
    let s = sin(clamped * .pi / 180)
    let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / .pi
    return min(max(y, 0), 1)
  }

  /// x in world units to longitude (not wrapped).
  public static func longitude(x: Double) -> Double { (x - 0.5) * 360 }

  /// y in world units to latitude.
  public static func latitude(y: Double) -> Double {
    atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi
  }

  /// A position in world units.
  public static func project(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
    (x(longitude: longitude), y(latitude: latitude))
  }

  /// Longitude and latitude of a position in world units.
  public static func unproject(x: Double, y: Double) -> (longitude: Double, latitude: Double) {
    (longitude(x: x), latitude(y: y))
  }

  /// EPSG:3857 metres of a longitude and latitude.
  public static func metres(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
    let (x, y) = project(longitude: longitude, latitude: latitude)
    let half = .pi * earthRadius
    return ((x - 0.5) * 2 * half, (0.5 - y) * 2 * half)
  }

  /// Metres per point at a latitude and zoom (the scale a scale bar shows).
  public static func metresPerPoint(latitude: Double, zoom: Double) -> Double {
    cos(latitude * .pi / 180) * 2 * .pi * earthRadius / worldSize(zoom: zoom)
  }
}
