import Foundation
import Testing

/// Commands run on the inputs in `Fixtures/cli/`, compared byte for byte with the expected
/// outputs stored beside them.
///
/// To regenerate the expected files on purpose, run the tests with
/// `GEOPIPE_UPDATE_GOLDENS=1`, then review the diff before committing it.
@Suite("Golden files", .serialized)
struct GoldenTests {
  struct Case: Sendable, CustomTestStringConvertible {
    /// The expected output, in `Fixtures/cli/`.
    var expected: String
    /// The arguments; `OUT` stands for an output file with the expected file's extension.
    var arguments: [String]
    /// A file in `Fixtures/cli/` given as standard input.
    var stdin: String?

    var testDescription: String { expected }
  }

  static let folder = CLI.fixtures("cli")

  static let cases: [Case] = [
    // places.csv: 32 places from GeoNames
    Case(expected: "places.read.geojsonl", arguments: ["read", "places.csv"]),
    Case(
      expected: "places.read-infer-types.geojsonl",
      arguments: ["read", "--infer-types", "places.csv"]),
    Case(expected: "places.convert.geojson", arguments: ["convert", "places.csv", "OUT"]),
    Case(
      expected: "places.convert-columns.csv",
      arguments: [
        "convert", "--columns", "name,country,population", "--ignore-extra-properties",
        "places.csv", "OUT",
      ]),
    Case(
      expected: "places.filter-where.geojsonl",
      arguments: ["filter", "--where", "population > 5000000 and country in ('CN', 'IN')"],
      stdin: "places.read.geojsonl"),
    Case(
      expected: "places.filter-bbox.geojsonl", arguments: ["filter", "--bbox", "-10,35,30,60"],
      stdin: "places.read.geojsonl"),
    Case(
      expected: "places.filter-bbox-antimeridian.geojsonl",
      arguments: ["filter", "--bbox", "170,-50,-170,0"],
      stdin: "places.read.geojsonl"),
    Case(expected: "places.info.txt", arguments: ["info", "places.csv"]),
    Case(expected: "places.info-json.json", arguments: ["info", "--json", "places.csv"]),
    // world.geojson: hand-made shapes of every geometry type, some across the antimeridian
    Case(expected: "world.read.geojsonl", arguments: ["read", "world.geojson"]),
    Case(expected: "world.convert.geojson", arguments: ["convert", "world.geojson", "OUT"]),
    Case(
      expected: "world.convert-wkt.csv",
      arguments: [
        "convert", "--geometry-format", "wkt", "--columns",
        "name,kind,population,marker-color,length_km",
        "world.geojson", "OUT",
      ]),
    Case(
      expected: "world.filter-bbox.geojsonl", arguments: ["filter", "--bbox=-10,35,30,60"],
      stdin: "world.read.geojsonl"),
    Case(
      expected: "world.filter-bbox-antimeridian.geojsonl",
      arguments: ["filter", "--bbox", "170,-30,-170,0"],
      stdin: "world.read.geojsonl"),
    Case(
      expected: "world.filter-geometry-type.geojsonl",
      arguments: ["filter", "--geometry-type", "Polygon,MultiPolygon"],
      stdin: "world.read.geojsonl"),
    Case(
      expected: "world.filter-geometry-type-null.geojsonl",
      arguments: ["filter", "--geometry-type", "null"],
      stdin: "world.read.geojsonl"),
    Case(
      expected: "world.filter-where.geojsonl",
      arguments: ["filter", "--where", #"kind = 'city' or "marker-color" is not null"#],
      stdin: "world.read.geojsonl"),
    Case(expected: "world.info.txt", arguments: ["info", "world.geojson"]),
    Case(expected: "world.info-json.json", arguments: ["info", "--json", "world.geojson"]),
  ]

  @Test("output matches the golden file", arguments: cases)
  func matchesGolden(_ golden: Case) throws {
    try withTemporaryDirectory { dir in
      let expectedURL = Self.folder.appendingPathComponent(golden.expected)
      let extensionName = golden.expected.split(separator: ".").last.map(String.init) ?? "out"
      let outURL = dir.appendingPathComponent("out.\(extensionName)")
      let writesFile = golden.arguments.contains("OUT")
      let arguments = golden.arguments.map { $0 == "OUT" ? outURL.path : $0 }
      let stdin = try golden.stdin.map {
        try Data(contentsOf: Self.folder.appendingPathComponent($0))
      }
      let run = try geopipe(arguments, stdin: stdin, in: Self.folder)
      #expect(run.status == 0, "\(run)")
      #expect(run.err.isEmpty, "stderr: \(run.err)")
      let actual = writesFile ? bytes(outURL) : run.stdout
      if writesFile { #expect(run.stdout.isEmpty, "stdout: \(run.out)") }

      if ProcessInfo.processInfo.environment["GEOPIPE_UPDATE_GOLDENS"] == "1" {
        try actual.write(to: expectedURL)
        return
      }
      let expected = try Data(contentsOf: expectedURL)
      if actual != expected {
        let want = lines(of: String(decoding: expected, as: UTF8.self))
        let got = lines(of: String(decoding: actual, as: UTF8.self))
        let firstDifference =
          zip(want, got).enumerated().first { $0.element.0 != $0.element.1 }?.offset
          ?? min(want.count, got.count)
        Issue.record(
          """
          \(golden.expected) differs from the output of geopipe \(golden.arguments.joined(separator: " ")) \
          at line \(firstDifference + 1):
          expected: \(firstDifference < want.count ? want[firstDifference] : "<end>")
          actual:   \(firstDifference < got.count ? got[firstDifference] : "<end>")
          """)
      }
    }
  }

  @Test func everyGoldenFileHasACase() throws {
    let inputs: Set<String> = ["places.csv", "world.geojson", "README.md"]
    let listed = Set(Self.cases.map(\.expected))
    for name in try contents(of: Self.folder) where !inputs.contains(name) {
      #expect(listed.contains(name), "\(name) is in Fixtures/cli/ but no test produces it")
    }
  }

  // The goldens were checked by hand; these say what they must contain, so that a golden
  // regenerated by mistake from wrong output fails here too.

  private func names(in file: String) throws -> [String] {
    try JSON.parseSequence(Data(contentsOf: Self.folder.appendingPathComponent(file)))
      .compactMap { $0["properties"]?["name"]?.string }
  }

  @Test func whereKeepsTheBigIndianAndChineseCities() throws {
    #expect(
      try names(in: "places.filter-where.geojsonl") == ["Delhi", "Mumbai", "Shanghai", "Beijing"])
  }

  @Test func bboxKeepsPlacesInsideItsEdges() throws {
    #expect(
      try names(in: "places.filter-bbox.geojsonl") == [
        "Warsaw", "Belgrade", "Lisbon", "Palermo", "Tétouan", "Tangier", "London", "Stockholm",
        "Paris",
        "Wrocław", "Oslo", "Turin",
      ])
  }

  @Test func bboxAcrossTheAntimeridianKeepsBothSides() throws {
    #expect(
      try names(in: "places.filter-bbox-antimeridian.geojsonl") == ["Christchurch", "Auckland"])
    #expect(
      try names(in: "world.filter-bbox-antimeridian.geojsonl") == [
        "Suva", "Apia", "Fiji (rough outline)",
      ])
  }

  @Test func bboxKeepsLinesCrossingItAndPolygonsAroundIt() throws {
    #expect(
      try names(in: "world.filter-bbox.geojsonl") == [
        "Rhine (simplified)", "Europe frame", "Ferries", "Paris and the Seine", "Strip along 40N",
      ])
  }

  @Test func geometryTypeFilterKeepsOnlyThoseTypes() throws {
    #expect(
      try names(in: "world.filter-geometry-type.geojsonl") == [
        "Fiji (rough outline)", "Europe frame", "Iceland (box)", "Strip along 40N",
      ])
    #expect(try names(in: "world.filter-geometry-type-null.geojsonl") == ["Nowhere"])
  }

  @Test func whereWithOrAndIsNotNull() throws {
    #expect(try names(in: "world.filter-where.geojsonl") == ["Suva", "Apia", "Ferries"])
  }
}
