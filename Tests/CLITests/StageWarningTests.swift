import Foundation
import Testing

/// Mistakes that must be reported, not swallowed: properties no feature has, a box given
/// latitude first, features dropped or rejected, and count options beyond their bounds.
@Suite("stage warnings and bounds")
struct StageWarningTests {
  static let places = CLI.fixtures("places/places.csv")

  /// GeoJSONSeq features with the given geometries and properties.
  static func features(_ items: [(geometry: String, properties: String)]) -> Data {
    Data(
      items.map {
        "{\"type\":\"Feature\",\"properties\":\($0.properties),\"geometry\":\($0.geometry)}\n"
      }
      .joined().utf8)
  }

  static func point(_ lon: Double, _ lat: Double) -> String {
    "{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]}"
  }

  static let towns = features([
    (Self.point(2.35, 48.85), #"{"name":"Paris","population":2148000,"kind":"city"}"#),
    (Self.point(4.83, 45.76), #"{"name":"Lyon","population":513000,"kind":"city"}"#),
    (Self.point(5.37, 43.3), #"{"name":"Marseille","population":861000,"kind":"town"}"#),
  ])

  // MARK: Properties no feature has

  @Test(arguments: [
    (["filter", "--where", "populaton > 5"], "filter"),
    (["sort", "--by", "populaton"], "sort"),
    (["select", "--set", "label={populaton}"], "select"),
    (["select", "--compute", "k=populaton / 1000"], "select"),
    (["style", "--marker-size", "steps(populaton, small, 1000000: large)"], "style"),
    (["cluster", "--zoom", "3", "--group-by", "populaton"], "cluster"),
    (["cluster", "--zoom", "3", "--count-by", "populaton"], "cluster"),
  ])
  func warnsOnceAboutAPropertyNoFeatureHas(arguments: [String], stage: String) throws {
    let run = try geopipe(arguments, stdin: Self.towns)
    #expect(run.status == 0, "\(run)")
    let warning =
      "warning: \(stage): no feature has a property 'populaton'; did you mean 'population'?"
    #expect(run.errLines.filter { $0 == warning }.count == 1, "\(run)")
  }

  @Test(arguments: [
    ["filter", "--where", "populaton > 5"], ["sort", "--by", "populaton"],
    ["select", "--keep", "name,populaton"], ["cluster", "--zoom", "3", "--group-by", "kindd"],
    ["style", "--marker-color", "match(kindd, city: #d33, else: #999)"],
  ])
  func strictMakesAMissingPropertyAnError(arguments: [String]) throws {
    let run = try geopipe(arguments + ["--strict"], stdin: Self.towns)
    #expect(run.status == 65, "\(run)")
    #expect(run.err.contains("error: "), "\(run)")
    #expect(run.err.contains("no feature has a property"), "\(run)")
    #expect(run.err.contains("did you mean"), "\(run)")
  }

  @Test func aPropertySomeFeatureHasIsNoMistake() throws {
    let input = Self.features([
      (Self.point(2.35, 48.85), #"{"name":"Paris"}"#),
      (Self.point(4.83, 45.76), #"{"name":"Lyon","capital":false}"#),
    ])
    for arguments in [
      ["filter", "--where", "capital = false", "--strict"],
      ["sort", "--by", "capital", "--strict"],
    ] {
      let run = try geopipe(arguments, stdin: input)
      #expect(run.status == 0, "\(run)")
      #expect(run.err.isEmpty, "\(run)")
    }
    // No features at all: nothing to say.
    let empty = try geopipe(["filter", "--where", "populaton > 5", "--strict"], stdin: Data())
    #expect(empty.status == 0, "\(empty)")
    #expect(empty.err.isEmpty, "\(empty)")
  }

  @Test func theWarningWorksInAPipelineAndStrictIsAFileOption() throws {
    try withTemporaryDirectory { dir in
      func pipeline(_ strict: String, sortOptions: String = "") throws -> Run {
        let text = """
          version: 1
          \(strict)
          stages:
            - read: {path: \(Self.places.path)}
            - sort: {by: populaton\(sortOptions)}
            - write: {path: out.geojson}
          """
        try Data(text.utf8).write(to: dir.appendingPathComponent("p.yaml"))
        return try geopipe(["run", "p.yaml"], in: dir)
      }
      let warned = try pipeline("")
      #expect(warned.status == 0, "\(warned)")
      #expect(
        warned.err.contains(
          "warning: sort: no feature has a property 'populaton'; did you mean 'population'?"),
        "\(warned)")
      try FileManager.default.removeItem(at: dir.appendingPathComponent("out.geojson"))
      for run in [try pipeline("strict: true"), try pipeline("", sortOptions: ", strict: true")] {
        #expect(run.status == 65, "\(run)")
        #expect(
          run.err.contains(
            "error: sort: no feature has a property 'populaton'; did you mean 'population'?"),
          "\(run)")
        #expect(try contents(of: dir) == ["p.yaml"], "no output is left behind")
      }
      let bad = try pipeline("strict: maybe")
      #expect(bad.status == 78, "\(bad)")
      #expect(
        bad.err.contains("p.yaml:2:9: error: 'strict' is true or false, not 'maybe'"), "\(bad)")
    }
  }

  // MARK: A box given latitude first

  @Test func filterWarnsAboutABoxWithSwappedAxes() throws {
    let swapped = try geopipe(["filter", "--bbox", "43,2,49,6"], stdin: Self.towns)
    #expect(swapped.status == 0, "\(swapped)")
    #expect(swapped.out.isEmpty)
    #expect(
      swapped.err.contains(
        "warning: filter: no feature is in the box 43,2,49,6; the box is W,S,E,N; did you mean "
          + "2,43,6,49? (3 features would be in it)"), "\(swapped)")
    let right = try geopipe(["filter", "--bbox", "2,43,6,49"], stdin: Self.towns)
    #expect(right.status == 0, "\(right)")
    #expect(right.outLines.count == 3)
    #expect(right.err.isEmpty, "\(right)")
    // Nothing in either box: no suggestion.
    let elsewhere = try geopipe(["filter", "--bbox", "-80,30,-70,40"], stdin: Self.towns)
    #expect(elsewhere.err.isEmpty, "\(elsewhere)")
  }

  @Test func clusterWarnsAboutABoxWithSwappedAxes() throws {
    let run = try geopipe(["cluster", "--zoom", "3", "--bbox", "43,2,49,6"], stdin: Self.towns)
    #expect(run.status == 0, "\(run)")
    #expect(run.out.isEmpty)
    #expect(
      run.err.contains(
        "cluster: no feature is in the box 43,2,49,6; the box is W,S,E,N; did you mean 2,43,6,49?"),
      "\(run)")
  }

