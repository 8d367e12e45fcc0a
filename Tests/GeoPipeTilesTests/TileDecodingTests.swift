import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator
import GeoPipeSQLite
import Testing

@testable import GeoPipeTiles

/// Decoding vector tiles built here field by field from MVT 2.1, and what bad tiles and bad
/// tilesets give: an error naming the problem, never a crash.
@Suite struct TileDecodingTests {
  static func command(_ id: UInt32, _ count: UInt32) -> UInt32 { id | count << 3 }
  static func zigzag(_ n: Int32) -> UInt32 { ProtobufWriter.zigzag(n) }

  /// Commands drawing rings (each closed) from absolute points.
  static func rings(_ rings: [[(Int32, Int32)]]) -> [UInt32] {
    var out: [UInt32] = []
    var (cx, cy): (Int32, Int32) = (0, 0)
    for ring in rings {
      for (k, (x, y)) in ring.enumerated() {
        if k == 0 { out.append(command(1, 1)) }
        if k == 1 { out.append(command(2, UInt32(ring.count - 1))) }
        out += [zigzag(x - cx), zigzag(y - cy)]
        (cx, cy) = (x, y)
      }
      out.append(command(7, 1))
    }
    return out
  }

  static func feature(id: UInt64?, type: UInt64, tags: [UInt32], geometry: [UInt32]) -> [UInt8] {
    var f = ProtobufWriter()
    if let id { f.varintField(1, id) }
    var packed = ProtobufWriter()
    for tag in tags { packed.varint(UInt64(tag)) }
    if !tags.isEmpty { f.bytesField(2, packed.bytes) }
    f.varintField(3, type)
    var g = ProtobufWriter()
    for c in geometry { g.varint(UInt64(c)) }
    f.bytesField(4, g.bytes)
    return f.bytes
  }

  /// A tile of one layer: a polygon with a hole beside a second polygon, two points, two lines,
  /// and values of all seven types.
  static var tile: [UInt8] {
    var layer = ProtobufWriter()
    layer.varintField(15, 2)
    layer.stringField(1, "shapes")
    let polygon = rings([
      [(0, 0), (100, 0), (100, 100), (0, 100)], [(20, 20), (20, 80), (80, 80), (80, 20)],
      [(200, 200), (300, 200), (300, 300)],
    ])
    layer.bytesField(2, feature(id: 7, type: 3, tags: [0, 0, 1, 1, 2, 2, 3, 3], geometry: polygon))
    layer.bytesField(
      2,
      feature(
        id: nil, type: 1, tags: [4, 4, 5, 5, 6, 6],
        geometry: [command(1, 2), zigzag(5), zigzag(6), zigzag(1), zigzag(-1)]))
    layer.bytesField(
      2,
      feature(
        id: 9, type: 2, tags: [],
        geometry: [
          command(1, 1), 0, 0, command(2, 1), zigzag(10), 0, command(1, 1), 0,
          zigzag(10), command(2, 1), zigzag(-10), 0,
        ]))
    for key in ["name", "area", "ratio", "delta", "count", "big", "open"] {
      layer.stringField(3, key)
    }
    var values: [ProtobufWriter] = Array(repeating: ProtobufWriter(), count: 7)
    values[0].stringField(1, "box")
    values[1].key(2, 5)
    values[1].bytes += withUnsafeBytes(of: Float(1.5).bitPattern.littleEndian, Array.init)
    values[2].doubleField(3, 0.25)
    values[3].varintField(4, UInt64(bitPattern: -3))
    values[4].varintField(5, 42)
    values[5].varintField(6, ProtobufWriter.zigzag64(-70_000))
    values[6].varintField(7, 1)
    for value in values { layer.bytesField(4, value.bytes) }
    layer.varintField(5, 4096)
    var tile = ProtobufWriter()
    tile.bytesField(3, layer.bytes)
    return tile.bytes
  }

