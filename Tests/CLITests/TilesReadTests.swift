import Foundation
import Testing

/// `geopipe tiles info|decode|join` run as a binary, on tilesets geopipe writes from
/// Fixtures/tiles/points.geojson (whose tiles Fixtures/tiles/points-expected.json lists, from
/// mercantile) and on one tippecanoe 2.72 wrote.
@Suite struct TilesReadTests {
  static let points = CLI.fixtures("tiles/points.geojson")
  static let countries = CLI.fixtures("tiles/tippecanoe-countries.pmtiles")

  /// The expected tiles' keys and their point counts.
  static func expectedTiles() throws -> [String: Int] {
    let expected = try JSON.parse(text(CLI.fixtures("tiles/points-expected.json")))
    guard case .object(let tiles)? = expected["tiles"] else { return [:] }
    return Dictionary(uniqueKeysWithValues: tiles.map { ($0.key, $0.value.array?.count ?? 0) })
  }

  /// Writes points.mbtiles and points.pmtiles (zooms 0 to 6) into `folder`.
  static func writeTilesets(in folder: URL) throws {
    for name in ["points.mbtiles", "points.pmtiles"] {
      let run = try geopipe(
        ["tiles", name, "--max-zoom", "6", "--layer", "points", "--quiet"], stdinFile: points,
        in: folder)
      #expect(run.status == 0, "\(run)")
    }
  }

