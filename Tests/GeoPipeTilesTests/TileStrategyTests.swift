import Foundation
import GeoPipeClustering
import GeoPipeCore
import GeoPipeMercator
import Testing

@testable import GeoPipeTiles

/// The as-needed strategies, point thinning and their counts, on random points around two
/// centres read back from MBTiles.
@Suite struct TileStrategyTests {
  static let count = 3000
  static let maxZoom = 6

  /// Points in two dense clumps and a sparse scatter, each with an integer id.
  static func points() -> [Feature] {
    var random = SplitMix64(seed: 7)
    return (0..<count).map { k in
      let (cx, cy, spread) =
        k % 3 == 0 ? (10.0, 50.0, 0.5) : k % 3 == 1 ? (-70.0, -30.0, 1.0) : (0, 0, 60)
      let x = cx + (random.unit() - 0.5) * spread
      let y = cy + (random.unit() - 0.5) * spread
      return Feature(
        id: .integer(Int64(k)), geometry: .point(Position(x: x, y: y)),
        properties: JSONObject(members: [JSONMember("name", .string("p\(k)"))]))
    }
  }

  static func write(_ configure: (inout TilerOptions) -> Void) throws -> (
    tiles: [String: [UInt8]], metadata: [String: String], summary: TilesetSummary
  ) {
    var options = TilerOptions()
    options.maxZoom = maxZoom
    options.threads = 2
    options.limits = TileSizeLimits(maxFeatures: 400)
    configure(&options)
    let tiler = Tiler(options: options)
    for feature in points() { tiler.add(feature) }
    let path =
      NSTemporaryDirectory()
      + "geopipe-strategy-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).mbtiles"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let summary = try tiler.write(
      to: makeTilesetWriter(path: path), name: "t", attribution: "", description: "")
    let (tiles, metadata) = try readMBTiles(path)
    return (tiles, metadata, summary)
  }

  /// The distinct feature ids of each zoom's tiles and the most features in one tile.
  static func zooms(_ tiles: [String: [UInt8]]) -> [Int: (ids: Set<UInt64>, densest: Int)] {
    var out: [Int: (ids: Set<UInt64>, densest: Int)] = [:]
    for (key, data) in tiles {
      let z = Int(key.split(separator: "/")[0]) ?? -1
      let features = MVTDecoder.decode(data).flatMap(\.features)
      var entry = out[z] ?? ([], 0)
      entry.ids.formUnion(features.compactMap(\.id))
      entry.densest = max(entry.densest, features.count)
      out[z] = entry
    }
    return out
  }

  @Test(arguments: [TileDropStrategy.dropDensest, .dropFraction, .dropSmallest])
  func dropsUntilEveryTileFitsAndCountsWhatItDropped(strategy: TileDropStrategy) throws {
    let (tiles, metadata, summary) = try Self.write { $0.strategy = strategy }
    let zooms = Self.zooms(tiles)
    for z in 0..<Self.maxZoom {
      let zoom = try #require(zooms[z])
      #expect(zoom.densest <= 400, "zoom \(z)")
      #expect(zoom.ids.count + summary.dropped[z, default: 0] == Self.count, "zoom \(z)")
    }
    #expect(summary.dropped[0, default: 0] > 0)
    #expect(summary.oversized.allSatisfy { $0.tile.z == Self.maxZoom })
    // The highest zoom keeps every feature, over the limit or not.
    #expect(zooms[Self.maxZoom]?.ids.count == Self.count)
    #expect(summary.dropped[Self.maxZoom] == nil)
    let json = try #require(metadata["json"])
    #expect(json.contains("\"geopipe\":{\"dropped\":{\"0\":\(summary.dropped[0] ?? -1),"))
  }

