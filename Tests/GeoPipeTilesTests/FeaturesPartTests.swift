import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator
import Testing

@testable import GeoPipeTiles

/// Parts of tile features (`Tiler.featuresPart`, `Tiler.absorb(featuresPart:)`): the tiler that
/// absorbs every part in order is the tiler of one run, and a damaged part is an error, never a
/// crash.
@Suite struct FeaturesPartTests {
  /// Points, multipoints, lines, polygons, a collection, a feature without geometry, ids,
  /// every kind of value, and features that name their layer and zooms.
  static let features: [Feature] = {
    let text = """
      {"type":"Feature","id":1,"properties":{"n":1,"s":"a"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}
      {"type":"Feature","properties":{"n":-3,"f":2.5,"b":true,"o":{"x":[1]}},"geometry":{"type":"MultiPoint","coordinates":[[10,10],[10.5,10.5]]}}
      {"type":"Feature","id":"x","properties":{"s":"b"},"geometry":{"type":"LineString","coordinates":[[0,0],[30,20],[60,-10]]}}
      {"type":"Feature","properties":{"n":1,"s":"a"},"geometry":{"type":"Polygon","coordinates":[[[-10,-10],[10,-10],[10,10],[-10,10],[-10,-10]],[[-2,-2],[2,-2],[2,2],[-2,2],[-2,-2]]]}}
      {"type":"Feature","properties":{"k":null},"geometry":null}
      {"type":"Feature","properties":{"s":"c"},"geometry":{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[179.9,0]},{"type":"LineString","coordinates":[[170,5],[-170,5]]}]}}
      {"type":"Feature","properties":{"n":7},"geometry":{"type":"Point","coordinates":[-120,35]},"tippecanoe":{"minzoom":2,"maxzoom":3,"layer":"other"}}
      {"type":"Feature","id":9,"properties":{"s":"a","b":false},"geometry":{"type":"MultiPolygon","coordinates":[[[[100,0],[101,0],[101,1],[100,1],[100,0]]]]}}
      """
    guard
      let buffer = try? InputBuffer(
        source: MemoryByteSource(Array(text.utf8)), name: "features.geojsonl", capacity: 1 << 16)
    else { return [] }
    let reader = GeoJSONReader(buffer: buffer)
    var features: [Feature] = []
    while let feature = try? reader.next() { features.append(feature) }
    return features
  }()

  static var options: TilerOptions {
    var options = TilerOptions()
    options.maxZoom = 4
    options.layer = "things"
    return options
  }

  /// The tiles and metadata a tiler writes.
  static func written(by tiler: Tiler) throws -> (tiles: [String: [UInt8]], metadata: String) {
    let writer = MemoryTilesetWriter()
    _ = try tiler.write(to: writer, name: "test", attribution: "", description: "")
    return (writer.tiles, writer.metadata?.json ?? "")
  }

  /// The parts of `count` shards, each given a run of the features in order.
  static func parts(_ count: Int) throws -> [[UInt8]] {
    try (0..<count).map { index in
      let tiler = Tiler(options: options)
      let share = features.count * index / count..<features.count * (index + 1) / count
      for feature in features[share] { tiler.add(feature) }
      let without = features[share].filter { $0.geometry == nil }.count
      return tiler.featuresPart(
        shard: try Shard(index: index, count: count), withoutGeometry: without)
    }
  }

  @Test(arguments: [1, 2, 3, 8])
  func absorbedPartsGiveTheTilerOfOneRun(count: Int) throws {
    #expect(Self.features.count == 8)
    let one = Tiler(options: Self.options)
    for feature in Self.features { one.add(feature) }
    let expected = try Self.written(by: one)
    let tiler = Tiler(options: Self.options)
    var without = 0
    for (k, part) in try Self.parts(count).enumerated() {
      let (shard, left) = try tiler.absorb(featuresPart: part)
      #expect(shard.index == k && shard.count == count)
      without += left
    }
    #expect(without == 1)
    let got = try Self.written(by: tiler)
    #expect(got.tiles == expected.tiles)
    #expect(got.metadata == expected.metadata)
    #expect(expected.tiles.count > 10)
  }

  /// Every cut of a part, and every byte of it changed, is absorbed or refused with an error.
  @Test func damagedPartsAreRefusedWithoutACrash() throws {
    let part = try Self.parts(2)[1]
    var refused = 0
    for length in stride(from: 0, to: part.count, by: 7) {
      do {
        _ = try Tiler(options: Self.options).absorb(featuresPart: Array(part.prefix(length)))
      } catch is TilesError {
        refused += 1
      }
    }
    #expect(refused == (part.count + 6) / 7)
    var generator = SplitMix64(seed: 5)
    var messages: [String] = []
    for _ in 0..<3000 {
      var damaged = part
      for _ in 0..<(1 + Int(generator.next() % 3)) {
        let at = Int(generator.next() % UInt64(damaged.count))
        damaged[at] = UInt8(truncatingIfNeeded: generator.next())
      }
      let tiler = Tiler(options: Self.options)
      do {
        _ = try tiler.absorb(featuresPart: damaged)
      } catch let error as TilesError {
        messages.append(error.description)
        continue
      }
      _ = try? Self.written(by: tiler)
    }
    // A damaged record is named by its place in the part.
    #expect(messages.contains { $0.hasPrefix("stored feature ") && $0.contains(" of ") })
    #expect(messages.contains { $0.hasPrefix("shape ") && $0.contains(" of ") })
  }

  /// A part prepared with other options is refused.
  @Test func partsOfOtherOptionsAreRefused() throws {
    var options = Self.options
    options.layer = "elsewhere"
    let part = try Self.parts(1)[0]
    #expect(throws: TilesError.self) { try Tiler(options: options).absorb(featuresPart: part) }
  }
}

/// A tileset writer that keeps the tiles in memory.
final class MemoryTilesetWriter: TilesetWriter {
  var tiles: [String: [UInt8]] = [:]
  var metadata: TilesetMetadata?

  func writeTile(_ tile: TileID, data: [UInt8]) throws { tiles["\(tile)"] = data }
  func finish(metadata: TilesetMetadata) throws { self.metadata = metadata }
  func abort() {}
}
