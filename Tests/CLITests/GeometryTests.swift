import Foundation
import Testing

/// simplify, reproject, circle and buffer through the binary, checked against the system GEOS
/// and PROJ (expected values written by Scripts/simplify-oracle.py and
/// Scripts/reproject-oracle.py with Debian's python3-shapely and python3-pyproj).
@Suite("Geometry stages")
struct GeometryTests {
  static let folder = CLI.fixtures("geometry")

  struct SimplifyCase: Sendable, CustomTestStringConvertible {
    var file: String
    var method: String
    var tolerance: String
    /// GEOS's vertex count for every feature; 0 where GEOS returns an empty geometry.
    var counts: [Int]

    var testDescription: String { "\(file) --method \(method) --tolerance \(tolerance)" }
  }

  static let simplifyCases: [SimplifyCase] = {
    let table = text(folder.appendingPathComponent("simplify-counts.tsv"))
    return table.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
      let fields = line.split(separator: "\t").map(String.init)
      return SimplifyCase(
        file: fields[0], method: fields[1], tolerance: fields[2],
        counts: fields[3].split(separator: ",").compactMap { Int($0) })
    }
  }()

  /// Positions in a GeoJSON geometry.
  static func vertexCount(_ geometry: JSON?) -> Int {
    guard let geometry else { return 0 }
    func count(_ value: JSON) -> Int {
      guard let items = value.array else { return 0 }
      if items.first?.number != nil { return 1 }
      return items.reduce(0) { $0 + count($1) }
    }
    if let members = geometry["geometries"]?.array {
      return members.reduce(0) { $0 + vertexCount($1) }
    }
    return geometry["coordinates"].map(count) ?? 0
  }

  @Test("simplify gives GEOS's own vertex counts", arguments: simplifyCases)
  func simplifyMatchesGEOS(_ oracle: SimplifyCase) throws {
    let input = Self.folder.appendingPathComponent(oracle.file)
    let run = try geopipe(
      ["simplify", "--tolerance", oracle.tolerance, "--method", oracle.method], stdinFile: input)
    #expect(run.status == 0, "\(run)")
    let got = try JSON.parseSequence(run.stdout).map { Self.vertexCount($0["geometry"]) }
    #expect(got == oracle.counts.filter { $0 > 0 })
    // The same through a pipe from `read`: rings reach GEOS as written in the file (several
    // fixtures have clockwise exteriors, and the topology-preserving result depends on it).
    let read = try geopipe(["read", input.path])
    let piped = try geopipe(
      ["simplify", "--tolerance", oracle.tolerance, "--method", oracle.method], stdin: read.stdout)
    #expect(piped.stdout == run.stdout, "read | simplify differs from simplify < file")
    let collapsed = oracle.counts.filter { $0 == 0 }.count
    if collapsed > 0 {
      #expect(
        run.err.contains(
          "simplify: dropped \(collapsed) feature\(collapsed == 1 ? "" : "s") "
            + "that collapsed to empty"), "\(run.err)")
    } else {
      #expect(run.err.isEmpty, "\(run.err)")
    }
  }

  @Test func emptyGeometriesPassThroughSimplify() throws {
    let line = """
      {"type":"Feature","properties":{"a":3},"geometry":{"type":"MultiPolygon","coordinates":[]}}

      """
    for method in ["dp", "topology"] {
      let run = try geopipe(
        ["simplify", "--tolerance", "1", "--method", method], stdin: Data(line.utf8))
      #expect(run.status == 0, "\(run)")
      #expect(run.out == line, "\(method)")
      #expect(run.err.isEmpty, "\(run.err)")
    }
  }

  @Test func keepCollapsedKeepsTheOriginalFeature() throws {
    let input = Self.folder.appendingPathComponent("us_states_500k_sample.geojson.gz")
    let original = try geopipe(["read", input.path])
    let run = try geopipe(
      ["simplify", "--tolerance", "1", "--method", "dp", "--keep-collapsed"],
      stdinFile: input)
    #expect(run.status == 0, "\(run)")
    #expect(run.err.isEmpty)
    let before = try JSON.parseSequence(original.stdout)
    let after = try JSON.parseSequence(run.stdout)
    #expect(after.count == before.count)
    // Vermont survives a one-degree tolerance; the small states are kept as they were.
    let unchanged = zip(before, after).filter { $0 == $1 }.count
    #expect(unchanged == 5)
  }

  @Test func runsTheSameOnOneThreadAndOnTwo() throws {
    let input = Self.folder.appendingPathComponent("wdbii_rivers_sample.geojson.gz")
    let words = ["simplify", "--tolerance", "500m"]
    let one = try geopipe(
      words, stdin: try Data(contentsOf: input), environment: ["GEOPIPE_THREADS": "1"])
    let two = try geopipe(
      words, stdin: try Data(contentsOf: input), environment: ["GEOPIPE_THREADS": "2"])
    #expect(one.status == 0 && two.status == 0, "\(one)\n\(two)")
    #expect(one.stdout == two.stdout)
    #expect(one.outLines.count == 2148)
  }

  @Test func toleranceInMetresAndPixelsKeepsInputVertices() throws {
    let input = Self.folder.appendingPathComponent("us_states_500k_sample.geojson.gz")
    let original = try JSON.parseSequence(try geopipe(["read", input.path]).stdout)
    var known = Set<String>()
    for feature in original { collectPositions(feature["geometry"], into: &known) }
    for words in [["--tolerance", "2km"], ["--tolerance", "1px", "--zoom", "8"]] {
      let run = try geopipe(["simplify"] + words, stdinFile: input)
      #expect(run.status == 0, "\(run)")
      let simplified = try JSON.parseSequence(run.stdout)
      #expect(simplified.count == 6)
      var kept = Set<String>()
      for feature in simplified { collectPositions(feature["geometry"], into: &kept) }
      #expect(kept.isSubset(of: known), "\(words): a simplified vertex moved")
      let total = simplified.reduce(0) { $0 + Self.vertexCount($1["geometry"]) }
      #expect(total > 100 && total < 5000, "\(words): \(total) vertices")
    }
  }

  private func collectPositions(_ value: JSON?, into set: inout Set<String>) {
    guard let items = value?["coordinates"]?.array ?? value?.array else { return }
    if items.first?.number != nil {
      set.insert(items.map { "\($0.number ?? .nan)" }.joined(separator: ","))
      return
    }
    for item in items { collectPositions(item, into: &set) }
  }

  @Test func minAreaDropsSmallIslands() throws {
    let input = Self.folder.appendingPathComponent("us_states_500k_sample.geojson.gz")
    let all = try geopipe(["simplify", "--tolerance", "0.001"], stdinFile: input)
    let big = try geopipe(
      ["simplify", "--tolerance", "0.001", "--min-area", "100km2"], stdinFile: input)
    #expect(big.status == 0, "\(big)")
    let before = try JSON.parseSequence(all.stdout).map { Self.vertexCount($0["geometry"]) }
    let after = try JSON.parseSequence(big.stdout).map { Self.vertexCount($0["geometry"]) }
    // DC (177 km²) stays; the rest lose only their small islands.
    #expect(after.count == 6)
    #expect(zip(before, after).allSatisfy { $0 >= $1 })
    #expect(zip(before, after).contains { $0 > $1 })
  }

  @Test func rejectsPixelsWithoutAZoomAndBadTolerances() throws {
    let pixels = try geopipe(["simplify", "--tolerance", "1px"], stdin: Data())
    #expect(pixels.status == 64)
    #expect(pixels.err.contains("--zoom"), "\(pixels.err)")
    let bad = try geopipe(["simplify", "--tolerance", "far"], stdin: Data())
    #expect(bad.status == 64)
    #expect(bad.err.contains("--tolerance"), "\(bad.err)")
  }

  @Test func reprojectMatchesPROJ() throws {
    let points = Self.folder.appendingPathComponent("reproject-points.geojsonl")
    var expected: [String: [(Double, Double)]] = [:]
    var order: [String] = []
    for line in text(Self.folder.appendingPathComponent("reproject-expected.tsv"))
      .split(separator: "\n") where !line.hasPrefix("#")
    {
      let fields = line.split(separator: "\t").map(String.init)
      if expected[fields[0]] == nil { order.append(fields[0]) }
      expected[fields[0], default: []].append(
        (Double(fields[2]) ?? .nan, Double(fields[3]) ?? .nan))
    }
    #expect(order.count == 5)
    for crs in order {
      let run = try geopipe(["reproject", "--to", crs], stdinFile: points)
      #expect(run.status == 0, "\(crs): \(run)")
      let got = try JSON.parseSequence(run.stdout).compactMap {
        $0["geometry"]?["coordinates"]?.array
      }
      let want = expected[crs] ?? []
      #expect(got.count == want.count)
      for (position, target) in zip(got, want) {
        let dx = abs((position[0].number ?? .nan) - target.0)
        let dy = abs((position[1].number ?? .nan) - target.1)
        #expect(dx <= 1e-6 && dy <= 1e-6, "\(crs.prefix(30)): \(position) vs \(target)")
      }
    }
  }

  @Test func reprojectsBackWithFrom() throws {
    let points = Self.folder.appendingPathComponent("reproject-points.geojsonl")
    try withTemporaryDirectory { directory in
      let run = try shell(
        "$GEOPIPE reproject --to EPSG:8857 < '\(points.path)' "
          + "| $GEOPIPE reproject --from EPSG:8857 --to EPSG:4326", in: directory)
      #expect(run.status == 0, "\(run)")
      let back = try JSON.parseSequence(run.stdout)
      let original = try JSON.parseSequence(Data(contentsOf: points))
      #expect(back.count == original.count)
      for (a, b) in zip(back, original) {
        let p = a["geometry"]?["coordinates"]?.array?.compactMap(\.number) ?? []
        let q = b["geometry"]?["coordinates"]?.array?.compactMap(\.number) ?? []
        #expect(abs(p[0] - q[0]) < 1e-7 && abs(p[1] - q[1]) < 1e-7, "\(p) vs \(q)")
      }
    }
  }

  @Test func reprojectNamesTheFeatureThatCannotBeTransformed() throws {
    let points = """
      {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[10,10]}}
      {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[170,10]}}

      """
    let run = try geopipe(
      ["reproject", "--to", "+proj=ortho +lat_0=0 +lon_0=0 +datum=WGS84"], stdin: Data(points.utf8))
    #expect(run.status == 65, "\(run)")
    #expect(run.err.contains("feature 1: a position cannot be transformed"), "\(run.err)")
    let unknown = try geopipe(["reproject", "--to", "EPSG:999999"], stdin: Data(points.utf8))
    #expect(unknown.status == 64, "\(unknown)")
    #expect(unknown.err.contains("EPSG:999999"), "\(unknown.err)")
  }

  @Test func writingReprojectedGeoJSONNeedsAllowNonWGS84() throws {
    let points = Self.folder.appendingPathComponent("reproject-points.geojsonl")
    try withTemporaryDirectory { directory in
      let refused = try shell(
        "$GEOPIPE reproject --to EPSG:3857 < '\(points.path)' "
          + "| $GEOPIPE write --crs EPSG:3857 out.geojson", in: directory)
      #expect(refused.status == 64, "\(refused)")
      #expect(refused.err.contains("--allow-non-wgs84"), "\(refused.err)")
      #expect(try contents(of: directory).isEmpty)
      let allowed = try shell(
        "$GEOPIPE reproject --to EPSG:3857 < '\(points.path)' "
          + "| $GEOPIPE write --crs EPSG:3857 --allow-non-wgs84 out.geojson "
          + "&& $GEOPIPE reproject --to EPSG:3857 < '\(points.path)' "
          + "| $GEOPIPE write --crs EPSG:3857 out.csv", in: directory)
      #expect(allowed.status == 0, "\(allowed)")
      let collection = try JSON.parse(text(directory.appendingPathComponent("out.geojson")))
      let first = collection["features"]?.array?.first?["geometry"]?["coordinates"]?.array
      #expect(first?.first?.number == 20037508.342789244)
      let csv = text(directory.appendingPathComponent("out.csv"))
      #expect(csv.contains("20037508.342789244"), "\(csv.prefix(300))")
    }
  }

  @Test func circleGoldenOutput() throws {
    let input = Self.folder.appendingPathComponent("circle-centres.geojsonl")
    let expectedURL = Self.folder.appendingPathComponent("circle-centres.circles.geojsonl")
    let run = try geopipe(["circle", "--radius", "50km", "--segments", "16"], stdinFile: input)
    #expect(run.status == 0, "\(run)")
    if ProcessInfo.processInfo.environment["GEOPIPE_UPDATE_GOLDENS"] == "1" {
      try run.stdout.write(to: expectedURL)
      return
    }
    #expect(run.out == text(expectedURL))
  }

  @Test func circleErrors() throws {
    let line = """
      {"type":"Feature","properties":{"r":"far"},"geometry":{"type":"Point","coordinates":[0,0]}}

      """
    let notPoint = try geopipe(
      ["circle", "--radius", "1km"],
      stdin: Data(
        #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}"#
          .utf8))
    #expect(notPoint.status == 65)
    #expect(notPoint.err.contains("feature 0: circle needs a Point, not LineString"))
    let badProperty = try geopipe(["circle", "--radius-property", "r"], stdin: Data(line.utf8))
    #expect(badProperty.status == 65)
    #expect(badProperty.err.contains("property 'r' is not a positive radius"), "\(badProperty.err)")
    let both = try geopipe(["circle"], stdin: Data(line.utf8))
    #expect(both.status == 64)
  }

  @Test func bufferRunsInMetres() throws {
    let line = """
      {"type":"Feature","properties":{"n":1},"geometry":{"type":"LineString","coordinates":[[2.35,48.85],[2.36,48.86]]}}

      """
    let run = try geopipe(["buffer", "--distance", "100m"], stdin: Data(line.utf8))
    #expect(run.status == 0, "\(run)")
    let feature = try #require(try JSON.parseSequence(run.stdout).first)
    #expect(feature["geometry"]?["type"]?.string == "Polygon")
    #expect(feature["properties"]?["n"]?.number == 1)
    let ring = feature["geometry"]?["coordinates"]?.array?.first?.array ?? []
    let lats = ring.compactMap { $0.array?[1].number }
    // 100 m is about 0.0009° of latitude.
    #expect(abs((lats.max() ?? 0) - 48.86 - 0.0009) < 0.0001)
    let shrunk = try geopipe(["buffer", "--distance", "-1km"], stdin: Data(line.utf8))
    #expect(shrunk.status == 0)
    #expect(shrunk.out.isEmpty)
    #expect(
      shrunk.err.contains("buffer: dropped 1 feature that shrank to nothing"), "\(shrunk.err)")
  }

  @Test func bufferIsCutAtTheAntimeridian() throws {
    let line = """
      {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[179.95,-17]}}

      """
    let run = try geopipe(
      ["buffer", "--distance", "20km", "--segments", "4"], stdin: Data(line.utf8))
    #expect(run.status == 0, "\(run)")
    let geometry = try #require(try JSON.parseSequence(run.stdout).first?["geometry"])
    #expect(geometry["type"]?.string == "MultiPolygon")
    let polygons = geometry["coordinates"]?.array ?? []
    #expect(polygons.count == 2)
    for polygon in polygons {
      let ring = polygon.array?.first?.array ?? []
      let lons = ring.compactMap { $0.array?[0].number }
      // Each part stays on its side: no segment jumps across the map.
      #expect((lons.max() ?? 0) - (lons.min() ?? 0) < 1, "\(lons)")
      #expect(lons.contains(180) || lons.contains(-180), "\(lons)")
    }
  }
  @Test func simplifyRunsInAPipelineFile() throws {
    let oracle = try #require(
      Self.simplifyCases.first {
        $0.file == "ne_110m_countries.geojson.gz" && $0.method == "topology"
          && $0.tolerance == "0.1"
      })
    try withTemporaryDirectory { directory in
      let input = Self.folder.appendingPathComponent(oracle.file).path
      let pipeline = """
        version: 1
        stages:
          - {id: countries, read: {path: "\(input)"}}
          - simplify: {tolerance: 0.1, method: topology}
          - write: {path: out.geojsonl}
          - input: countries
            filter: {where: "name = 'France'"}
          - buffer: {distance: 10km}
          - write: {path: france.geojsonl}

        """
      try Data(pipeline.utf8).write(to: directory.appendingPathComponent("p.yaml"))
      let run = try geopipe(["run", "p.yaml"], in: directory)
      #expect(run.status == 0, "\(run)")
      let out = try JSON.parseSequence(
        Data(contentsOf: directory.appendingPathComponent("out.geojsonl")))
      #expect(out.map { Self.vertexCount($0["geometry"]) } == oracle.counts)
      let france = try JSON.parseSequence(
        Data(contentsOf: directory.appendingPathComponent("france.geojsonl")))
      #expect(france.count == 1)
    }
  }
  @Test func aPipelinePassesTheReprojectedCRSOnToWrite() throws {
    let points = Self.folder.appendingPathComponent("reproject-points.geojsonl").path
    try withTemporaryDirectory { directory in
      func pipeline(_ write: String) throws -> Run {
        let text = """
          version: 1
          stages:
            - read: {path: "\(points)"}
            - reproject: {to: "EPSG:3857"}
            - write: \(write)

          """
        try Data(text.utf8).write(to: directory.appendingPathComponent("p.yaml"))
        return try geopipe(["run", "p.yaml"], in: directory)
      }
      // The check sees the refusal before anything runs: a pipeline error at the write stage.
      let refused = try pipeline("{path: out.geojson}")
      #expect(refused.status == 78, "\(refused)")
      #expect(refused.err.hasPrefix("p.yaml:5:5: error: 'write'"), "\(refused.err)")
      #expect(refused.err.contains("set allow-non-wgs84"), "\(refused.err)")
      #expect(try contents(of: directory) == ["p.yaml"])
      let csv = try pipeline("{path: out.csv}")
      #expect(csv.status == 0, "\(csv)")
      #expect(text(directory.appendingPathComponent("out.csv")).contains("20037508.342789244"))
      let allowed = try pipeline("{path: out.geojson, allow-non-wgs84: true}")
      #expect(allowed.status == 0, "\(allowed)")
    }
  }
}