  @Test func infoCountsTilesAndFeaturesPerZoom() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.writeTilesets(in: folder)
    let expected = try Self.expectedTiles()
    for name in ["points.mbtiles", "points.pmtiles"] {
      let run = try geopipe(["tiles", "info", "--json", name], in: folder)
      #expect(run.status == 0, "\(run)")
      let info = try JSON.parse(run.out)
      #expect(info["format"]?.string == (name.hasSuffix("mbtiles") ? "MBTiles" : "PMTiles"))
      for zoom in info["zooms"]?.array ?? [] {
        let z = Int(zoom["zoom"]?.number ?? -1)
        let keys = expected.keys.filter { $0.hasPrefix("\(z)/") }
        #expect(Int(zoom["tiles"]?.number ?? 0) == keys.count, "zoom \(z)")
        #expect(Int(zoom["features"]?.number ?? 0) == keys.reduce(0) { $0 + expected[$1]! })
      }
      #expect(info["zooms"]?.array?.count == 7)
      #expect(info["largest_tiles"]?.array?.count == 10)
      let text = try geopipe(["tiles", "info", name], in: folder)
      #expect(text.status == 0 && text.out.contains("largest tiles:"))
    }
  }

  @Test func decodeWritesOneTileOrAllOfThem() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.writeTilesets(in: folder)
    let expected = try Self.expectedTiles()
    let one = try geopipe(["tiles", "decode", "points.pmtiles", "3/4/2"], in: folder)
    #expect(one.status == 0, "\(one)")
    let features = try JSON.parseSequence(one.stdout)
    #expect(features.count == expected["3/4/2"])
    for feature in features {
      #expect(feature["tile"]?.string == "3/4/2")
      #expect(feature["tippecanoe"]?["layer"]?.string == "points")
      #expect(feature["properties"]?["name"]?.string?.hasPrefix("p") == true)
    }
    let all = try geopipe(["tiles", "decode", "--tile-coordinates", "points.mbtiles"], in: folder)
    #expect(all.status == 0)
    let perTile = Dictionary(
      grouping: try JSON.parseSequence(all.stdout), by: { $0["tile"]?.string ?? "" }
    ).mapValues(\.count)
    #expect(perTile == expected)
  }

  /// decode | tiles keeps the layer of each feature.
  @Test func decodedFeaturesGoBackIntoTilesWithTheirLayers() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try shell(
      "\"$GEOPIPE\" tiles decode \(Self.countries.path) 2/2/1 | \"$GEOPIPE\" tiles again.pmtiles "
        + "--max-zoom 2 --quiet && \"$GEOPIPE\" tiles info --json again.pmtiles", in: folder)
    #expect(run.status == 0, "\(run)")
    let layers = try JSON.parse(run.out)["metadata"]?["vector_layers"]?.array ?? []
    #expect(layers.map { $0["id"]?.string } == ["countries"])
  }

  @Test func joinMergesTilesetsAndWarnsAboutLargeTiles() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.writeTilesets(in: folder)
    let run = try geopipe(
      [
        "tiles", "join", "both.mbtiles", "points.pmtiles", "points.mbtiles", "--max-tile-bytes",
        "5000",
      ], in: folder)
    #expect(run.status == 0, "\(run)")
    #expect(run.err.contains("warning: tile 0/0/0 is "))
    #expect(run.err.contains("over the limit of 5000"))
    let expected = try Self.expectedTiles()
    let decoded = try geopipe(["tiles", "decode", "both.mbtiles"], in: folder)
    let perTile = Dictionary(
      grouping: try JSON.parseSequence(decoded.stdout), by: { $0["tile"]?.string ?? "" }
    ).mapValues(\.count)
    #expect(perTile == expected.mapValues { 2 * $0 })
    let quiet = try geopipe(
      [
        "tiles", "join", "x.pmtiles", "points.pmtiles", "-x", "rank", "--no-tile-size-limit",
        "--max-tile-bytes", "10",
      ], in: folder)
    #expect(quiet.status == 0 && !quiet.err.contains("warning"), "\(quiet)")
    let misspelt = try geopipe(
      ["tiles", "join", "y.pmtiles", "points.pmtiles", "-y", "nmae"], in: folder)
    #expect(misspelt.status == 0)
    #expect(misspelt.err.contains("warning: no input layer has the attribute 'nmae'"))
    let info = try JSON.parse(geopipe(["tiles", "info", "--json", "x.pmtiles"], in: folder).out)
    let fields = info["metadata"]?["vector_layers"]?.array?.first?["fields"]
    #expect(fields?["rank"] == nil && fields?["name"] != nil)
  }

  @Test func badInputsAreErrorsWithTheirExitCodes() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.writeTilesets(in: folder)
    try write("not a tileset", to: folder.appendingPathComponent("bad.pmtiles"))
    let cases: [([String], Int32, String)] = [
      (["tiles", "decode", "points.pmtiles", "9/0/0"], 66, "holds no tile 9/0/0"),
      (["tiles", "decode", "points.pmtiles", "3/9/0"], 64, "is not a tile"),
      (["tiles", "info", "missing.mbtiles"], 66, "missing.mbtiles"),
      (["tiles", "info", "bad.pmtiles"], 65, "bad.pmtiles"),
      (["tiles", "join", "out.pmtiles", "points.pmtiles", "bad.pmtiles"], 65, "bad.pmtiles"),
      (["tiles", "join", "out.txt", "points.pmtiles"], 64, "must end in .mbtiles or .pmtiles"),
    ]
    for (arguments, status, message) in cases {
      let run = try geopipe(arguments, in: folder)
      #expect(run.status == status, "\(arguments): \(run)")
      #expect(run.err.contains(message), "\(arguments): \(run)")
    }
    #expect(
      try contents(of: folder).sorted() == ["bad.pmtiles", "points.mbtiles", "points.pmtiles"])
  }

  @Test func helpShowsTheActions() throws {
    let run = try geopipe(["tiles", "--help"])
    #expect(run.status == 0)
    for text in [
      "geopipe tiles info <path>", "geopipe tiles decode <path> [<tile>]",
      "geopipe tiles join <output> <inputs> ...", "INFO OPTIONS:", "JOIN OPTIONS:",
      "geopipe tiles join all.pmtiles",
    ] {
      #expect(run.out.contains(text), "\(text)")
    }
  }
}