  @Test func withoutAStrategyEveryTileKeepsEveryFeatureAndIsReported() throws {
    let (tiles, _, summary) = try Self.write { _ in }
    let zooms = Self.zooms(tiles)
    for z in 0...Self.maxZoom { #expect(zooms[z]?.ids.count == Self.count) }
    #expect(summary.dropped.isEmpty)
    let over = try #require(summary.oversized.first)
    #expect(over.tile.z == 0 && over.violation.features == Self.count)
    let disabled = try Self.write { $0.limits.isDisabled = true }
    #expect(disabled.summary.oversized.isEmpty)
  }

  @Test func coalescingMergesPointsIntoMultipoints() throws {
    let (tiles, _, summary) = try Self.write { $0.strategy = .coalesceDensest }
    let zooms = Self.zooms(tiles)
    for z in 0..<Self.maxZoom {
      #expect((zooms[z]?.densest ?? .max) <= 400, "zoom \(z)")
      #expect((zooms[z]?.ids.count ?? 0) + summary.coalesced[z, default: 0] == Self.count)
    }
    // Every point is still drawn at zoom 0: the tile's points add up to all of them.
    let points = MVTDecoder.decode(try #require(tiles["0/0/0"])).flatMap(\.features)
      .reduce(0) { $0 + $1.points.count }
    #expect(points == Self.count)
  }

  @Test func clusteringFitsEveryTileWithExactCountsAtSuperclustersCentroids() throws {
    let (tiles, metadata, summary) = try Self.write { $0.strategy = .clusterDensest }
    let zooms = Self.zooms(tiles)
    for z in 0..<Self.maxZoom {
      var total = 0
      var seen = Set<UInt64>()
      for (key, data) in tiles where key.hasPrefix("\(z)/") {
        let features = MVTDecoder.decode(data).flatMap(\.features)
        #expect(features.count <= 400, "tile \(key)")
        for feature in features where seen.insert(feature.id ?? .max).inserted {
          total += Int(feature.properties["point_count"] ?? "1") ?? -1
        }
      }
      // Each point is in exactly one cluster or stands alone.
      #expect(total == Self.count, "zoom \(z)")
      #expect((zooms[z]?.ids.count ?? 0) + summary.clustered[z, default: 0] == Self.count)
    }
    #expect(summary.dropped.isEmpty)
    #expect(zooms[Self.maxZoom]?.ids.count == Self.count)
    let json = try #require(metadata["json"])
    #expect(json.contains("\"clustered\":{\"0\":\(summary.clustered[0] ?? -1),"))

    // Zoom 0's clusters are supercluster's at the radius the note gives, each in the place of
    // its first member, with its properties.
    let radius = try #require(summary.clusterRadius[0])
    var options = ClusterOptions()
    (options.minZoom, options.maxZoom, options.radius, options.extent) = (0, 0, radius, 256)
    let points = Self.points()
    let index = ClusterIndex(
      coordinates: points.map { feature in
        guard case .point(let p)? = feature.geometry else { return nil }
        return (
          WebMercator.longitude(x: WebMercator.x(longitude: p.x)),
          WebMercator.latitude(y: WebMercator.y(latitude: p.y))
        )
      }, options: options)
    let decoded = MVTDecoder.decode(try #require(tiles["0/0/0"])).flatMap(\.features)
    let byID = Dictionary(decoded.map { ($0.id ?? .max, $0) }, uniquingKeysWith: { a, _ in a })
    var clusters = 0
    for case .cluster(let id, let count, let longitude, let latitude) in index.items(atZoom: 0) {
      let first = try #require(index.leaves(of: id).min())
      let feature = try #require(byID[UInt64(first)])
      #expect(feature.properties["point_count"] == "\(count)")
      #expect(feature.properties["clustered"] == "true")
      #expect(feature.properties["name"] == "p\(first)")
      let x = Int64((WebMercator.x(longitude: longitude) * 4096).rounded())
      let y = Int64((WebMercator.y(latitude: latitude) * 4096).rounded())
      #expect(feature.points.map { [$0.0, $0.1] } == [[x, y]])
      clusters += 1
    }
    #expect(clusters > 0)
  }

  @Test func clusterRadiusSearchGrowsUntilTilesFitThenNarrows() throws {
    var search = ClusterRadiusSearch()
    #expect(search.radius == 0)
    // 10,000 features in the densest tile, four times its limit: about twice their spacing.
    search.tried(0, fits: false, worst: 4, densest: 10000)
    let first = try #require(search.radius)
    #expect(abs(first - 2.56 * (4 / Double.pi).squareRoot()) < 0.011)
    search.tried(first, fits: false, worst: 1.5, densest: 7000)
    let second = try #require(search.radius)
    #expect(second > first * 1.24)
    search.tried(second, fits: true, worst: 1, densest: 300)
    let middle = try #require(search.radius)
    #expect(middle > first && middle < second)
    search.tried(middle, fits: true, worst: 1, densest: 300)
    // Refined at most three times.
    while let next = search.radius { search.tried(next, fits: true, worst: 1, densest: 300) }
    #expect(search.radius == nil)
  }

  @Test func thinningKeepsOnePointInRateToTheZoomsBelowTheBase() throws {
    let (tiles, _, summary) = try Self.write {
      $0.thinning = PointThinning(baseZoom: 4, rate: 2)
      $0.limits.isDisabled = true
    }
    let zooms = Self.zooms(tiles)
    for z in 0...Self.maxZoom {
      let kept = zooms[z]?.ids.count ?? 0
      #expect(kept + summary.dropped[z, default: 0] == Self.count)
      let expected = Double(Self.count) / pow(2, Double(max(0, 4 - z)))
      #expect(abs(Double(kept) - expected) <= 2, "zoom \(z): \(kept)")
    }
  }

  /// tippecanoe's calc_feature_minzoom, worked by hand for base zoom 2 and rate 2.
  @Test func thinningFollowsTippecanoesSequence() {
    #expect(PointThinning.minZooms(count: 8, baseZoom: 2, rate: 2) == [0, 1, 2, 0, 2, 1, 2, 0])
    #expect(PointThinning.minZooms(count: 3, baseZoom: 0, rate: 2) == [0, 0, 0])
  }

  @Test func thresholdKeepsTheAskedFractionAboveTheLastOne() {
    let keys = (1...10).map(Double.init)
    #expect(TileDropStrategy.threshold(keys: keys, keeping: 0.5, above: -.infinity) == 5)
    #expect(TileDropStrategy.threshold(keys: keys, keeping: 0.9, above: 5) == 6)
    #expect(TileDropStrategy.threshold(keys: [0, 0, 0], keeping: 0.5, above: 0) == nil)
    #expect(TileDropStrategy.dropDensest.isRemoved(key: 4, threshold: 5))
    #expect(!TileDropStrategy.dropDensest.isRemoved(key: 5, threshold: 5))
    #expect(TileDropStrategy.dropSmallest.isRemoved(key: 5, threshold: 5))
  }

  @Test func mergedCommandsContinueFromTheHeldFeaturesCursor() {
    var merger = FeatureMerger()
    var a = CommandWriter()
    a.moveTo([10, 10, 20, 30])
    var b = CommandWriter()
    b.moveTo([5, 7])
    let replaced = merger.hold(.init(id: 1, kind: 1, tags: [], commands: a.values), layer: 0)
    #expect(replaced == nil)
    let merged = merger.merge(b.values, kind: 1, layer: 0)
    let mismatched = merger.merge(b.values, kind: 2, layer: 0)
    #expect(merged && !mismatched)
    var all = CommandWriter()
    all.moveTo([10, 10, 20, 30, 5, 7])
    #expect(merger.remaining.first?.feature.commands == all.values)
  }
}
