import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator
import GeoPipeSQLite
import Testing

@testable import GeoPipeTiles

/// Tilesets written from `Fixtures/tiles/points.geojson` against where mercantile puts each
/// point (and its copies across the antimeridian) (`points-expected.json`, from `Scripts/gen-tile-fixtures.py`), read back with the
/// readers in TileReaders.swift.
@Suite struct TilesetTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/tiles")

  struct Expected: Decodable {
    var minZoom: Int
    var maxZoom: Int
    var tiles: [String: [[Value]]]
  }

  enum Value: Decodable {
    case text(String)
    case number(Double)

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let text = try? container.decode(String.self) {
        self = .text(text)
      } else {
        self = .number(try container.decode(Double.self))
      }
    }

    var text: String { if case .text(let s) = self { s } else { "" } }
    var number: Double { if case .number(let x) = self { x } else { .nan } }
  }

  static func write(to path: String) throws -> (Expected, TilesetSummary) {
    let expected = try JSONDecoder().decode(
      Expected.self,
      from: Data(contentsOf: folder.appendingPathComponent("points-expected.json")))
    var options = TilerOptions()
    options.minZoom = expected.minZoom
    options.maxZoom = expected.maxZoom
    options.layer = "points"
    options.threads = 2
    let tiler = Tiler(options: options)
    let reader = try FeatureReaders.open(folder.appendingPathComponent("points.geojson").path)
    while let feature = try reader.next() { tiler.add(feature) }
    try? FileManager.default.removeItem(atPath: path)
    let summary = try tiler.write(
      to: makeTilesetWriter(path: path), name: "held-out", attribution: "test", description: "")
    return (expected, summary)
  }

  /// Every tile has exactly the expected points, within one tile unit, with their properties.
  static func check(_ tiles: [String: [UInt8]], _ expected: Expected) {
    #expect(Set(tiles.keys) == Set(expected.tiles.keys))
    for (key, points) in expected.tiles {
      guard let data = tiles[key] else { continue }
      let layers = MVTDecoder.decode(data)
      #expect(layers.count == 1 && layers[0].name == "points" && layers[0].version == 2)
      #expect(layers[0].extent == 4096)
      let features = layers[0].features
      #expect(features.count == points.count, "\(key)")
      let byName = Dictionary(
        features.map { ($0.properties["name"] ?? "", $0) }, uniquingKeysWith: { a, _ in a })
      for point in points {
        guard let feature = byName[point[0].text] else {
          Issue.record("\(key): \(point[0].text) missing")
          continue
        }
        #expect(feature.type == 1)
        #expect(feature.id == UInt64(point[0].text.dropFirst()))
        #expect(feature.properties["none"] == nil)
        #expect(feature.properties["rank"] != nil && feature.properties["open"] != nil)
        // A point and its copies across the antimeridian in the same tile are one feature.
        let xy = feature.points
        #expect(xy.count == (point.count - 1) / 2, "\(key) \(point[0].text)")
        for k in stride(from: 1, to: point.count - 1, by: 2) {
          let near = xy.contains {
            abs(Double($0.0) - point[k].number) <= 1 && abs(Double($0.1) - point[k + 1].number) <= 1
          }
          #expect(near, "\(key) \(point[0].text)")
        }
      }
    }
  }

  @Test func mbtilesHoldEveryPointWhereMercantilePutsIt() throws {
    let path = NSTemporaryDirectory() + "geopipe-held-out-\(getpid()).mbtiles"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (expected, summary) = try Self.write(to: path)
    let (tiles, metadata) = try readMBTiles(path)
    #expect(summary.tiles == tiles.count)
    Self.check(tiles, expected)
    #expect(metadata["format"] == "pbf" && metadata["name"] == "held-out")
    #expect(metadata["minzoom"] == "0" && metadata["maxzoom"] == "6")
    #expect(metadata["attribution"] == "test")
    #expect(metadata["bounds"]?.split(separator: ",").count == 4)
    #expect(metadata["center"]?.split(separator: ",").count == 3)
    let json = try #require(metadata["json"])
    #expect(json.contains("\"vector_layers\":[{\"id\":\"points\""))
    #expect(json.contains("\"rank\":\"Number\"") && json.contains("\"open\":\"Boolean\""))
  }

  @Test func mbtilesStoreIdenticalTilesOnce() throws {
    // A box over western Europe: at zoom 6 most of its tiles are the same full square.
    let path = NSTemporaryDirectory() + "geopipe-dedup-\(getpid()).mbtiles"
    defer { try? FileManager.default.removeItem(atPath: path) }
    var options = TilerOptions()
    options.maxZoom = 6
    let tiler = Tiler(options: options)
    let box = CoordinateArray([
      Position(x: -10, y: 35), Position(x: 20, y: 35), Position(x: 20, y: 60),
      Position(x: -10, y: 60), Position(x: -10, y: 35),
    ])
    tiler.add(Feature(geometry: .polygon([box]), properties: ["name": .string("box")]))
    let summary = try tiler.write(
      to: makeTilesetWriter(path: path), name: "box", attribution: "", description: "")
    let (tiles, _) = try readMBTiles(path)
    #expect(tiles.count == summary.tiles)
    let database = try SQLiteDatabase(path: path, readOnly: true)
    let images = try database.statement("SELECT count(*) FROM images")
    #expect(try images.step())
    #expect(images.int64(0) > 0 && Int(images.int64(0)) < summary.tiles / 2)
    // Tiles that share an image hold the same bytes.
    var byBytes: [[UInt8]: Int] = [:]
    for (_, data) in tiles { byBytes[data, default: 0] += 1 }
    #expect(byBytes.count == Int(images.int64(0)))
  }

  @Test func deduplicatorForgetsTheOldestBeyondItsCapacity() {
    var seen = TileDeduplicator<Int>(capacity: 2)
    seen.remember([1], at: 1)
    seen.remember([2], at: 2)
    #expect(seen.location(of: [1]) == 1 && seen.location(of: [2]) == 2)
    seen.remember([3], at: 3)
    #expect(seen.location(of: [1]) == nil)
    #expect(seen.location(of: [2]) == 2 && seen.location(of: [3]) == 3)
    let large = [UInt8](repeating: 7, count: TileDeduplicator<Int>.sizeLimit + 1)
    seen.remember(large, at: 4)
    #expect(seen.location(of: large) == nil)
  }

  @Test func pmtilesHoldTheSameTiles() throws {
    let path = NSTemporaryDirectory() + "geopipe-held-out-\(getpid()).pmtiles"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (expected, _) = try Self.write(to: path)
    let (byID, header, metadata) = try readPMTiles(path)
    var tiles: [String: [UInt8]] = [:]
    for key in expected.tiles.keys {
      let parts = key.split(separator: "/").compactMap { Int($0) }
      if let data = byID[PMTilesID.id(z: parts[0], x: parts[1], y: parts[2])] {
        tiles[key] = data
      }
    }
    #expect(byID.count == expected.tiles.count)
    Self.check(tiles, expected)
    #expect(Array(header[0..<8]) == Array("PMTiles".utf8) + [3])
    #expect(header[96] == 1 && header[97] == 2 && header[98] == 2 && header[99] == 1)
    #expect(header[100] == 0 && header[101] == 6)
    #expect(metadata.contains("\"vector_layers\":[{\"id\":\"points\""))
  }

  @Test func largeArchivesUseLeafDirectories() throws {
    // Enough tiles at scattered places that the root directory would pass 16 KiB.
    var options = TilerOptions()
    options.minZoom = 12
    options.maxZoom = 12
    options.layer = "scatter"
    let tiler = Tiler(options: options)
    var state: UInt64 = 7
    func next() -> Double {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
    for k in 0..<40_000 {
      let position = Position(x: next() * 360 - 180, y: next() * 160 - 80)
      tiler.add(Feature(geometry: .point(position), properties: ["k": .integer(Int64(k))]))
    }
    let path = NSTemporaryDirectory() + "geopipe-leaves-\(getpid()).pmtiles"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let summary = try tiler.write(
      to: makeTilesetWriter(path: path), name: "grid", attribution: "", description: "")
    let (byID, header, _) = try readPMTiles(path)
    #expect(summary.tiles > 30_000 && byID.count == summary.tiles)
    let leafLength = (48..<56).reduce(0) { $0 | Int(header[$1]) << (8 * ($1 - 48)) }
    #expect(leafLength > 0)
  }
}

/// PMTiles ids and directory bytes against the pmtiles package.
@Suite struct PMTilesFormatTests {
  struct IDCase: Decodable { var z, x, y: Int; var id: UInt64 }
  struct DirectoryCase: Decodable {
    var entries: [[UInt64]]
    var bytes: [UInt8]
  }

  @Test func tileIDsMatchThePMTilesPackage() throws {
    let cases = try JSONDecoder().decode(
      [IDCase].self,
      from: Data(contentsOf: TilesetTests.folder.appendingPathComponent("pmtiles-ids.json")))
    for c in cases { #expect(PMTilesID.id(z: c.z, x: c.x, y: c.y) == c.id, "\(c.z)/\(c.x)/\(c.y)") }
  }

  @Test func directoriesSerializeAsThePMTilesPackageDoes() throws {
    let c = try JSONDecoder().decode(
      DirectoryCase.self,
      from: Data(contentsOf: TilesetTests.folder.appendingPathComponent("pmtiles-directory.json")))
    let entries = c.entries.map {
      PMTilesWriter.Entry(
        tileID: $0[0], offset: $0[1], length: UInt32($0[2]), runLength: UInt32($0[3]))
    }
    #expect(PMTilesWriter.serialize(entries) == c.bytes)
  }
}
