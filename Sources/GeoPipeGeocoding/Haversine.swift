import Foundation

/// Great-circle distances on the mean-radius sphere, by the haversine formula.
///
/// Every distance that reverse geocoding reports or compares comes from `distance`, so a
/// brute-force scan with this function is the exact oracle for `ReverseIndex`.
public enum Haversine {
  /// The mean radius of the Earth, R₁ = (2a + b) / 3 of WGS 84, in metres.
  public static let earthRadius = 6_371_008.8

  /// The great-circle distance in metres between two points given in degrees.
  ///
  /// d = 2R · asin(√h) with h = sin²(Δφ/2) + cos φ₁ · cos φ₂ · sin²(Δλ/2), h clamped to
  /// [0, 1] so that rounding cannot push it out of the domain of the square root or asin.
  /// Longitudes need no normalising: ±180 and values beyond it work, since only sin(Δλ/2)²
  /// enters. The formula is well-conditioned except near antipodal points, where it is good
  /// to a few centimetres.
  public static func distance(
    _ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double
  ) -> Double {
    distance(
      latitude1, longitude1, cos(latitude1 * radiansPerDegree), latitude2, longitude2,
      cos(latitude2 * radiansPerDegree))
  }

  /// `distance` with the cosines of the latitudes given, as `cos(latitude * radiansPerDegree)`:
  /// the same result bit for bit, for callers that keep the cosines.
  @inline(__always)
  static func distance(
    _ latitude1: Double, _ longitude1: Double, _ cosLatitude1: Double, _ latitude2: Double,
    _ longitude2: Double, _ cosLatitude2: Double
  ) -> Double {
    let sinHalfLatitude = sin((latitude2 - latitude1) * radiansPerDegree / 2)
    let sinHalfLongitude = sin((longitude2 - longitude1) * radiansPerDegree / 2)
    let h =
      sinHalfLatitude * sinHalfLatitude
      + cosLatitude1 * cosLatitude2 * (sinHalfLongitude * sinHalfLongitude)
    return 2 * earthRadius * asin(min(1, max(0, h)).squareRoot())
  }

  /// π / 180.
  static let radiansPerDegree = Double.pi / 180
}
