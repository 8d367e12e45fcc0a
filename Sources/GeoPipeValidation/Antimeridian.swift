import GeoPipeCore

/// Splits lines and polygons that cross the antimeridian into parts on either side of it, as
/// RFC 7946 §3.1.9 asks.
public enum Antimeridian {
  /// The geometry with every crossing split; geometries that do not cross are unchanged.
  public static func split(_ geometry: Geometry) -> Geometry {
    switch geometry {
    case .point, .multiPoint: return geometry
    case .lineString(let line):
      let parts = splitLine(line)
      return parts.count == 1 ? geometry : .multiLineString(parts)
    case .multiLineString(let lines):
      guard lines.contains(where: crosses) else { return geometry }
      return .multiLineString(lines.flatMap(splitLine))
    case .polygon(let rings):
      guard rings.contains(where: crosses) else { return geometry }
      let parts = splitPolygon(rings)
      return parts.count == 1 ? .polygon(parts[0]) : .multiPolygon(parts)
    case .multiPolygon(let polygons):
      guard polygons.contains(where: { $0.contains(where: crosses) }) else { return geometry }
      return .multiPolygon(polygons.flatMap(splitPolygon))
    case .geometryCollection(let members): return .geometryCollection(members.map(split))
    }
  }

  /// Whether a segment of the path jumps more than 180° in longitude.
  static func crosses(_ path: CoordinateArray) -> Bool {
    guard path.count > 1 else { return false }
    for k in 1..<path.count where isCrossing(path[k - 1], path[k]) { return true }
    return false
  }

  /// Whether the segment from `a` to `b` crosses the antimeridian: it jumps more than 180° in
  /// longitude and neither end is on the antimeridian already (a ring that runs along it,
  /// such as Antarctica's edge from (180, -90) to (-180, -90), is split already).
  static func isCrossing(_ a: Position, _ b: Position) -> Bool {
    abs(b.x - a.x) > 180 && abs(a.x) != 180 && abs(b.x) != 180
  }

  private static func splitLine(_ line: CoordinateArray) -> [CoordinateArray] {
    guard crosses(line) else { return [line] }
    var parts: [CoordinateArray] = []
    var current = CoordinateArray(dimension: line.dimension)
    current.append(line[0])
    for k in 1..<line.count {
      let a = line[k - 1]
      let b = line[k]
      if isCrossing(a, b) {
        let edge: Double = a.x > 0 ? 180 : -180
        let unwrappedX = b.x + (a.x > 0 ? 360 : -360)
        let crossing = interpolate(a, Position(x: unwrappedX, y: b.y, z: b.z, m: b.m), atX: edge)
        current.append(crossing)
        parts.append(current)
        current = CoordinateArray(dimension: line.dimension)
        var other = crossing
        other.x = -edge
        current.append(other)
      }
      current.append(b)
    }
    parts.append(current)
    return parts
  }

  /// Splits a polygon by unwrapping its rings to continuous longitudes and clipping the result
  /// at ±180°.
  ///
  /// A shell that goes once around a pole (its unwrapped longitudes end 360° from where they
  /// start) is closed along that pole first — the pole on the side of the ring's mean
  /// latitude — so that it becomes a cap from ±180° to the pole.
  private static func splitPolygon(_ rings: [CoordinateArray]) -> [[CoordinateArray]] {
    guard let exterior = rings.first, exterior.count > 3 else { return [rings] }
    var shell = unwrapped(exterior, near: nil)
    let first = shell[0]
    let last = shell[shell.count - 1]
    let turn = last.x - first.x
    if abs(turn - 360) < 1e-9 || abs(turn + 360) < 1e-9 {
      var sum = 0.0
      shell.forEachXY { _, y in sum += y }
      let pole: Double = sum >= 0 ? 90 : -90
      shell.append(Position(x: last.x, y: pole))
      shell.append(Position(x: first.x, y: pole))
      shell.append(first)
    } else if abs(turn) > 1e-9 {
      return [rings]
    }
    var west = Double.infinity
    var east = -Double.infinity
    shell.forEachXY { x, _ in
      west = min(west, x)
      east = max(east, x)
    }
    var unwrappedRings = [shell]
    for hole in rings.dropFirst() {
      var ring = unwrapped(hole, near: first.x)
      guard abs(ring[ring.count - 1].x - ring[0].x) < 1e-9 else { return [rings] }
      // A hole lies within the shell's span of longitudes (which may run past ±180°).
      let shift = ring[0].x < west ? 360.0 : ring[0].x > east ? -360 : 0
      if shift != 0 { ring.transformXY { x, _ in x += shift } }
      unwrappedRings.append(ring)
    }
    if west >= -180 && east <= 180 { return [unwrappedRings] }
    // The world copies the shell touches, each clipped to [-180, 180] after moving it there.
    var pieces: [[CoordinateArray]] = []
    let lowest = Int(((west + 180) / 360).rounded(.down))
    let highest = Int(((east - 180) / 360).rounded(.up))
    for copy in lowest...highest {
      let shift = -360 * Double(copy)
      var piece: [CoordinateArray] = []
      for (k, ring) in unwrappedRings.enumerated() {
        var moved = ring
        moved.transformXY { x, _ in x += shift }
        let clipped = clip(clip(moved, at: -180, keepBelow: false), at: 180, keepBelow: true)
        guard clipped.count >= 4 else {
          if k == 0 { break }
          continue
        }
        piece.append(clipped)
      }
      if !piece.isEmpty { pieces.append(piece) }
    }
    return pieces.isEmpty ? [rings] : pieces
  }

  /// The ring with each longitude moved by a multiple of 360° so no segment jumps more than
  /// 180°, starting near `reference`.
  ///
  /// A ring around a pole ends 360° from where it started.
  private static func unwrapped(_ ring: CoordinateArray, near reference: Double?)
    -> CoordinateArray
  {
    guard ring.count > 1 else { return ring }
    var result = CoordinateArray(dimension: ring.dimension)
    var first = ring[0]
    if let reference { first.x += 360 * ((reference - first.x) / 360).rounded() }
    result.append(first)
    var previous = first
    for k in 1..<ring.count {
      var p = ring[k]
      p.x += 360 * ((previous.x - p.x) / 360).rounded()
      result.append(p)
      previous = p
    }
    return result
  }

  /// Sutherland–Hodgman clipping of a closed ring against the half-plane x ≤ edge (or ≥).
  private static func clip(_ ring: CoordinateArray, at edge: Double, keepBelow: Bool)
    -> CoordinateArray
  {
    func inside(_ p: Position) -> Bool { keepBelow ? p.x <= edge : p.x >= edge }
    var output = CoordinateArray(dimension: ring.dimension)
    let n = ring.count - 1
    guard n >= 3 else { return output }
    for k in 0..<n {
      let a = ring[k]
      let b = ring[k + 1]
      if inside(b) {
        if !inside(a) { output.append(interpolate(a, b, atX: edge)) }
        output.append(b)
      } else if inside(a) {
        output.append(interpolate(a, b, atX: edge))
      }
    }
    if let first = output.first, output.count > 0 { output.append(first) }
    return output
  }

  private static func interpolate(_ a: Position, _ b: Position, atX x: Double) -> Position {
    let t = b.x == a.x ? 0 : (x - a.x) / (b.x - a.x)
    let z = a.z.isNaN || b.z.isNaN ? Double.nan : a.z + t * (b.z - a.z)
    return Position(x: x, y: a.y + t * (b.y - a.y), z: z)
  }
}
