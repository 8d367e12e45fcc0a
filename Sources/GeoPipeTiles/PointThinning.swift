import Foundation

/// tippecanoe's point thinning below a base zoom (`-B` and `-r`): at each zoom `z` under the
/// base zoom one point in `rate^(base - z)` is kept, counted along the quadkey curve so that
/// the points kept are spread over the map; at the base zoom and above every point is kept.
public struct PointThinning: Hashable, Sendable {
  /// The base zoom, or nil for the highest zoom.
  public var baseZoom: Int?
  /// Whether the base zoom is guessed (`-B g`): the lowest zoom whose densest tile has fewer
  /// than ``densestTileFeatures`` points.
  public var guessesBaseZoom = false
  /// The drop rate (tippecanoe's default 2.5).
  public var rate = 2.5
  /// Whether the rate is guessed (`-r g`): the rate that keeps at most
  /// ``densestTileFeatures`` points in the densest tile of each zoom.
  public var guessesRate = false

  /// The points that the guesses allow in a zoom's densest tile (tippecanoe's 50,000).
  public static let densestTileFeatures = 50_000

  /// Creates thinning with tippecanoe's defaults: the highest zoom as base zoom, rate 2.5.
  public init(
    baseZoom: Int? = nil, guessesBaseZoom: Bool = false, rate: Double = 2.5,
    guessesRate: Bool = false
  ) {
    self.baseZoom = baseZoom
    self.guessesBaseZoom = guessesBaseZoom
    self.rate = rate
    self.guessesRate = guessesRate
  }

  /// The base zoom and rate to use, the guesses worked out from `densest` (per zoom from 0,
  /// the points in the densest tile) as tippecanoe's main.cpp does.
  func settled(densest: [Int], maxZoom: Int) -> (baseZoom: Int, rate: Double) {
    var base = baseZoom ?? maxZoom
    var rate = self.rate
    let limit = Double(Self.densestTileFeatures)
    if guessesBaseZoom {
      base = densest.firstIndex { Double($0) < limit } ?? densest.count
      if base > maxZoom {
        if guessesRate {
          rate =
            maxZoom == 0
            ? 2.5
            : Self.rounded(
              exp(log(Double(densest[0]) / Double(max(densest[maxZoom], 1))) / Double(maxZoom)))
        }
        base = 0
        for z in 0...maxZoom where rate > 1 {
          let more = log(Double(densest[z]) / limit) / log(rate)
          if more + Double(z) > Double(base) { base = Int((more + Double(z)).rounded(.up)) }
        }
      }
    } else if guessesRate {
      rate = 1
      for z in stride(from: base - 1, through: 0, by: -1) where z < densest.count {
        var interval = exp(log(rate) * Double(base - z))
        if Double(densest[z]) / interval >= limit {
          interval = Double(densest[z]) / limit
          rate = Self.rounded(exp(log(interval) / Double(base - z)))
        }
      }
    }
    return (base, rate)
  }

  /// Each point's lowest zoom, given in quadkey order (tippecanoe's `calc_feature_minzoom`).
  static func minZooms(count: Int, baseZoom: Int, rate: Double) -> [Int] {
    guard baseZoom > 0, rate > 1 else { return Array(repeating: 0, count: count) }
    let intervals = (0..<baseZoom).map { exp(log(rate) * Double(baseZoom - $0)) }
    var sequence = [Double](repeating: 0, count: baseZoom)
    var zooms = [Int](repeating: 0, count: count)
    for k in 0..<count {
      for z in 0..<baseZoom { sequence[z] += 1 }
      var zoom = 0
      for z in stride(from: baseZoom - 1, through: 0, by: -1) {
        if sequence[z] < 0 {
          zoom = z + 1
          break
        }
        sequence[z] -= intervals[z]
      }
      zooms[k] = zoom
    }
    return zooms
  }

  private static func rounded(_ rate: Double) -> Double { (rate * 100_000).rounded() / 100_000 }
}
