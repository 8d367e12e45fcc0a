import GeoPipeCore

/// The checks that need no GEOS: empty geometries, duplicate consecutive positions, RFC 7946
/// winding and antimeridian crossings.
public enum GeometryChecks {
  /// The problems in `geometry`, at most one per rule.
  ///
  /// `geographic` is false when coordinates are not WGS84 degrees (`--crs`): then the
  /// antimeridian check is off.
  public static func issues(in geometry: Geometry, geographic: Bool = true) -> [GeometryIssue] {
    var issues: [GeometryIssue] = []
    if isEmpty(geometry) {
      issues.append(GeometryIssue(.emptyGeometry, "empty \(geometry.typeName)"))
      return issues
    }
    if let issue = duplicatePositions(in: geometry) { issues.append(issue) }
    if let issue = winding(of: geometry) { issues.append(issue) }
    if geographic, let issue = antimeridianCrossing(in: geometry) { issues.append(issue) }
    return issues
  }

  /// Whether the geometry has no positions at all.
  public static func isEmpty(_ geometry: Geometry) -> Bool {
    switch geometry {
    case .point: false
    case .multiPoint(let c), .lineString(let c): c.isEmpty
    case .multiLineString(let lines), .polygon(let lines): lines.allSatisfy(\.isEmpty)
    case .multiPolygon(let polygons): polygons.allSatisfy { $0.allSatisfy(\.isEmpty) }
    case .geometryCollection(let members): members.allSatisfy(isEmpty)
    }
  }

  /// The lines and rings of a geometry, with whether each is a ring.
  static func paths(of geometry: Geometry, _ body: (CoordinateArray, Bool) -> Void) {
    switch geometry {
    case .point, .multiPoint: break
    case .lineString(let c): body(c, false)
    case .multiLineString(let lines): for line in lines { body(line, false) }
    case .polygon(let rings): for ring in rings { body(ring, true) }
    case .multiPolygon(let polygons):
      for rings in polygons { for ring in rings { body(ring, true) } }
    case .geometryCollection(let members): for member in members { paths(of: member, body) }
    }
  }

  private static func duplicatePositions(in geometry: Geometry) -> GeometryIssue? {
    var count = 0
    var first: Position?
    paths(of: geometry) { path, _ in
      guard path.count > 1 else { return }
      var previous = path[0]
      for k in 1..<path.count {
        let p = path[k]
        if p.x == previous.x && p.y == previous.y {
          count += 1
          if first == nil { first = p }
        }
        previous = p
      }
    }
    guard count > 0, let first else { return nil }
    let what = count == 1 ? "a position repeats" : "\(count) positions repeat"
    return GeometryIssue(
      .duplicatePoints, "\(what) consecutively, first \(describe(first.x, first.y))",
      position: [first.x, first.y])
  }

  private static func winding(of geometry: Geometry) -> GeometryIssue? {
    var exteriors = 0
    var holes = 0
    func check(_ rings: [CoordinateArray]) {
      for (k, ring) in rings.enumerated() {
        let area = ring.signedDoubleArea
        if k == 0 && area < 0 { exteriors += 1 }
        if k > 0 && area > 0 { holes += 1 }
      }
    }
    switch geometry {
    case .polygon(let rings): check(rings)
    case .multiPolygon(let polygons): for rings in polygons { check(rings) }
    case .geometryCollection(let members):
      for member in members {
        if let issue = winding(of: member) { return issue }
      }
    default: break
    }
    guard exteriors + holes > 0 else { return nil }
    var parts: [String] = []
    if exteriors > 0 {
      parts.append(
        exteriors == 1
          ? "an exterior ring is clockwise" : "\(exteriors) exterior rings are clockwise")
    }
    if holes > 0 {
      parts.append(
        holes == 1 ? "a hole is counter-clockwise" : "\(holes) holes are counter-clockwise")
    }
    return GeometryIssue(
      .winding,
      parts.joined(separator: " and ")
        + " (RFC 7946 §3.1.6: exteriors counter-clockwise, holes clockwise; --fix rewinds)")
  }

  private static func antimeridianCrossing(in geometry: Geometry) -> GeometryIssue? {
    var found: (Position, Position)?
    paths(of: geometry) { path, _ in
      guard found == nil, path.count > 1 else { return }
      for k in 1..<path.count where Antimeridian.isCrossing(path[k - 1], path[k]) {
        found = (path[k - 1], path[k])
        return
      }
    }
    guard let (a, b) = found else { return nil }
    return GeometryIssue(
      .antimeridian,
      "a segment from \(describe(a.x, a.y)) to \(describe(b.x, b.y)) crosses the antimeridian "
        + "without being split (RFC 7946 §3.1.9; --fix splits it)", position: [a.x, a.y])
  }
}
