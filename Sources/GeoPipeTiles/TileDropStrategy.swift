/// What makes a tile over its ``TileSizeLimits`` fit, as tippecanoe's `--*-as-needed` options
/// do.
///
/// Each zoom below the highest gets a threshold, raised tile by tile until every tile fits,
/// and every tile of the zoom is then cut with the highest threshold any tile needed (the zoom
/// looks the same across tile edges). The highest zoom keeps every feature.
public enum TileDropStrategy: String, CaseIterable, Hashable, Sendable {
  /// Drops the features closest to their neighbour (the smallest gap along the quadkey curve).
  case dropDensest = "drop-densest-as-needed"
  /// Drops a growing fraction of the features, evenly over the map.
  case dropFraction = "drop-fraction-as-needed"
  /// Drops the smallest features: the smallest polygons, the shortest lines, the densest points.
  case dropSmallest = "drop-smallest-as-needed"
  /// Merges the densest features into the feature before them in the tile's layer, when it is
  /// of the same kind (its properties are kept, theirs are not).
  case coalesceDensest = "coalesce-densest-as-needed"
  /// Clusters the points of a zoom as supercluster does, with a radius grown until the tiles
  /// fit: each cluster is one point at its members' centroid, with the properties of its
  /// first member in input order and `clustered`, `point_count` (exact), `sqrt_point_count`
  /// and `point_count_abbreviated` (see ``Tiler``'s clustering).
  case clusterDensest = "cluster-densest-as-needed"

  /// How much of the ratio of the limit to the size is kept at each try (tippecanoe's guesses,
  /// a little under 1 to need fewer tries).
  var retryFactor: Double {
    switch self {
    case .dropFraction: 0.95
    case .dropSmallest: 0.75
    default: 0.80
    }
  }

  /// Whether a feature whose key is `key` is left out under `threshold`.
  func isRemoved(key: Double, threshold: Double) -> Bool {
    self == .dropSmallest ? key <= threshold : key < threshold
  }

  /// The fraction of the features to keep on the next try, after a try that kept `fraction`
  /// and gave a tile with `violation` (tippecanoe's `mingap_fraction`, at most 0.8).
  func nextFraction(_ fraction: Double, after violation: TileSizeViolation) -> Double {
    var ratio = 1.0
    if violation.isOverFeatures {
      ratio = min(ratio, Double(violation.maxFeatures) / Double(max(violation.features, 1)))
    }
    if violation.isOverBytes {
      ratio = min(ratio, Double(violation.maxBytes) / Double(max(violation.bytes, 1)))
    }
    return min(fraction * ratio * retryFactor, 0.8)
  }

  /// The threshold that keeps about `fraction` of the features whose keys are `keys`, above
  /// `existing` (tippecanoe's `choose_mingap`); nil when no key is above it, so that nothing
  /// more can be left out.
  static func threshold(keys: [Double], keeping fraction: Double, above existing: Double)
    -> Double?
  {
    guard !keys.isEmpty else { return nil }
    let sorted = keys.sorted()
    var k = Int(Double(sorted.count - 1) * (1 - max(0, min(fraction, 1))))
    while k + 1 < sorted.count && sorted[k] <= existing { k += 1 }
    return sorted[k] > existing && sorted[k].isFinite ? sorted[k] : nil
  }
}
