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
  /// start) becomes a cap: see `polarCap`.
  private static func splitPolygon(_ rings: [CoordinateArray]) -> [[CoordinateArray]] {
    guard let exterior = rings.first, exterior.count > 3 else { return [rings] }
    let shell = unwrapped(exterior, near: nil)
    let first = shell[0]
    let turn = shell[shell.count - 1].x - first.x
    if abs(turn - 360) < 1e-9 || abs(turn + 360) < 1e-9 {
      return polarCap(rings).map { [$0] } ?? [rings]
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

  /// A polygon whose shell goes once around a pole, as one polygon on the map.
  ///
  /// The shell runs from where it crosses the antimeridian round to where it crosses it
  /// again, and is closed along ±180° and the pole on the side of its mean latitude. Nil when
  /// the shell crosses the antimeridian more than once or a hole crosses it.
  private static func polarCap(_ rings: [CoordinateArray]) -> [CoordinateArray]? {
    let exterior = rings[0]
    let n = exterior.count - 1
    let crossings = (1...n).filter { isCrossing(exterior[$0 - 1], exterior[$0]) }
    guard crossings.count == 1, !rings.dropFirst().contains(where: crosses) else { return nil }
    let k = crossings[0]
    // The open ring from just after the crossing round to just before it.
    var path: [Position] = []
    for i in 0..<n { path.append(exterior[(k + i) % n]) }
    guard let a = path.last, let b = path.first else { return nil }
    let edge: Double = a.x > 0 ? 180 : -180
    let y = interpolate(a, Position(x: b.x + 2 * edge, y: b.y, z: b.z, m: b.m), atX: edge).y
    var sum = 0.0
    for p in path { sum += p.y }
    let pole: Double = sum >= 0 ? 90 : -90
    var ring = CoordinateArray(dimension: exterior.dimension)
    ring.append(Position(x: -edge, y: y))
    for p in path { ring.append(p) }
    for corner in [(edge, y), (edge, pole), (-edge, pole), (-edge, y)] {
      ring.append(Position(x: corner.0, y: corner.1))
    }
    return [ring] + rings.dropFirst()
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
