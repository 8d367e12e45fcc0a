import Foundation
import Testing

/// `geopipe geocode` and `geopipe search` against the shipped GeoNames cities15000.
@Suite("geocode and search commands")
struct GeocodeTests {
  /// GeoJSONSeq features without geometry whose properties are the given objects.
  static func features(_ properties: [String]) -> Data {
    Data(
      properties.map { "{\"type\":\"Feature\",\"properties\":\($0),\"geometry\":null}\n" }
        .joined().utf8)
  }

  static let input = features([
    #"{"city":"Springfield","state":"IL"}"#, #"{"city":"Zurich"}"#,
    #"{"city":"Nowhere","state":"XX"}"#,
  ])

  @Test func geocodesEachFeatureFromATemplate() throws {
    let gazetteer = try TestGazetteer.path.get()
    let run = try geopipe(
      ["geocode", "--query", "{city}, {state}", "--gazetteer", gazetteer, "-q"], stdin: Self.input)
    #expect(run.status == 0, "\(run)")
    let lines = try run.outLines.map(JSON.parse)
    try #require(lines.count == 3, "\(run)")
    let springfield = lines[0]
    #expect(
      springfield["geometry"]?.description
        == #"{"type":"Point","coordinates":[-89.64371,39.80172]}"#)
    #expect(
      springfield["properties"]?.keys == [
        "city", "state", "geocode_kind", "geocode_geonameid", "geocode_name",
        "geocode_admin1_code", "geocode_admin1_name", "geocode_country_code",
        "geocode_country_name", "geocode_population", "geocode_match", "geocode_confidence",
        "geocode_point_source", "geocode_polygon_country_code",
      ])
    #expect(springfield["properties"]?["geocode_polygon_country_code"] == .string("US"))
    #expect(springfield["properties"]?["geocode_geonameid"] == .integer("4250542"))
    #expect(springfield["properties"]?["geocode_admin1_name"] == .string("Illinois"))
    #expect(springfield["properties"]?["geocode_match"] == .string("exact"))
    #expect(springfield["properties"]?["geocode_confidence"]?.number == 1)
    #expect(springfield["properties"]?["geocode_point_source"] == .null)
    // A missing property renders empty: "Zurich, " is just "Zurich".
    #expect(lines[1]["properties"]?["geocode_name"] == .string("Zürich"))
    #expect(lines[1]["properties"]?["geocode_country_code"] == .string("CH"))
    // No match: the feature passes as it was, with match = none.
    #expect(
      lines[2].description
        == #"{"type":"Feature","properties":{"city":"Nowhere","state":"XX","geocode_match":"none"},"geometry":null}"#
    )
  }

  @Test func areasCarryTheirPointSourceUnderThePrefix() throws {
    let gazetteer = try TestGazetteer.path.get()
    let run = try geopipe(
      ["geocode", "--query", "{q}", "--prefix", "g.", "--gazetteer", gazetteer],
      stdin: Self.features([#"{"q":"Bavaria"}"#, #"{"q":"Japan"}"#]))
    #expect(run.status == 0, "\(run)")
    let lines = try run.outLines.map(JSON.parse)
    try #require(lines.count == 2)
    #expect(lines[0]["properties"]?["g.kind"] == .string("admin1"))
    #expect(lines[0]["properties"]?["g.geonameid"] == .null)
    #expect(lines[0]["properties"]?["g.point_source"] == .string("most populous place"))
    #expect(lines[1]["properties"]?["g.kind"] == .string("country"))
    #expect(lines[1]["properties"]?["g.point_source"] == .string("capital"))
  }

  @Test func onMissDropsOrFails() throws {
    let gazetteer = try TestGazetteer.path.get()
    let query = ["geocode", "--query", "{city}, {state}", "--gazetteer", gazetteer]
    let dropped = try geopipe(query + ["--on-miss", "drop"], stdin: Self.input)
    #expect(dropped.status == 0, "\(dropped)")
    #expect(dropped.outLines.count == 2)
    #expect(dropped.err.contains("geocode: 1 of 3 features had no match ('Nowhere, XX')"))
    let failed = try geopipe(query + ["--on-miss", "fail"], stdin: Self.input)
    #expect(failed.status == 65, "\(failed)")
    #expect(failed.err.contains("geocode: feature 2: no match for 'Nowhere, XX'"), "\(failed)")
    let unsure = try geopipe(
      ["geocode", "--query", "{city}", "--gazetteer", gazetteer, "--min-confidence", "0.5", "-q"],
      stdin: Self.features([#"{"city":"Springfield"}"#, #"{"city":"Paris"}"#]))
    #expect(unsure.status == 0, "\(unsure)")
    let lines = try unsure.outLines.map(JSON.parse)
    #expect(lines.first?["properties"]?["geocode_match"] == .string("none"))
    #expect(lines.last?["properties"]?["geocode_geonameid"] == .integer("2988507"))
  }

  @Test func biasesTowardAFocusOrRegion() throws {
    let gazetteer = try TestGazetteer.path.get()
    let input = Self.features([#"{"q":"Paris"}"#])
    let texas = try geopipe(
      ["geocode", "--query", "{q}", "--gazetteer", gazetteer, "--focus", "-95.55,33.66"],
      stdin: input)
    #expect(try JSON.parse(texas.out)["properties"]?["geocode_admin1_code"] == .string("TX"))
    let restricted = try geopipe(
      [
        "geocode", "--query", "{q}", "--gazetteer", gazetteer, "--region", "110,-45,155,-10",
        "--restrict", "-q",
      ], stdin: input)
    #expect(try JSON.parse(restricted.out)["properties"]?["geocode_match"] == .string("none"))
  }

  @Test func searchListsCandidatesBestFirst() throws {
    let gazetteer = try TestGazetteer.path.get()
    let run = try geopipe(["search", "Springfield", "--limit", "3", "--gazetteer", gazetteer])
    #expect(run.status == 0, "\(run)")
    let lines = try run.outLines.map(JSON.parse)
    #expect(lines.count == 3)
    #expect(lines.allSatisfy { $0["properties"]?["name"] == .string("Springfield") })
    #expect(lines.first?["properties"]?["admin1_code"] == .string("MO"))
    #expect(lines.first?["geometry"]?["type"] == .string("Point"))
    let nothing = try geopipe(["search", "asdfghjkl", "--gazetteer", gazetteer])
    #expect(nothing.status == 0, "\(nothing)")
    #expect(nothing.out.isEmpty)
  }

  @Test func aPipelineSearchesAndGeocodes() throws {
    let gazetteer = try TestGazetteer.path.get()
    try withTemporaryDirectory { directory in
      try write(
        "city,country\nKraków,Poland\nSao Paulo,Brazil\n",
        to: directory.appendingPathComponent("in.csv"))
      try write(
        """
        version: 1
        vars: {gazetteer: "\(gazetteer)"}
        stages:
          - search: {query: "Paris", limit: 2, gazetteer: "${gazetteer}"}
          - write: {path: paris.geojsonl}
          - read: {path: in.csv}
          - geocode: {query: "{city}, {country}", gazetteer: "${gazetteer}"}
          - write: {path: cities.geojsonl}

        """, to: directory.appendingPathComponent("p.yaml"))
      let run = try geopipe(["run", "p.yaml"], in: directory)
      #expect(run.status == 0, "\(run)")
      let paris = try lines(of: text(directory.appendingPathComponent("paris.geojsonl"))).map(
        JSON.parse)
      #expect(paris.first?["properties"]?["geonameid"] == .integer("2988507"))
      #expect(paris.count == 2)
      let cities = try lines(of: text(directory.appendingPathComponent("cities.geojsonl"))).map(
        JSON.parse)
      #expect(
        cities.map { $0["properties"]?["geocode_geonameid"] } == [
          .integer("3094802"), .integer("3448439"),
        ])
    }
  }

  @Test func aGazetteerWithoutTheTypoIndexFindsNoTypos() throws {
    let gazetteer = try TestGazetteer.path.get()
    let typo = try geopipe(["search", "Amsterdma", "--limit", "1", "--gazetteer", gazetteer])
    #expect(typo.status == 0, "\(typo)")
    #expect(try JSON.parse(typo.out)["properties"]?["geonameid"] == .integer("2759794"))
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("small.sqlite").path
      let build = try geopipe(["gazetteer", "build", "--default", "--no-typo-index", "-q", path])
      #expect(build.status == 0, "\(build)")
      let info = try geopipe(["gazetteer", "info", path])
      #expect(info.status == 0, "\(info)")
      #expect(info.out.contains("typo_index: none (built with --no-typo-index"), "\(info)")
      #expect(try geopipe(["gazetteer", "info", gazetteer]).out.contains("typo_index: trigrams"))
      let none = try geopipe(["search", "Amsterdma", "--gazetteer", path])
      #expect(none.status == 0, "\(none)")
      #expect(none.out.isEmpty, "\(none)")
      // Exact, prefix and token matches do not need it.
      let exact = try geopipe(["search", "Amsterdam", "--limit", "1", "--gazetteer", path])
      #expect(try JSON.parse(exact.out)["properties"]?["geonameid"] == .integer("2759794"))
      let token = try geopipe(["search", "Janeiro", "--limit", "1", "--gazetteer", path])
      #expect(try JSON.parse(token.out)["properties"]?["geonameid"] == .integer("3451190"))
    }
  }

  @Test func explainsAMissingDefaultGazetteer() throws {
    let run = try geopipe(
      ["search", "Paris"], environment: ["GEOPIPE_GAZETTEER": "/nonexistent/gazetteer.sqlite"])
    #expect(run.status == 66, "\(run)")
    #expect(run.err.contains("geopipe gazetteer build --default"), "\(run)")
  }

  @Test(arguments: [
    (["geocode", "--query", "{q}", "--restrict"], "--restrict needs --region"),
    (["geocode", "--query", "{q}", "--country", "ZZ"], "no such country code"),
    (["geocode", "--query", "{q}", "--country", "USA"], "ISO 3166-1 alpha-2"),
    (["geocode", "--query", "{q}", "--min-confidence", "2"], "from 0 to 1"),
    (["geocode", "--query", "{q"], "--query"),
    (["search", "Paris", "--limit", "0"], "1 or more"),
  ])
  func rejectsBadOptions(arguments: [String], message: String) throws {
    let gazetteer = try TestGazetteer.path.get()
    let run = try geopipe(arguments + ["--gazetteer", gazetteer], stdin: Data())
    #expect(run.status == 64, "\(run)")
    #expect(run.err.contains(message), "\(run)")
  }
}
