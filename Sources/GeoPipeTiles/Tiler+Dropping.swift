import Foundation
import GeoPipeCore

extension Tiler {
  /// Guesses the highest zoom as tippecanoe's `-zg` does and makes it the tileset's.
  ///
  /// The zoom is never below the lowest zoom. Nil, changing nothing, without two distinct
  /// feature locations or any line or polygon vertices. Call after every feature is added.
  public func guessMaxZoom() -> MaxZoomGuess? {
    let order = quadkeyOrder()
    spacingOrder = order
    guard var guess = guessedMaxZoom(order: order) else { return nil }
    guess.zoom = max(guess.zoom, options.minZoom)
    options.maxZoom = guess.zoom
    return guess
  }

  /// The base zoom and drop rate that point thinning uses, once worked out by ``write``.
  public var settledThinning: (baseZoom: Int, rate: Double)? { thinningUsed }

  /// Works out what the strategy and point thinning need before the first zoom: the features'
  /// quadkey order, their keys, and the zoom each thinned point first appears at.
  func prepareDropping() {
    guard options.strategy != nil || options.thinning != nil else { return }
    let order = spacingOrder ?? quadkeyOrder()
    spacingOrder = nil
    let gaps = gaps(order: order)
    if let thinning = options.thinning { thin(thinning, order: order) }
    switch options.strategy {
    case .dropFraction?:
      dropKeys = features.indices.map { k in
        var random = SplitMix64(seed: UInt64(k))
        return random.unit()
      }
    case .dropSmallest?:
      dropKeys = features.indices.map { features[$0].isShape ? extents[$0] : gaps[$0] }
    case nil, .clusterDensest?: break
    default: dropKeys = gaps
    }
    extents = []
  }

  /// Raises each point's lowest zoom as thinning says, counting the points each zoom loses.
  private func thin(_ thinning: PointThinning, order: [Int32]) {
    let points = order.filter { !features[Int($0)].isShape }
    let settled = thinning.settled(
      densest: densestTileCounts(points), maxZoom: options.maxZoom)
    thinningUsed = settled
    let zooms = PointThinning.minZooms(
      count: points.count, baseZoom: settled.baseZoom, rate: settled.rate)
    for (feature, zoom) in zip(points, zooms) where zoom > features[Int(feature)].minZoom {
      let low = max(features[Int(feature)].minZoom, options.minZoom)
      let high = min(zoom, features[Int(feature)].maxZoom + 1, options.maxZoom + 1)
      for z in low..<max(low, high) {
        summary.dropped[z, default: 0] += 1
        summary.thinned[z, default: 0] += 1
      }
      features[Int(feature)].minZoom = zoom
    }
  }

  /// Per zoom from 0 to 24, the points in the densest tile; `points` in quadkey order, where
  /// each tile's points are one run.
  private func densestTileCounts(_ points: [Int32]) -> [Int] {
    (0...24).map { z in
      var densest = 0
      var run = 0
      var previous: UInt64?
      for feature in points {
        let tile = z == 0 ? 0 : features[Int(feature)].index >> (64 - 2 * z)
        run = tile == previous ? run + 1 : 1
        previous = tile
        densest = max(densest, run)
      }
      return densest
    }
  }

  /// tippecanoe's size of a line or polygon for `drop-smallest-as-needed`, in 2^32-grid units
  /// squared: a polygon's area, a circle with a line as its diameter; 0 for points (whose
  /// gaps stand in).
  static func extent(_ geometry: WorldGeometry) -> Double {
    let scale = 4_294_967_296.0
    switch geometry.kind {
    case .point: return 0
    case .line:
      var length = 0.0
      for part in geometry.parts {
        var k = 2
        while k + 1 < part.count {
          length += hypot(part[k] - part[k - 2], part[k + 1] - part[k - 1]) * scale
          k += 2
        }
      }
      return Double.pi * (length / 2) * (length / 2)
    case .polygon:
      var area = 0.0
      for ring in geometry.parts {
        var k = 0
        while k + 3 < ring.count {
          area += ring[k] * ring[k + 3] - ring[k + 2] * ring[k + 1]
          k += 2
        }
      }
      // Exterior rings and holes wind opposite ways, so the sum is the area less the holes.
      return abs(area / 2) * scale * scale
    }
  }
}
