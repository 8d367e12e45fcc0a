import Foundation
import GeoPipeClustering
import GeoPipeMercator

extension Tiler {
  /// The widest cluster radius tried, in pixels of a 256-pixel tile: a tile's width.
  static let widestClusterRadius = 256.0

  /// Writes zoom `z` with `cluster-densest-as-needed`.
  ///
  /// The zoom is encoded as it is first. While a tile is over the limits and holds points, the
  /// zoom's single points are clustered, layer by layer, as supercluster clusters one zoom
  /// level (``ClusterIndex`` with this zoom as its only level), with a radius that starts
  /// near the spacing of the densest tile's features and grows with how far over the worst
  /// tile is; then the zoom is encoded again. Every tile of the zoom is cut with the same
  /// radius, so clusters agree across tile edges, and counts are exact: a cluster's
  /// `point_count` is the number of points it stands for. Lines, polygons and multipoints are
  /// left as they are, so a tile that they alone fill stays over its limits and is reported.
  func writeClusteredZoom(_ z: Int, pieces: TilePieces, to writer: any TilesetWriter) throws {
    var search = ClusterRadiusSearch()
    var best: ClusteredZoom?
    while let radius = search.radius {
      let clustering = radius > 0 ? cluster(zoom: z, radius: radius) : (saved: [], merged: 0)
      defer { for (k, stored) in clustering.saved { features[k] = stored } }
      let (placements, runs) = self.placements(z, pieces: pieces)
      guard !runs.isEmpty else { return }
      let shared = SharedState(tiler: self, placements: placements, pieces: pieces)
      let tiles = try encode(
        Array(runs.indices), runs: runs, z: z, shared: shared, strategy: nil
      ) { _ in -.infinity }
      var worst = 1.0
      var densest = 0
      var overTilesHavePoints = false
      for (k, tile) in tiles.enumerated() {
        guard let tile,
          let violation = options.limits.violation(bytes: tile.bytes.count, features: tile.count)
        else { continue }
        worst = max(
          worst, Double(violation.features) / Double(max(violation.maxFeatures, 1)),
          Double(violation.bytes) / Double(max(violation.maxBytes, 1)))
        densest = max(densest, tile.count)
        overTilesHavePoints =
          overTilesHavePoints
          || runs[k].contains { p in
            let feature = features[Int(placements[p].feature)]
            return placements[p].piece < 0 && feature.points == nil
          }
      }
      let fits = worst <= 1
      if fits || !overTilesHavePoints || radius >= Self.widestClusterRadius || best == nil {
        best = ClusteredZoom(
          tiles: tiles, placements: placements, runs: runs, radius: radius,
          merged: clustering.merged)
      }
      search.tried(radius, fits: fits || !overTilesHavePoints, worst: worst, densest: densest)
    }
    guard let best else { return }
    for (k, tile) in best.tiles.enumerated() {
      try store(tile, run: best.runs[k], z: z, placements: best.placements, to: writer)
    }
    if best.merged > 0 {
      summary.clustered[z] = best.merged
      summary.clusterRadius[z] = best.radius
    }
    progress?(
      TilerProgress(
        zoom: z, zoomTilesWritten: best.runs.count, zoomTiles: best.runs.count,
        summary: summary))
  }

  /// A zoom encoded with one cluster radius.
  private struct ClusteredZoom {
    var tiles: [EncodedTile?]
    var placements: [Placement]
    var runs: [Range<Int>]
    var radius: Double
    var merged: Int
  }

