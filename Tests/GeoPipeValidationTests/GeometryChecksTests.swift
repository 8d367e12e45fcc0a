import GeoPipeCore
import Testing

@testable import GeoPipeValidation

@Suite struct GeometryChecksTests {
  private func codes(_ json: String) throws -> [String] {
    let g = try #require(try geometry(json))
    return GeometryChecks.issues(in: g).map(\.rule.code)
  }

  @Test func aCleanPolygonHasNoIssues() throws {
    #expect(
      try codes(#"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}"#)
        == [])
  }

  @Test func findsClockwiseExteriorsAndCounterClockwiseHoles() throws {
    #expect(
      try codes(#"{"type":"Polygon","coordinates":[[[0,0],[0,10],[10,10],[10,0],[0,0]]]}"#)
        == ["GP020"])
    let hole = #"[[2,2],[8,2],[8,8],[2,8],[2,2]]"#
    let issues = GeometryChecks.issues(
      in: try #require(
        try geometry(
          #"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],"# + hole + "]}"))
    )
    #expect(issues.map(\.rule.code) == ["GP020"])
    #expect(issues.first?.message.hasPrefix("a hole is counter-clockwise") == true)
  }

  @Test func findsRepeatedPositions() throws {
    let issues = GeometryChecks.issues(
      in: try #require(
        try geometry(#"{"type":"LineString","coordinates":[[0,0],[1,1],[1,1],[2,2],[2,2]]}"#)))
    #expect(issues.map(\.rule.code) == ["GP022"])
    #expect(issues[0].message == "2 positions repeat consecutively, first (1, 1)")
    #expect(issues[0].position == [1, 1])
  }

  @Test func findsUnsplitAntimeridianCrossings() throws {
    #expect(try codes(#"{"type":"LineString","coordinates":[[179,0],[-179,1]]}"#) == ["GP021"])
    #expect(try codes(#"{"type":"LineString","coordinates":[[179,0],[180,1]]}"#) == [])
    // Antarctica's ring runs along the antimeridian at the pole: already split.
    #expect(
      try codes(
        #"{"type":"Polygon","coordinates":[[[-180,-90],[180,-90],[180,-80],[-180,-80],[-180,-90]]]}"#
      ) == [])
    let g = try #require(try geometry(#"{"type":"LineString","coordinates":[[179,0],[-179,1]]}"#))
    #expect(GeometryChecks.issues(in: g, geographic: false).isEmpty)
  }

  @Test(arguments: [
    #"{"type":"LineString","coordinates":[]}"#, #"{"type":"Polygon","coordinates":[]}"#,
    #"{"type":"MultiPoint","coordinates":[]}"#, #"{"type":"MultiPolygon","coordinates":[]}"#,
    #"{"type":"GeometryCollection","geometries":[]}"#,
  ])
  func findsEmptyGeometries(json: String) throws {
    #expect(try codes(json) == ["GP023"])
  }
}

@Suite struct RepairTests {
  @Test func dropsRepeatedPositions() throws {
    let g = try #require(
      try geometry(
        #"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,0],[10,10],[0,10],[0,0],[0,0]]]}"#))
    #expect(
      GeometryRepair.droppingDuplicates(g)
        == .polygon([
          CoordinateArray([
            Position(x: 0, y: 0), Position(x: 10, y: 0), Position(x: 10, y: 10),
            Position(x: 0, y: 10), Position(x: 0, y: 0),
          ])
        ]))
  }

  @Test func splitsALineAtTheAntimeridian() throws {
    let g = try #require(try geometry(#"{"type":"LineString","coordinates":[[170,0],[-170,10]]}"#))
    #expect(
      Antimeridian.split(g)
        == .multiLineString([
          CoordinateArray([Position(x: 170, y: 0), Position(x: 180, y: 5)]),
          CoordinateArray([Position(x: -180, y: 5), Position(x: -170, y: 10)]),
        ]))
  }

  @Test func splitsAPolygonAtTheAntimeridian() throws {
    let g = try #require(
      try geometry(
        #"{"type":"Polygon","coordinates":[[[170,-10],[-170,-10],[-170,10],[170,10],[170,-10]]]}"#))
    guard case .multiPolygon(let parts) = Antimeridian.split(g) else {
      Issue.record("expected a MultiPolygon")
      return
    }
    #expect(parts.count == 2)
    var boxes: [BBox] = []
    for part in parts {
      let box = try #require(Geometry.polygon(part).bbox)
      boxes.append(box)
    }
    #expect(boxes.contains(BBox(west: 170, south: -10, east: 180, north: 10)))
    #expect(boxes.contains(BBox(west: -180, south: -10, east: -170, north: 10)))
    let split = Geometry.multiPolygon(parts)
    #expect(GeometryChecks.issues(in: split.rewound()).isEmpty)
  }

  @Test(arguments: [(80.0, 90.0), (-75.0, -90.0)])
  func closesARingAroundAPoleAlongThePole(latitude: Double, pole: Double) throws {
    // Eight points around the pole, every 45°, without a point on the antimeridian.
    var ring = CoordinateArray()
    for k in 0..<8 { ring.append(Position(x: -157.5 + 45 * Double(k), y: latitude)) }
    ring.append(ring[0])
    if pole < 0 { ring.reverse() }
    // One polygon from -180° to 180°, up (or down) to the pole.
    let split = Antimeridian.split(.polygon([ring]))
    guard case .polygon(let rings) = split else {
      Issue.record("expected one Polygon, got \(split)")
      return
    }
    #expect(rings.count == 1)
    #expect(
      split.bbox
        == BBox(west: -180, south: min(latitude, pole), east: 180, north: max(latitude, pole)))
    // Every position of the input is kept, and the cap is clean once wound.
    #expect(rings[0].count == 8 + 5)
    #expect(GeometryChecks.issues(in: split.rewound()).isEmpty)
  }

  @Test func leavesGeometriesThatDoNotCrossAlone() throws {
    let g = try #require(try geometry(#"{"type":"LineString","coordinates":[[10,0],[20,10]]}"#))
    #expect(Antimeridian.split(g) == g)
  }

  @Test(arguments: [
    ("places.geojson", "places.fixed.geojson"), ("a/b.csv.gz", "a/b.fixed.csv.gz"),
    ("dir.v2/data", "dir.v2/data.fixed"), ("x.geojsonl", "x.fixed.geojsonl"),
  ])
  func namesTheRepairedCopy(input: String, output: String) {
    #expect(Repair.fixedPath(for: input) == output)
  }
}
