import Foundation
import GeoPipeCore
import GeoPipeGEOS
import GeoPipeMercator
import Testing

@testable import GeoPipeTiles

/// Lines and polygons cut into tiles: which tiles they reach, what the tiles hold, and that
/// every polygon read back from a tile is valid (GEOS) and wound as MVT 2.1 wants.
@Suite struct TileClippingTests {
  /// Writes `features` as an MBTiles file at zooms `zooms` and reads every tile back.
  static func tiles(
    _ features: [Feature], zooms: ClosedRange<Int>, threads: Int = 2,
    configure: (inout TilerOptions) -> Void = { _ in }
  ) throws -> (tiles: [String: [DecodedLayer]], metadata: [String: String]) {
    var options = TilerOptions()
    options.minZoom = zooms.lowerBound
    options.maxZoom = zooms.upperBound
    options.layer = "shapes"
    options.threads = threads
    configure(&options)
    let tiler = Tiler(options: options)
    for feature in features { tiler.add(feature) }
    let path = NSTemporaryDirectory() + "geopipe-clip-\(getpid())-\(UUID().uuidString).mbtiles"
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try tiler.write(
      to: makeTilesetWriter(path: path), name: "t", attribution: "", description: "")
    let (raw, metadata) = try readMBTiles(path)
    return (raw.mapValues { MVTDecoder.decode($0) }, metadata)
  }

  static func line(_ positions: [(Double, Double)]) -> Feature {
    Feature(geometry: .lineString(CoordinateArray(positions.map { Position(x: $0.0, y: $0.1) })))
  }

  /// A star-shaped ring of `count` vertices whose radius jitters (so it is simple but jagged,
  /// like a coastline), counter-clockwise as GeoJSON winds exteriors.
  static func jaggedRing(
    center: (Double, Double), radius: Double, count: Int, seed: UInt64, reversed: Bool = false
  ) -> CoordinateArray {
    var state = seed
    var positions: [Position] = []
    for k in 0..<count {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let jitter = 0.55 + 0.45 * Double(state >> 11) / Double(1 << 53)
      let angle = 2 * Double.pi * Double(k) / Double(count) * (reversed ? -1 : 1)
      positions.append(
        Position(
          x: center.0 + radius * jitter * cos(angle), y: center.1 + radius * jitter * sin(angle)))
    }
    positions.append(positions[0])
    return CoordinateArray(positions)
  }

  @Test func aDiagonalLineReachesOnlyTheTilesItCrosses() throws {
    // From (-60, -50) to (60, 50): its box covers most of the world, the line few tiles.
    let (tiles, _) = try Self.tiles([Self.line([(-60, -50), (60, 50)])], zooms: 6...6)
    let n = 64
    // Each column the line crosses holds a few tiles: far fewer than the box's ~ 40 x 25.
    #expect(tiles.count < 4 * n && tiles.count > n / 2)
    for (key, layers) in tiles {
      let parts = key.split(separator: "/").compactMap { Int($0) }
      let tile = TileID(unchecked: parts[0], parts[1], parts[2])
      // The line through the tile (with its buffer) in degrees: y = x * 50 / 60 in Mercator
      // is not straight, so only check that every tile holds a line of two points or more.
      #expect(layers.count == 1 && layers[0].features.count == 1, "\(tile)")
      #expect(layers[0].features[0].type == 2)
      #expect(layers[0].features[0].points.count >= 2)
    }
  }

  @Test func tilesInsideAPolygonHoldTheBufferedSquare() throws {
    let square = CoordinateArray([
      Position(x: -30, y: -30), Position(x: 30, y: -30), Position(x: 30, y: 30),
      Position(x: -30, y: 30), Position(x: -30, y: -30),
    ])
    let (tiles, _) = try Self.tiles([Feature(geometry: .polygon([square]))], zooms: 5...5)
    // At zoom 5 (11.25° tiles) the square spans about 6 x 6 tiles, the inner 4 x 4 whole.
    let inner = try #require(tiles["5/16/16"])
    let rings = TileGeometryTests.rings(inner[0].features[0].commands)
    #expect(rings == [[-80, -80, 4176, -80, 4176, 4176, -80, 4176]])
    #expect(tiles["5/8/8"] == nil && tiles["5/20/20"] == nil)
    #expect(tiles.count >= 36 && tiles.count <= 64)
  }

  @Test func aPolygonCoveringMostOfATileIsNotTheWholeTile() throws {
    // A polygon whose edge from (-3, -8) to (8, 3) cuts the top-left corner off tile 5/16/16
    // (0° to 11.25° east, 0° to 11.18° south): about nine tenths of the tile, and clipped to
    // the tile every corner lies on the tile's edges, yet it is not the whole tile.
    let triangle = CoordinateArray([
      Position(x: 8, y: 3), Position(x: 40, y: 3), Position(x: 40, y: -40),
      Position(x: -3, y: -40), Position(x: -3, y: -8), Position(x: 8, y: 3),
    ])
    let (tiles, _) = try Self.tiles([Feature(geometry: .polygon([triangle]))], zooms: 5...5)
    let tile = try #require(tiles["5/16/16"])
    let rings = TileGeometryTests.rings(tile[0].features[0].commands)
    #expect(rings.count == 1)
    #expect(rings.first != [-80, -80, 4176, -80, 4176, 4176, -80, 4176])
    let area = Double(TileGeometryEncoder.signedArea(rings[0])) / 2
    #expect(area > 4256 * 4256 / 2 && area < 4256 * 4256 * 0.98)
  }

