/// One position: longitude/easting, latitude/northing and optional altitude and measure.
///
/// Absent ordinates are NaN; a JSON number can never be NaN, so NaN safely means "not given"
/// and a position written back has exactly the numbers it was read with (RFC 7946 §3.1.1).
public struct Position: Hashable, Sendable {
  /// Longitude (or x).
  public var x: Double
  /// Latitude (or y).
  public var y: Double
  /// Altitude, or NaN when the position has two numbers.
  public var z: Double
  /// A fourth number, or NaN.
  ///
  /// RFC 7946 discourages it; it is kept, never interpreted.
  public var m: Double

  /// Creates a position; leave `z` and `m` out for a 2D position.
  public init(x: Double, y: Double, z: Double = .nan, m: Double = .nan) {
    self.x = x
    self.y = y
    self.z = z
    self.m = m
  }

  /// How many numbers the position has (2, 3 or 4).
  public var dimension: Int { !m.isNaN ? 4 : (!z.isNaN ? 3 : 2) }

  /// Whether an altitude is present.
  public var hasZ: Bool { !z.isNaN }

  /// Compares bit patterns, so that NaN (absent) equals NaN and -0.0 differs from 0.0.
  public static func == (a: Position, b: Position) -> Bool {
    a.x.bitPattern == b.x.bitPattern && a.y.bitPattern == b.y.bitPattern
      && a.z.bitPattern == b.z.bitPattern && a.m.bitPattern == b.m.bitPattern
  }

  /// Hashes the bit patterns, consistent with `==`.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(x.bitPattern)
    hasher.combine(y.bitPattern)
    hasher.combine(z.bitPattern)
    hasher.combine(m.bitPattern)
  }
}
