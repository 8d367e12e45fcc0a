import Foundation
import Testing

/// Countries from polygons: `gazetteer build --boundaries/--admin1-boundaries`, and
/// reverse-geocode and geocode with a gazetteer that has them.
@Suite("country polygons")
struct CountryPolygonTests {
  /// A box as a GeoJSON polygon.
  static func box(_ west: Double, _ south: Double, _ east: Double, _ north: Double) -> String {
    #"{"type":"Polygon","coordinates":[[[\#(west),\#(south)],[\#(east),\#(south)],"#
      + #"[\#(east),\#(north)],[\#(west),\#(north)],[\#(west),\#(south)]]]}"#
  }

  static func feature(_ properties: String, _ geometry: String) -> String {
    #"{"type":"Feature","properties":{\#(properties)},"geometry":\#(geometry)}"#
  }

  /// Made-up countries around Oslo, in file order: "France" (its code in ISO_A2_EH, as in
  /// Natural Earth), "Kosovo" (WB_A2) sharing its east edge, "Sweden" by ADM0_A3, one
  /// without any code and a line, both left out.
  static let countries =
    [
      feature(#""NAME":"Fakeland","ISO_A2":"-99","ISO_A2_EH":"FR""#, box(10, 59.5, 11, 60.5)),
      feature(
        #""NAME":"Kosovoish","ISO_A2":"-99","ISO_A2_EH":"-99","WB_A2":"XK""#,
        box(11, 59.5, 12, 60.5)),
      feature(#""NAME":"Swedish","ISO_A2":"-99","ADM0_A3":"SWE""#, box(12, 59.5, 13, 60.5)),
      feature(#""NAME":"Nowhere","ISO_A2":"-99","ADM0_A3":"ZZZ""#, box(13, 59.5, 14, 60.5)),
      feature(
        #""NAME":"Line","ISO_A2":"NO""#,
        #"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#),
    ].joined(separator: "\n") + "\n"

  static let admin1 =
    feature(#""name":"Oslo area","iso_a2":"FR","gn_a1_code":"FR.12""#, box(10.5, 59.8, 10.9, 60))
    + "\n"

  /// A gazetteer of the shipped GeoNames files with the made-up polygons.
  static let gazetteer: Result<String, any Error> = Result {
    let folder = try makeTemporaryDirectory(prefix: "geopipe-countries")
    let countries = folder.appendingPathComponent("countries.geojsonl")
    let admin1 = folder.appendingPathComponent("admin1.geojson")
    try Data(Self.countries.utf8).write(to: countries)
    try Data(
      (#"{"type":"FeatureCollection","features":["# + Self.admin1 + "]}").utf8
    ).write(to: admin1)
    let data = CLI.root.appendingPathComponent("Data/geonames").path
    let path = folder.appendingPathComponent("g.sqlite").path
    let run = try geopipe([
      "gazetteer", "build", "--geonames", data + "/cities15000.txt.gz", "--admin1",
      data + "/admin1CodesASCII.txt.gz", "--countries", data + "/countryInfo.txt.gz",
      "--no-typo-index", "--boundaries", countries.path, "--admin1-boundaries", admin1.path,
      "-q", path,
    ])
    guard run.status == 0 else { throw TestGazetteer.GazetteerBuildFailure(run: run) }
    return path
  }

  static func points(_ points: [(Double, Double)]) -> Data {
    Data(
      points.map {
        #"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":["#
          + "\($0.0),\($0.1)]}}\n"
      }.joined().utf8)
  }

  func reverse(_ points: [(Double, Double)], gazetteer: String, _ extra: [String] = []) throws
    -> [JSON]
  {
    let run = try geopipe(
      ["reverse-geocode", "--gazetteer", gazetteer, "-q"] + extra, stdin: Self.points(points))
    #expect(run.status == 0, "\(run)")
    return try run.outLines.map { try JSON.parse($0)["properties"] ?? .null }
  }

  @Test func takesTheCountryFromThePolygonHoldingThePoint() throws {
    let gazetteer = try Self.gazetteer.get()
    let found = try reverse(
      [(10.75, 59.91), (10.2, 59.6), (12.5, 60), (13.5, 60), (5, 65)], gazetteer: gazetteer)
    try #require(found.count == 5)
    // Oslo lies in the made-up France and in its admin1 polygon FR.12.
    #expect(found[0]["geocode_name"] == .string("Oslo"))
    #expect(found[0]["geocode_country_code"] == .string("FR"))
    #expect(found[0]["geocode_country_name"] == .string("France"))
    #expect(found[0]["geocode_country_source"] == .string("polygon"))
    #expect(found[0]["geocode_admin1_code"] == .string("12"))
    #expect(found[0]["geocode_admin1_name"] == .string("Oslo area"))
    // In France but in no admin1 polygon: the nearest place's admin1 is Norway's, so none.
    #expect(found[1]["geocode_country_code"] == .string("FR"))
    #expect(found[1]["geocode_admin1_code"] == .null)
    #expect(found[1]["geocode_admin1_name"] == .null)
    // ADM0_A3 SWE is Sweden through countryInfo's alpha-3 codes.
    #expect(found[2]["geocode_country_code"] == .string("SE"))
    #expect(found[2]["geocode_country_name"] == .string("Sweden"))
    // A polygon without a code is left out: the nearest place's country answers.
    #expect(found[3]["geocode_country_source"] == .string("nearest"))
    #expect(found[3]["geocode_country_code"] != .string("ZZ"))
    // At sea: the nearest place's country.
    #expect(found[4]["geocode_country_source"] == .string("nearest"))
    #expect(found[4]["geocode_country_code"] == .string("NO"))
    #expect(
      found[0].keys == [
        "geocode_kind", "geocode_geonameid", "geocode_name", "geocode_admin1_code",
        "geocode_admin1_name", "geocode_country_code", "geocode_country_name",
        "geocode_country_source", "geocode_population", "geocode_match", "geocode_distance_m",
      ])
  }

  @Test func givesAPointOnASharedBorderToTheFirstPolygon() throws {
    let gazetteer = try Self.gazetteer.get()
    // x = 11 is France's east edge and Kosovo's west edge; x = 12 Kosovo's and Sweden's;
    // (11, 60.5) a corner of both.
    let found = try reverse([(11, 60), (12, 60.2), (11, 60.5), (10, 59.5)], gazetteer: gazetteer)
    #expect(
      found.map { $0["geocode_country_code"] }
        == [.string("FR"), .string("XK"), .string("FR"), .string("FR")])
    #expect(found.allSatisfy { $0["geocode_country_source"] == .string("polygon") })
  }

  @Test func keepsTheCountryOfAPointWithNoPlaceInReach() throws {
    let gazetteer = try Self.gazetteer.get()
    let found = try reverse(
      [(10.2, 59.6), (5, 65)], gazetteer: gazetteer,
      ["--max-distance", "1m", "--fields", "name,country_code,country_source"])
    #expect(
      found == [
        .object([
          .init(key: "geocode_match", value: .string("none")),
          .init(key: "geocode_country_code", value: .string("FR")),
          .init(key: "geocode_country_source", value: .string("polygon")),
        ]),
        .object([.init(key: "geocode_match", value: .string("none"))]),
      ])
  }

  @Test func aGazetteerWithoutPolygonsAnswersFromTheNearestPlace() throws {
    try withTemporaryDirectory { folder in
      let path = folder.appendingPathComponent("plain.sqlite").path
      let build = try geopipe(
        ["gazetteer", "build", "--default", "--no-boundaries", "--no-typo-index", "-q", path])
      try #require(build.status == 0, "\(build)")
      let found = try reverse([(10.75, 59.91)], gazetteer: path)
      #expect(found.first?["geocode_country_code"] == .string("NO"))
      #expect(found.first?["geocode_country_source"] == .string("nearest"))
      let info = try geopipe(["gazetteer", "info", path])
      #expect(!info.out.contains("country_areas"), "\(info)")
    }
  }

  @Test func gazetteerInfoCountsThePolygonsAndNamesThoseLeftOut() throws {
    let gazetteer = try Self.gazetteer.get()
    let info = try geopipe(["gazetteer", "info", gazetteer])
    #expect(info.status == 0, "\(info)")
    #expect(info.out.contains("country_areas: 3\n"), "\(info)")
    #expect(info.out.contains("admin1_areas: 1\n"), "\(info)")
    #expect(info.out.contains("areas_left_out: 2: countries.geojsonl: feature 3: 'Nowhere'"))
    #expect(info.out.contains("feature 4: a LineString, not a Polygon or MultiPolygon"))
    #expect(info.out.contains("countries.geojsonl, admin1.geojson"), "\(info)")
  }

  @Test func geocodeKeepsGeoNamesCountryAndNotesAnotherPolygon() throws {
    let gazetteer = try Self.gazetteer.get()
    let input = Data(#"{"type":"Feature","properties":{"city":"Oslo"},"geometry":null}"#.utf8)
    let run = try geopipe(
      ["geocode", "--query", "{city}", "--gazetteer", gazetteer], stdin: input + Data("\n".utf8))
    #expect(run.status == 0, "\(run)")
    let properties = try JSON.parse(run.outLines.first ?? "")["properties"]
    #expect(properties?["geocode_country_code"] == .string("NO"))
    #expect(properties?["geocode_polygon_country_code"] == .string("FR"))
    #expect(
      run.err.contains(
        "geocode: 1 result lies in another country's polygon than GeoNames gives "
          + "(Oslo NO in FR)"), "\(run)")
  }

  @Test func noBoundariesGoesWithDefault() throws {
    let run = try geopipe(["gazetteer", "build", "--geonames", "x.txt", "--no-boundaries", "g"])
    #expect(run.status == 64, "\(run)")
    #expect(run.err.contains("--no-boundaries goes with --default"), "\(run)")
  }
}