  /// Clusters the single points of zoom `z` with `radius` (pixels of a 256-pixel tile).
  ///
  /// Layer by layer, each cluster's first member in input order takes the cluster's place,
  /// position and counts; its other members are hidden at this zoom. Returns the features as
  /// they were, to be put back, and the points merged into clusters.
  private func cluster(zoom z: Int, radius: Double) -> (saved: [(Int, Stored)], merged: Int) {
    var byLayer: [Int32: [Int]] = [:]
    for (index, feature) in features.enumerated()
    where !feature.isShape && feature.points == nil && feature.minZoom <= z
      && z <= feature.maxZoom
    {
      byLayer[feature.layer, default: []].append(index)
    }
    var clusterOptions = ClusterOptions()
    clusterOptions.minZoom = z
    clusterOptions.maxZoom = z
    clusterOptions.radius = radius
    clusterOptions.extent = WebMercator.tileSize
    var saved: [(Int, Stored)] = []
    var merged = 0
    for layer in byLayer.keys.sorted() {
      guard let members = byLayer[layer] else { continue }
      let coordinates = members.map { k -> (longitude: Double, latitude: Double)? in
        (WebMercator.longitude(x: features[k].x), WebMercator.latitude(y: features[k].y))
      }
      let index = ClusterIndex(coordinates: coordinates, options: clusterOptions)
      for case .cluster(let id, let count, let longitude, let latitude) in index.items(atZoom: z) {
        guard let leaves = try? index.leaves(of: id), let first = leaves.min() else { continue }
        for leaf in leaves where leaf != first {
          saved.append((members[leaf], features[members[leaf]]))
          features[members[leaf]].minZoom = Int.max
        }
        let seed = members[first]
        saved.append((seed, features[seed]))
        features[seed].x = WebMercator.x(longitude: longitude)
        features[seed].y = WebMercator.y(latitude: latitude)
        features[seed].tags = clusterTags(features[seed].tags, count: leaves.count, layer: layer)
        merged += leaves.count - 1
        assert(leaves.count == count)
      }
    }
    return (saved, merged)
  }

  /// A cluster's tags: its first member's, with tippecanoe's cluster attributes in place of
  /// any of the same name.
  private func clusterTags(_ tags: [Int32], count: Int, layer: Int32) -> [Int32] {
    let abbreviated = ClusterIndex.abbreviated(count)
    let added: [(String, TileValue)] = [
      ("clustered", .bool(true)),
      ("point_count", .uint(UInt64(count))),
      ("sqrt_point_count", .double((Double(count).squareRoot() * 100).rounded() / 100)),
      ("point_count_abbreviated", abbreviated.text.map { .string($0) } ?? .uint(UInt64(count))),
    ]
    let names = Set(added.map(\.0))
    var result: [Int32] = []
    var k = 0
    while k + 1 < tags.count {
      if !names.contains(keyNames[Int(tags[k])]) { result += [tags[k], tags[k + 1]] }
      k += 2
    }
    for (name, value) in added {
      let (key, number) = intern(name, value, layer: layer)
      result += [key, number]
    }
    return result
  }
}

/// The cluster radii `cluster-densest-as-needed` tries at a zoom, in pixels of a 256-pixel
/// tile: none first; while the tiles do not fit, a radius near the spacing of the densest
/// tile's features, scaled so that clusters of that many would bring it to its limits, then
/// grown by the square root of how far over the worst tile still is (at least by a quarter,
/// up to ``Tiler/widestClusterRadius``); once one fits, halfway (geometrically) between the
/// widest that did not and the narrowest that did, a few times, so that clusters are no
/// bigger than needed.
struct ClusterRadiusSearch {
  /// The radius to try next; nil when the search is over.
  private(set) var radius: Double? = 0
  private var widestOver = 0.0
  private var narrowestFitting: Double?
  private var refinements = 0
  /// Refining stops after this many tries or when the bounds are this close.
  static let maxRefinements = 3
  static let closeEnough = 1.2

  mutating func tried(_ tried: Double, fits: Bool, worst: Double, densest: Int) {
    if fits {
      narrowestFitting = min(narrowestFitting ?? tried, tried)
    } else {
      widestOver = max(widestOver, tried)
    }
    guard let fitting = narrowestFitting else {
      guard tried < Tiler.widestClusterRadius else {
        radius = nil
        return
      }
      let next: Double
      if tried == 0 {
        let spacing = 256 / Double(max(densest, 1)).squareRoot()
        next = max(spacing * (worst / Double.pi).squareRoot(), 0.5)
      } else {
        next = tried * max(1.25, min(4, worst.squareRoot() * 1.1))
      }
      radius = Self.rounded(min(next, Tiler.widestClusterRadius))
      return
    }
    guard fitting > 0, refinements < Self.maxRefinements,
      widestOver == 0 ? fitting > 0.5 : fitting / widestOver > Self.closeEnough
    else {
      radius = nil
      return
    }
    refinements += 1
    let middle = Self.rounded(widestOver == 0 ? fitting / 2 : (fitting * widestOver).squareRoot())
    radius = middle > widestOver && middle < fitting ? middle : nil
  }

  /// In hundredths of a pixel, as the note on stderr shows it.
  private static func rounded(_ radius: Double) -> Double { (radius * 100).rounded(.up) / 100 }
}
