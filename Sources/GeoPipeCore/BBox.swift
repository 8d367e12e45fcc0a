/// A longitude/latitude box: west, south, east, north (RFC 7946 §5).
///
/// When `west > east` the box crosses the antimeridian (§5.2).
public struct BBox: Hashable, Sendable {
  /// Western edge.
  public var west: Double
  /// Southern edge.
  public var south: Double
  /// Eastern edge.
  public var east: Double
  /// Northern edge.
  public var north: Double

  /// Creates a box from its edges.
  public init(west: Double, south: Double, east: Double, north: Double) {
    self.west = west
    self.south = south
    self.east = east
    self.north = north
  }

  /// A box that contains nothing; extending it with a point gives that point's box.
  public static let empty = BBox(
    west: .infinity, south: .infinity, east: -.infinity, north: -.infinity)

  /// True when nothing has been added to an `empty` box.
  public var isEmpty: Bool { south > north }

  /// Whether the box crosses the antimeridian.
  public var crossesAntimeridian: Bool { west > east }

  /// Grows the box to include a point (never producing an antimeridian-crossing box).
  public mutating func extend(x: Double, y: Double) {
    if x < west { west = x }
    if x > east { east = x }
    if y < south { south = y }
    if y > north { north = y }
  }

  /// Grows the box to include another box.
  public mutating func extend(_ other: BBox) {
    guard !other.isEmpty else { return }
    extend(x: other.west, y: other.south)
    extend(x: other.east, y: other.north)
  }

  /// Whether a point lies in the box (edges included), honouring antimeridian crossing.
  public func contains(x: Double, y: Double) -> Bool {
    guard y >= south && y <= north else { return false }
    return crossesAntimeridian ? (x >= west || x <= east) : (x >= west && x <= east)
  }

  /// The parameters t0 ≤ t1 in [0, 1] of the part of the segment from (x0, y0) to (x1, y1)
  /// that lies in the box (Liang–Barsky clipping), or nil when no part does.
  ///
  /// The box is taken as the plane's `west...east` × `south...north`, without antimeridian
  /// crossing.
  public func segmentParameters(x0: Double, y0: Double, x1: Double, y1: Double) -> (
    Double, Double
  )? {
    var t0 = 0.0
    var t1 = 1.0
    let dx = x1 - x0
    let dy = y1 - y0
    // One edge's limit on the parameters; false when the segment is wholly outside it.
    func edge(_ p: Double, _ q: Double) -> Bool {
      if p == 0 { return q >= 0 }
      let r = q / p
      if p < 0 {
        if r > t1 { return false }
        t0 = max(t0, r)
      } else {
        if r < t0 { return false }
        t1 = min(t1, r)
      }
      return true
    }
    guard edge(-dx, x0 - west), edge(dx, east - x0), edge(-dy, y0 - south),
      edge(dy, north - y0)
    else { return nil }
    return (t0, t1)
  }

  /// Whether two boxes share any point; `self` may cross the antimeridian, `other` may not.
  public func intersects(_ other: BBox) -> Bool {
    guard other.south <= north && other.north >= south else { return false }
    if crossesAntimeridian {
      return other.east >= west || other.west <= east
    }
    return other.west <= east && other.east >= west
  }
}