  @Test func everyDecodedPolygonIsValidAndWoundForMVT() throws {
    // Jagged polygons with many vertices close together, holes, and a neighbour almost
    // touching: clipping, simplifying and rounding must still give valid polygons.
    var features: [Feature] = []
    for k in 0..<6 {
      let center = (Double(k) * 50 - 130, Double(k % 3) * 25 - 20)
      let exterior = Self.jaggedRing(center: center, radius: 22, count: 3000, seed: UInt64(k))
      let hole = Self.jaggedRing(
        center: center, radius: 6, count: 400, seed: UInt64(k + 100), reversed: true)
      features.append(Feature(geometry: .polygon([exterior, hole])))
    }
    let (tiles, _) = try Self.tiles(features, zooms: 0...5)
    let context = try GEOSContext()
    var polygons = 0
    for (key, layers) in tiles {
      for feature in layers.flatMap(\.features) where feature.type == 3 {
        polygons += 1
        var members: [[CoordinateArray]] = []
        for ring in TileGeometryTests.rings(feature.commands) {
          let area = TileGeometryEncoder.signedArea(ring)
          #expect(area != 0, "\(key): a ring of no area")
          var storage = ring.map(Double.init)
          storage += [storage[0], storage[1]]
          let run = CoordinateArray(storage: storage, dimension: 2)
          if area > 0 {
            members.append([run])
          } else {
            #expect(!members.isEmpty, "\(key): a hole before any exterior")
            if !members.isEmpty { members[members.count - 1].append(run) }
          }
        }
        let problem = try context.validityProblem(.multiPolygon(members))
        #expect(problem == nil, "\(key): \(problem?.reason ?? "")")
      }
    }
    #expect(polygons > 100)
  }

  @Test func piecesCutOnTwoThreadsGiveTheSameTiles() throws {
    // Enough pieces (more than 256 a zoom) that cutting them is shared between threads.
    let ring = Self.jaggedRing(center: (10, 20), radius: 30, count: 2000, seed: 9)
    var wave: [(Double, Double)] = []
    for k in 0..<400 {
      let x = Double(k) * 0.2 - 40
      wave.append((x, sin(Double(k) / 7) * 10))
    }
    let line = Self.line(wave)
    let features = [Feature(geometry: .polygon([ring])), line]
    let (one, _) = try Self.tiles(features, zooms: 0...8, threads: 1)
    let (two, _) = try Self.tiles(features, zooms: 0...8, threads: 2)
    #expect(one.keys.filter { $0.hasPrefix("7/") }.count > 256)
    #expect(Set(one.keys) == Set(two.keys))
    for (key, layers) in one {
      let other = two[key] ?? []
      #expect(layers.count == other.count, "\(key)")
      for (a, b) in zip(layers, other) {
        #expect(a.features.map { $0.commands } == b.features.map { $0.commands }, "\(key)")
      }
    }
  }

  @Test func featuresNearTheAntimeridianWrapIntoTheBufferOnTheOtherSide() throws {
    let line = Self.line([(179.0, 20), (179.9, 21)])
    let point = Feature(geometry: .point(Position(x: -179.6, y: -10)))
    let (tiles, _) = try Self.tiles([line, point], zooms: 0...3)
    // At zoom 3 a tile is 45° wide and its buffer 0.88°: the line's east end (0.1° from the
    // edge) is in the buffer of column 0, the point (0.4° from the edge) in column 7's.
    let west = try #require(tiles["3/0/3"])
    let wrapped = try #require(west[0].features.first { $0.type == 2 })
    #expect(wrapped.points.allSatisfy { $0.0 < 0 && $0.0 >= -80 })
    let east = try #require(tiles["3/7/4"])
    let point3 = try #require(east[0].features.first { $0.type == 1 })
    #expect(point3.points.count == 1 && point3.points[0].0 > 4096 && point3.points[0].0 < 4176)
    // At zoom 0 the world's one tile holds each near the edge twice, as one feature.
    let world = try #require(tiles["0/0/0"])
    #expect(world[0].features.count == 2)
    #expect(world[0].features.first { $0.type == 1 }?.points.count == 2)
  }

  @Test func featuresGoToTheLayersTheyName() throws {
    var named = Self.line([(0, 0), (1, 1)])
    named.foreignMembers["tippecanoe"] = .object([
      "layer": .string("rivers"), "minzoom": .integer(1),
    ])
    var byProperty = Feature(
      geometry: .point(Position(x: 2, y: 2)),
      properties: ["kind": .string("towns"), "pop": .integer(5)])
    byProperty.id = JSONValue.integer(7)
    let plain = Feature(geometry: .point(Position(x: 3, y: 3)), properties: ["name": .string("x")])
    let (tiles, metadata) = try Self.tiles([named, byProperty, plain], zooms: 0...2) {
      $0.layerProperty = "kind"
    }
    let z2 = try #require(tiles["2/2/1"])
    #expect(z2.map { $0.name } == ["rivers", "towns", "shapes"])
    let town = try #require(z2.first { $0.name == "towns" }?.features.first)
    // The property that named the layer is left out.
    #expect(town.properties == ["pop": "5"] && town.id == 7)
    #expect(try #require(tiles["0/0/0"]).map { $0.name } == ["towns", "shapes"])
    let json = try #require(metadata["json"])
    #expect(json.contains(#"{"id":"rivers","description":"","minzoom":1,"maxzoom":2,"fields":{}}"#))
    #expect(
      json.contains(
        #"{"id":"towns","description":"","minzoom":0,"maxzoom":2,"fields":{"pop":"Number"}}"#))
    #expect(
      json.contains(
        #"{"id":"shapes","description":"","minzoom":0,"maxzoom":2,"fields":{"name":"String"}}"#))
  }
}