  @Test func decodesGeometriesAndValuesInTileCoordinates() throws {
    let features = try TileFeatureDecoder(tileCoordinates: true).features(
      of: Self.tile, tile: TileID(unchecked: 3, 4, 2))
    #expect(features.count == 3)
    let exterior = CoordinateArray(storage: [0, 0, 100, 0, 100, 100, 0, 100, 0, 0], dimension: 2)
    let hole = CoordinateArray(storage: [20, 20, 20, 80, 80, 80, 80, 20, 20, 20], dimension: 2)
    let second = CoordinateArray(
      storage: [200, 200, 300, 200, 300, 300, 200, 200], dimension: 2)
    #expect(features[0].geometry == .multiPolygon([[exterior, hole], [second]]))
    #expect(features[0].id == .integer(7))
    #expect(
      features[0].properties
        == [
          "name": .string("box"), "area": .double(1.5), "ratio": .double(0.25),
          "delta": .integer(-3),
        ])
    #expect(features[0].foreignMembers["tile"] == .string("3/4/2"))
    #expect(features[0].foreignMembers["tippecanoe"] == .object(["layer": .string("shapes")]))
    #expect(
      features[1].geometry
        == .multiPoint(CoordinateArray(storage: [5, 6, 6, 5], dimension: 2)))
    #expect(features[1].id == nil)
    #expect(
      features[1].properties == [
        "count": .integer(42), "big": .integer(-70_000), "open": .bool(true),
      ])
    #expect(
      features[2].geometry
        == .multiLineString([
          CoordinateArray(storage: [0, 0, 10, 0], dimension: 2),
          CoordinateArray(storage: [10, 10, 0, 10], dimension: 2),
        ]))
  }

  @Test func windsPolygonsAsRFC7946InLongitudeAndLatitude() throws {
    let tile = TileID(unchecked: 3, 4, 2)
    let features = try TileFeatureDecoder().features(of: Self.tile, tile: tile)
    guard case .multiPolygon(let polygons)? = features[0].geometry else {
      Issue.record("not a multipolygon")
      return
    }
    #expect(polygons[0][0].signedDoubleArea > 0 && polygons[0][1].signedDoubleArea < 0)
    #expect(polygons[1][0].signedDoubleArea > 0)
    // x / extent across the tile, then inverse Web Mercator.
    let corner = polygons[0][0][2]
    #expect(corner.x == WebMercator.longitude(x: (4 * 4096 + 100) / (8 * 4096.0)))
    #expect(corner.y == WebMercator.latitude(y: (2 * 4096 + 100) / (8 * 4096.0)))
    #expect(polygons[0][0][0].x == tile.bounds.west && polygons[0][0][0].y == tile.bounds.north)
  }

  @Test func gzippedAndPlainTilesDecodeAlike() throws {
    let decoder = try TileFeatureDecoder()
    let tile = TileID(unchecked: 0, 0, 0)
    #expect(
      try decoder.features(of: GzipCompressor().compress(Self.tile), tile: tile)
        == decoder.features(of: Self.tile, tile: tile))
  }

  /// Every prefix and thousands of mutations of a tile either decode or throw a `TilesError`.
  @Test func badTilesThrow() throws {
    let decoder = try TileFeatureDecoder()
    let tile = TileID(unchecked: 0, 0, 0)
    var failures = 0
    for n in 0..<Self.tile.count {
      do {
        _ = try decoder.features(of: Array(Self.tile.prefix(n)), tile: tile)
      } catch is TilesError {
        failures += 1
      }
    }
    #expect(failures > Self.tile.count / 2)
    var random = SplitMix64(seed: 1)
    for _ in 0..<3000 {
      var bytes = Self.tile
      for _ in 0..<(1 + random.next() % 4) {
        bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
      }
      do { _ = try decoder.features(of: bytes, tile: tile) } catch is TilesError {}
    }
    #expect(throws: TilesError.self) {
      try decoder.features(of: [0x1f, 0x8b, 1, 2, 3], tile: tile)
    }
  }

  @Test func badTilesetsThrowErrorsNamingTheFile() throws {
    let path = TilesetReaderTests.temporary("bad.pmtiles")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let good = try [UInt8](
      Data(contentsOf: TilesetTests.folder.appendingPathComponent("tippecanoe-countries.pmtiles")))
    var random = SplitMix64(seed: 3)
    var cases: [[UInt8]] = [Array(good.prefix(100)), Array(good.prefix(good.count / 2)), []]
    for _ in 0..<200 {
      var bytes = good
      let at = Int(random.next() % 2000)
      bytes[at] = UInt8(truncatingIfNeeded: random.next())
      cases.append(bytes)
    }
    for bytes in cases {
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      do {
        let reader = try openTileset(path: path)
        while try reader.next() != nil {}
      } catch let error as GeoPipeError {
        #expect(error.message.contains(path))
        #expect(error.status == .dataError)
      }
    }
    #expect(throws: GeoPipeError.self) { try openTileset(path: "/nonexistent/x.pmtiles") }
  }

  @Test func mbtilesRowsOutsideTheirZoomAreErrors() throws {
    let path = TilesetReaderTests.temporary("bad.mbtiles")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try? FileManager.default.removeItem(atPath: path)
    let database = try SQLiteDatabase(path: path, create: true)
    try database.execute(
      """
      CREATE TABLE metadata (name TEXT, value TEXT);
      CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER,
        tile_data BLOB);
      INSERT INTO tiles VALUES (1, 5, 0, x'1a00');
      """)
    let reader = try openTileset(path: path)
    #expect {
      _ = try reader.next()
    } throws: { error in
      "\(error)".contains("column 5, row 0 is outside")
    }
  }
}
