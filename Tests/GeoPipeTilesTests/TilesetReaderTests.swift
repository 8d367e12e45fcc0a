import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator
import GeoPipeSQLite
import Testing

@testable import GeoPipeTiles

/// The MBTiles and PMTiles readers against the readers written from the specifications in
/// TileReaders.swift, on tilesets geopipe writes and on tilesets tippecanoe 2.72 wrote.
@Suite struct TilesetReaderTests {
  /// Every tile of a reader, gunzipped, by "z/x/y", checked to come in tile-id order.
  static func readAll(_ reader: any TilesetReader) throws -> [String: [UInt8]] {
    var tiles: [String: [UInt8]] = [:]
    var last: UInt64?
    while let (tile, data) = try reader.next() {
      let id = PMTilesID.id(z: tile.z, x: tile.x, y: tile.y)
      #expect(last.map { $0 < id } ?? true, "\(tile) out of order")
      last = id
      tiles[tile.description] = try TestGzip.gunzip(data)
    }
    return tiles
  }

  static func temporary(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "reader-\(ProcessInfo.processInfo.processIdentifier)-\(name)"
    ).path
  }

  @Test(arguments: ["mbtiles", "pmtiles"])
  func readsWhatTheWritersWrote(_ ext: String) throws {
    let path = Self.temporary("points.\(ext)")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (expected, _) = try TilesetTests.write(to: path)
    let reader = try openTileset(path: path)
    let tiles = try Self.readAll(reader)
    let oracle: [String: [UInt8]]
    if ext == "mbtiles" {
      oracle = try readMBTiles(path).tiles
    } else {
      var byKey: [String: [UInt8]] = [:]
      for (id, data) in try readPMTiles(path).tiles {
        guard let tile = PMTilesID.tile(id) else { continue }
        byKey[tile.description] = data
      }
      oracle = byKey
    }
    #expect(tiles == oracle)
    #expect(Set(tiles.keys) == Set(expected.tiles.keys))
    #expect(reader.metadata.name == "held-out" && reader.metadata.attribution == "test")
    #expect(reader.metadata.minZoom == expected.minZoom)
    #expect(reader.metadata.maxZoom == expected.maxZoom)
    #expect(reader.metadata.vectorLayers.first?["id"] == .string("points"))
    for key in tiles.keys.sorted().prefix(20) {
      let parts = key.split(separator: "/").compactMap { Int($0) }
      let data = try reader.data(of: TileID(unchecked: parts[0], parts[1], parts[2]))
      #expect(try data.map(TestGzip.gunzip) == tiles[key])
    }
    #expect(try reader.data(of: TileID(unchecked: 12, 0, 0)) == nil)
  }

  @Test(arguments: ["tippecanoe-points.mbtiles", "tippecanoe-countries.pmtiles"])
  func readsWhatTippecanoeWrote(_ name: String) throws {
    let path = TilesetTests.folder.appendingPathComponent(name).path
    let reader = try openTileset(path: path)
    let tiles = try Self.readAll(reader)
    if name.hasSuffix(".mbtiles") {
      #expect(tiles == (try readMBTiles(path).tiles))
      #expect(tiles.count == 50)
    } else {
      let oracle = try readPMTiles(path).tiles
      #expect(tiles.count == oracle.count)
      for (id, data) in oracle {
        #expect(tiles[PMTilesID.tile(id)?.description ?? ""] == data)
      }
    }
    #expect(reader.metadata.maxZoom == (name.contains("points") ? 5 : 3))
    // Every tile decodes, with as many features as the decoder in TileReaders.swift finds.
    let decoder = try TileFeatureDecoder()
    for (key, data) in tiles {
      let parts = key.split(separator: "/").compactMap { Int($0) }
      let features = try decoder.features(
        of: data, tile: TileID(unchecked: parts[0], parts[1], parts[2]))
      let count = MVTDecoder.decode(data).reduce(0) { $0 + $1.features.count }
      #expect(features.count == count, "\(key)")
      #expect(features.allSatisfy { $0.foreignMembers["tile"] == .string(key) })
    }
  }

  @Test func tileIDsRoundTrip() {
    for z in 0...6 {
      for x in 0..<(1 << z) {
        for y in 0..<(1 << z) {
          let id = PMTilesID.id(z: z, x: x, y: y)
          #expect(PMTilesID.tile(id) == TileID(unchecked: z, x, y))
        }
      }
    }
    var random = SplitMix64(seed: 7)
    for _ in 0..<1000 {
      let z = Int(random.next() % 31)
      let x = Int(random.next() % (UInt64(1) << UInt64(z)))
      let y = Int(random.next() % (UInt64(1) << UInt64(z)))
      #expect(PMTilesID.tile(PMTilesID.id(z: z, x: x, y: y)) == TileID(unchecked: z, x, y))
    }
    #expect(PMTilesID.tile(UInt64.max) == nil)
  }

  /// Enough distinct tiles that the writer needs leaf directories.
  @Test func readsLeafDirectories() throws {
    let path = Self.temporary("leaves.pmtiles")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let writer = try makeTilesetWriter(path: path)
    var ids: [(UInt64, TileID)] = []
    for x in 0..<256 {
      for y in 0..<256 { ids.append((PMTilesID.id(z: 8, x: x, y: y), TileID(unchecked: 8, x, y))) }
    }
    ids.sort { $0.0 < $1.0 }
    let compressor = try GzipCompressor()
    var random = SplitMix64(seed: 5)
    for (k, (_, tile)) in ids.enumerated() {
      // Random bytes, so that the lengths in the directory vary as much as possible.
      let padding = (0..<random.next() % 300).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      try writer.writeTile(tile, data: compressor.compress(Array("tile \(k) ".utf8) + padding))
    }
    try writer.finish(
      metadata: TilesetMetadata(
        name: "leaves", description: "", attribution: "", west: -180, south: -85, east: 180,
        north: 85, minZoom: 8, maxZoom: 8, json: "{\"vector_layers\":[]}"))
    #expect(try readPMTiles(path).header[48..<56].contains { $0 != 0 }, "no leaf directories")
    let reader = try openTileset(path: path)
    var count = 0
    while let (tile, data) = try reader.next() {
      #expect(tile == ids[count].1)
      #expect(try TestGzip.gunzip(data).starts(with: Array("tile \(count) ".utf8)))
      count += 1
    }
    #expect(count == 65536)
    let probe = ids[40_000].1
    #expect(
      try reader.data(of: probe).map(TestGzip.gunzip).map { Array($0.prefix(11)) }
        == Array("tile 40000 ".utf8))
  }
}
