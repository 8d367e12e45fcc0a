import Foundation
import GeoPipeCore

/// How forward geocoding orders the candidates of one kind of match and how sure it is of
/// the first.
///
/// The kind of match decides first: exact (any name, primary or alternate) > prefix > token >
/// typo. Within a kind, candidates are ordered by a score in decimal orders of magnitude:
///
///     score = log10(1 + population)         importance: areas count their own population
///           − 0.3 if only an alternate name matched
///           − 1.5 × edit distance           typos only
///           + 2 × typed / name length       prefix and token matches: "San Franc" is San
///                                           Francisco rather than San Francisco de Quito
///           + 3 × S / (S + d)               with a focus or region: d km away, S its scale
///
/// so a place at the focus counts as if 1,000 times more populous, one S away 30 times,
/// and one far away hardly gains. d is the great-circle distance to the focus point, or, with
/// only a region, to the region box (0 inside it); S is a quarter of the region's diagonal
/// (at least 25 km) when there is a region, else 100 km. An admin1 area ranks just below a
/// matching place that is its own or in its country with a tenth of its population or more
/// ("Tokyo", "New York", "Buenos Aires" are the cities). Ties go to the lower geonameid.
///
/// Confidence is the match kind's base (exact 1, alternate 0.95, prefix 0.8, token 0.7, typo
/// 0.7 − 0.15 per edit) times the candidate's share of its kind's weight, Σ 10^score (an
/// area that yields to a city does not count against it): a lone or dominant candidate
/// keeps its base, one of nine Springfields of similar size gets about a ninth of it.
struct Ranking: Sendable {
  /// The score a candidate at distance 0 gains from a focus or region.
  static let biasWeight = 3.0
  /// The scale of a focus point's pull in km.
  static let focusScale = 100.0
  /// The smallest scale of a region's pull in km.
  static let minimumRegionScale = 25.0
  /// What matching only an alternate name costs.
  static let alternatePenalty = 0.3
  /// What typing all of a name is worth in a prefix or token match.
  static let completionWeight = 2.0
  /// What each edit of a typo costs.
  static let typoPenalty = 1.5

  private let focus: Position?
  private let region: BBox?
  private let scale: Double

  /// A ranking for a search biased toward a focus point and/or a region (neither: no bias).
  init(focus: Position?, region: BBox?) {
    self.focus = focus
    self.region = region
    if let region {
      let diagonal = Self.distance(
        from: (region.south, region.west), to: (region.north, Self.eastOf(region)))
      scale = max(Self.minimumRegionScale, diagonal / 4)
    } else {
      scale = Self.focusScale
    }
  }

  /// The score of a candidate (see the type's discussion).
  func score(_ candidate: Candidate) -> Double {
    var score = log10(1 + Double(max(0, candidate.place.population)))
    if !candidate.isPrimary { score -= Self.alternatePenalty }
    score -= Self.typoPenalty * Double(candidate.distance)
    score += Self.completionWeight * candidate.completion
    return score + bias(latitude: candidate.place.latitude, longitude: candidate.place.longitude)
  }

  /// The candidates of one kind of match, best first, each with its share of the kind's
  /// weight.
  func order(_ candidates: [Candidate]) -> [(candidate: Candidate, share: Double)] {
    var scores = candidates.map(score)
    // An admin1 area yields to a place that matched as well and is its own ("Tokyo") or in
    // its country with a tenth of its population or more ("Buenos Aires", whose city is not
    // in the province): its weight then counts for that place rather than against it.
    var yields = [Bool](repeating: false, count: candidates.count)
    for (k, area) in candidates.enumerated() where area.place.kind == .admin1 {
      let places = candidates.indices.filter {
        let place = candidates[$0].place
        return place.kind == .place && place.countryCode == area.place.countryCode
          && (place.admin1Code == area.place.admin1Code
            || place.population >= area.place.population / 10)
      }
      guard let best = places.map({ scores[$0] }).max() else { continue }
      scores[k] = min(scores[k], best - 0.01)
      yields[k] = true
    }
    let shares = Self.shares(scores)
    let merged = Self.shares(scores.indices.map { yields[$0] ? -Double.infinity : scores[$0] })
    return candidates.indices.sorted { a, b in
      if scores[a] != scores[b] { return scores[a] > scores[b] }
      let x = candidates[a].place
      let y = candidates[b].place
      if x.geonameid != y.geonameid { return x.geonameid < y.geonameid }
      return candidates[a].id < candidates[b].id
    }
    .map { k in (candidates[k], yields[k] ? shares[k] : merged[k]) }
  }

  /// What being near the focus or in the region adds.
  func bias(latitude: Double, longitude: Double) -> Double {
    let d: Double
    if let focus {
      d = Self.distance(from: (latitude, longitude), to: (focus.y, focus.x))
    } else if let region {
      d = Self.distance(from: (latitude, longitude), toBox: region)
    } else {
      return 0
    }
    return Self.biasWeight * scale / (scale + d)
  }

  /// The base confidence of a kind of match.
  static func baseConfidence(_ match: MatchKind, distance: Int) -> Double {
    switch match {
    case .exact: 1
    case .alternate: 0.95
    case .prefix: 0.8
    case .token: 0.7
    case .typo: 0.7 - 0.15 * Double(distance)
    }
  }

  /// Each score's share of the total weight Σ 10^score (computed stably from the largest).
  static func shares(_ scores: [Double]) -> [Double] {
    guard let top = scores.max() else { return [] }
    let weights = scores.map { pow(10, $0 - top) }
    let total = weights.reduce(0, +)
    return weights.map { $0 / total }
  }

  /// The great-circle distance in km between two (latitude, longitude) points.
  static func distance(from a: (Double, Double), to b: (Double, Double)) -> Double {
    Haversine.distance(a.0, a.1, b.0, b.1) / 1000
  }

  /// The distance in km from a point to the nearest point of a box (0 inside), the box's
  /// edges taken as lines of latitude and longitude; honours antimeridian crossing.
  static func distance(from point: (Double, Double), toBox box: BBox) -> Double {
    if box.contains(x: point.1, y: point.0) { return 0 }
    let latitude = min(max(point.0, box.south), box.north)
    let inLongitude = box.contains(x: point.1, y: latitude)
    let longitude =
      inLongitude
      ? point.1
      : (angle(point.1, box.west) <= angle(point.1, box.east) ? box.west : box.east)
    return distance(from: point, to: (latitude, longitude))
  }

  /// The east edge unwrapped past 180 when the box crosses the antimeridian.
  private static func eastOf(_ box: BBox) -> Double {
    box.crossesAntimeridian ? box.east + 360 : box.east
  }

  /// The absolute difference of two longitudes in degrees, the short way round.
  private static func angle(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
  }
}