  @Test func renderWarnsAboutABoxWithSwappedAxes() throws {
    try withTemporaryDirectory { dir in
      let run = try geopipe(
        ["render", "map.svg", "--fit-bounds", "43,2,49,6", "--size", "64x64"], stdin: Self.towns,
        in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(
        run.err.contains(
          "warning: render: no feature is in the box 43,2,49,6; the box is W,S,E,N; did you mean "
            + "2,43,6,49?"), "\(run)")
      let right = try geopipe(
        ["render", "map.svg", "--fit-bounds", "2,43,6,49", "--size", "64x64"], stdin: Self.towns,
        in: dir)
      #expect(right.status == 0, "\(right)")
      #expect(right.err.isEmpty, "\(right)")
    }
  }

  @Test func geocodeWarnsAboutAQueryPropertyNoFeatureHas() throws {
    let gazetteer = try TestGazetteer.path.get()
    let input = Self.features([("null", #"{"city":"Paris"}"#)])
    let query = ["geocode", "--query", "{cty}", "--gazetteer", gazetteer]
    let warned = try geopipe(query, stdin: input)
    #expect(warned.status == 0, "\(warned)")
    #expect(
      warned.err.contains(
        "warning: geocode: no feature has a property 'cty'; did you mean 'city'?"),
      "\(warned)")
    let strict = try geopipe(query + ["--strict"], stdin: input)
    #expect(strict.status == 65, "\(strict)")
    #expect(
      strict.err.contains("error: geocode: no feature has a property 'cty'; did you mean 'city'?"),
      "\(strict)")
  }

  // MARK: Dropped and rejected features

  @Test func reverseGeocodeCountsWhatItDrops() throws {
    let gazetteer = try TestGazetteer.path.get()
    let line = #"{"type":"LineString","coordinates":[[2.35,48.85],[2.4,48.9]]}"#
    let input = Self.features([
      (Self.point(2.35, 48.85), "{}"), (line, "{}"), (line, "{}"), ("null", "{}"),
      (Self.point(-30, -40), "{}"),
    ])
    let dropped = try geopipe(
      ["reverse-geocode", "--gazetteer", gazetteer, "--max-distance", "50km", "--on-miss", "drop"],
      stdin: input)
    #expect(dropped.status == 0, "\(dropped)")
    #expect(dropped.outLines.count == 1)
    #expect(
      dropped.err.contains("reverse-geocode: dropped 2 LineStrings: not a Point"), "\(dropped)")
    #expect(dropped.err.contains("reverse-geocode: dropped 1 feature: no geometry"), "\(dropped)")
    #expect(
      dropped.err.contains("reverse-geocode: dropped 1 Point: no place within 50000 m"),
      "\(dropped)")
    let kept = try geopipe(
      ["reverse-geocode", "--gazetteer", gazetteer, "--max-distance", "50km"], stdin: input)
    #expect(kept.outLines.count == 5)
    #expect(
      kept.err.contains(
        "reverse-geocode: 2 LineStrings kept with geocode_match = none: not a Point"),
      "\(kept)")
  }

  @Test func tilesAndRenderCountFeaturesWithoutGeometry() throws {
    let input = Self.features([
      ("null", "{}"), (Self.point(2.35, 48.85), "{}"), ("null", "{}"),
    ])
    try withTemporaryDirectory { dir in
      let tiles = try geopipe(["tiles", "t.pmtiles", "--max-zoom", "2"], stdin: input, in: dir)
      #expect(tiles.status == 0, "\(tiles)")
      #expect(tiles.errLines == ["note: tiles: left out 2 features without geometry"], "\(tiles)")
      let render = try geopipe(["render", "m.svg", "--size", "64x64"], stdin: input, in: dir)
      #expect(render.status == 0, "\(render)")
      #expect(
        render.errLines == ["note: render: left out 2 features without geometry"], "\(render)")
    }
  }

  @Test func confidenceRejectionsAreNotCalledNoMatch() throws {
    let gazetteer = try TestGazetteer.path.get()
    let input = Self.features([
      ("null", #"{"city":"Springfield"}"#), ("null", #"{"city":"Paris"}"#),
      ("null", #"{"city":"Nowhere at all"}"#),
    ])
    let query = [
      "geocode", "--query", "{city}", "--gazetteer", gazetteer, "--min-confidence", "0.5",
    ]
    let dropped = try geopipe(query + ["--on-miss", "drop"], stdin: input)
    #expect(dropped.status == 0, "\(dropped)")
    #expect(dropped.outLines.count == 1)
    #expect(
      dropped.err.contains(
        "geocode: 1 of 3 features had a best match below --min-confidence 0.5 ('Springfield': 0."),
      "\(dropped)")
    #expect(dropped.err.contains("dropped (--on-miss drop)"), "\(dropped)")
    #expect(dropped.err.contains("geocode: 1 of 3 features had no match ('Nowhere at all')"))
    let failed = try geopipe(query + ["--on-miss", "fail"], stdin: input)
    #expect(failed.status == 65, "\(failed)")
    #expect(
      failed.err.contains(
        "geocode: feature 0: the best match for 'Springfield' is Springfield with confidence 0."),
      "\(failed)")
    #expect(failed.err.contains("below --min-confidence 0.5"), "\(failed)")
    #expect(!failed.err.contains("no match"), "\(failed)")
  }

  // MARK: Bounds of count options

  @Test(arguments: [
    (
      ["circle", "--radius", "1km", "--segments", "9223372036854775807"],
      "4 or more and at most 65536"
    ),
    (["circle", "--radius", "1km", "--segments", "100000000"], "4 or more and at most 65536"),
    (["buffer", "--distance", "1km", "--segments", "536870912"], "1 or more and at most 1024"),
    (["buffer", "--distance", "1km", "--segments", "268435456"], "1 or more and at most 1024"),
    (["cluster", "--zoom", "1", "--node-size", "0"], "1 or more and at most 65536"),
    (["cluster", "--zoom", "1", "--min-points", "1000001"], "1 or more and at most 1000000"),
    (["cluster", "--zoom", "1", "--max-zoom", "31"], "0 or more and at most 30"),
    (["cluster", "--zoom", "1", "--radius", "1e9"], "above 0, at most 65536"),
    (["cluster", "--zoom", "1", "--extent", "0"], "above 0, at most 65536"),
    (["sort", "--by", "name", "--memory", "1048577"], "1 or more and at most 1048576"),
    (["search", "Paris", "--limit", "10001"], "1 or more and at most 10000"),
  ])
  func countsBeyondTheirBoundAreUsageErrors(arguments: [String], expected: String) throws {
    let run = try geopipe(arguments, stdin: Self.towns)
    #expect(run.status == 64, "\(run)")
    #expect(!run.signaled, "\(run)")
    #expect(run.err.contains(expected), "\(run)")
    #expect(run.err.contains("usage: see 'geopipe \(arguments[0]) --help'"), "\(run)")
  }

  @Test func countsAtTheirBoundWork() throws {
    let one = Self.features([(Self.point(2.35, 48.85), "{}")])
    let circle = try geopipe(["circle", "--radius", "1km", "--segments", "65536"], stdin: one)
    #expect(circle.status == 0, "\(circle)")
    let ring = try JSON.parse(try #require(circle.outLines.first))
    #expect(ring["geometry"]?["coordinates"]?.array?.first?.array?.count == 65_537)
    let buffer = try geopipe(["buffer", "--distance", "1km", "--segments", "1024"], stdin: one)
    #expect(buffer.status == 0, "\(buffer)")
    #expect(buffer.outLines.count == 1)
  }

  @Test(arguments: [
    ("circle", "Vertices on the circle, 4 to 65536."),
    ("buffer", "Segments per quarter circle, 1 to 1024."),
    ("cluster", "The kd-tree leaf size, 1 to 65536."),
    ("sort", "1 to 1048576 (1 TiB)"),
    ("search", "The most candidates to list, 1 to 10000."),
  ])
  func helpGivesTheBounds(command: String, text: String) throws {
    let run = try geopipe([command, "--help"])
    #expect(run.status == 0)
    #expect(run.out.contains(text), "\(run)")
  }
}
