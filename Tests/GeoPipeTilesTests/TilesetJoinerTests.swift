import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator
import Testing

@testable import GeoPipeTiles

/// Merging tiles and tilesets as `tiles join` does.
@Suite struct TilesetJoinerTests {
  static let tile = TileID(unchecked: 2, 1, 1)

  /// A tile of one layer named `name` with the features of `TileDecodingTests.tile`.
  static func renamed(_ name: String) throws -> [UInt8] {
    let layers = try VectorTileDecoder.decode(TileDecodingTests.tile)
    var merger = TileLayerMerger(like: layers[0])
    try merger.add(layers[0], filter: TileAttributeFilter())
    var tile = ProtobufWriter()
    merger.encode(into: &tile)
    let text = tile.bytes
    // The layer name is the only "shapes" in the tile; names of the same length swap in place.
    precondition(name.utf8.count == 6)
    let at = text.firstRange(of: Array("shapes".utf8))?.lowerBound ?? 0
    return Array(text[..<at]) + Array(name.utf8) + Array(text[(at + 6)...])
  }

  @Test func sameNamedLayersAreConcatenatedAndRetabled() throws {
    let decoder = try TileFeatureDecoder(tileCoordinates: true)
    let one = try decoder.features(of: TileDecodingTests.tile, tile: Self.tile)
    let (merged, count) = try TilesetJoiner.merge(
      [TileDecodingTests.tile, TileDecodingTests.tile], filter: TileAttributeFilter())
    #expect(count == 6)
    #expect(try decoder.features(of: merged, tile: Self.tile) == one + one)
    let layers = try VectorTileDecoder.decode(merged)
    #expect(layers.count == 1 && layers[0].keys.count == 7 && layers[0].values.count == 7)
  }

  @Test func distinctLayersAreKeptSideBySide() throws {
    let decoder = try TileFeatureDecoder(tileCoordinates: true)
    let other = try Self.renamed("others")
    let (merged, count) = try TilesetJoiner.merge(
      [TileDecodingTests.tile, other], filter: TileAttributeFilter())
    #expect(count == 6)
    let layers = try VectorTileDecoder.decode(merged).map(\.name)
    #expect(layers == ["shapes", "others"])
    #expect(
      try decoder.features(of: merged, tile: Self.tile)
        == decoder.features(of: TileDecodingTests.tile, tile: Self.tile)
        + decoder.features(of: other, tile: Self.tile))
  }

  @Test func filtersLeaveOutAttributes() throws {
    let decoder = try TileFeatureDecoder(tileCoordinates: true)
    let (merged, _) = try TilesetJoiner.merge(
      [TileDecodingTests.tile], filter: TileAttributeFilter(exclude: ["name", "open"]))
    let features = try decoder.features(of: merged, tile: Self.tile)
    #expect(features[0].properties?.keys == ["area", "ratio", "delta"])
    #expect(features[1].properties?.keys == ["count", "big"])
    let (kept, _) = try TilesetJoiner.merge(
      [TileDecodingTests.tile], filter: TileAttributeFilter(include: ["big"]))
    #expect(
      try decoder.features(of: kept, tile: Self.tile).map { $0.properties?.keys ?? [] }
        == [[], ["big"], []])
  }

  @Test func joinsTilesetsOfTheSameLayerAcrossFormats() throws {
    let a = TilesetReaderTests.temporary("join-a.mbtiles")
    let b = TilesetReaderTests.temporary("join-b.pmtiles")
    let out = TilesetReaderTests.temporary("join-out.pmtiles")
    defer { for path in [a, b, out] { try? FileManager.default.removeItem(atPath: path) } }
    _ = try TilesetTests.write(to: a)
    _ = try TilesetTests.write(to: b)
    var joiner = TilesetJoiner()
    joiner.threads = 2
    joiner.limits = TileSizeLimits(maxBytes: 2000)
    let summary = try joiner.join(
      [openTileset(path: a), openTileset(path: b)], into: makeTilesetWriter(path: out), name: nil)
    let single = try TilesetReaderTests.readAll(openTileset(path: a))
    let joined = try TilesetReaderTests.readAll(openTileset(path: out))
    #expect(summary.tiles == single.count && summary.merged == single.count)
    #expect(Set(joined.keys) == Set(single.keys))
    let decoder = try TileFeatureDecoder(tileCoordinates: true)
    for (key, data) in single {
      let parts = key.split(separator: "/").compactMap { Int($0) }
      let tile = TileID(unchecked: parts[0], parts[1], parts[2])
      let features = try decoder.features(of: data, tile: tile)
      #expect(try decoder.features(of: joined[key] ?? [], tile: tile) == features + features)
      let bytes = try GzipCompressor().compress(joined[key] ?? []).count
      #expect(summary.oversized.contains { $0.tile == tile } == (bytes > 2000))
    }
    let metadata = try openTileset(path: out).metadata
    #expect(metadata.name == "held-out" && metadata.vectorLayers.count == 1)
  }

  @Test func layersOfDifferentExtentsDoNotMerge() throws {
    var bytes = TileDecodingTests.tile
    // The extent is the last field: 4096 as a varint (80 20) becomes 512 (80 04).
    bytes[bytes.count - 1] = 0x04
    #expect(throws: TilesError.self) {
      try TilesetJoiner.merge([TileDecodingTests.tile, bytes], filter: TileAttributeFilter())
    }
  }
}
