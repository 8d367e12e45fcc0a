import GeoPipeCore
import GeoPipeSQLite

/// How a result's name matched the query.
public enum MatchKind: String, Sendable, CaseIterable {
  /// The query is the place's name (or its ASCII form), after folding.
  case exact
  /// The query is one of the place's alternate names (an exonym such as "Roma", a former or
  /// local name), after folding.
  case alternate
  /// A name starts with the query ("Frankf" → Frankfurt am Main).
  case prefix
  /// Every word of the query is a word of a name, the last one possibly cut short
  /// ("Janeiro" → Rio de Janeiro).
  case token
  /// A name is one or two edits away ("Amsterdma" → Amsterdam).
  case typo
}

/// A forward geocoding result: a place, admin1 area or country, with its names and how well
/// it matched.
public struct ForwardMatch: Sendable, Hashable {
  /// The gazetteer row: geonameid, kind, name, point, codes and population.
  public var place: Place
  /// The name of the row's admin1 area, when the gazetteer has one.
  public var admin1Name: String?
  /// The name of the row's country, when the gazetteer has one.
  public var countryName: String?
  /// Where an area's point comes from: "own row", "capital" or "most populous place"
  /// ("own row" for places).
  public var pointSource: String
  /// How the name matched.
  public var match: MatchKind
  /// How sure the result is, from 0 to 1 (see `ForwardGeocoder`).
  public var confidence: Double
}

/// Where and how much to search.
public struct SearchOptions: Sendable {
  /// Prefer results near this point (longitude x, latitude y).
  public var focus: Position?
  /// Prefer results in this box (or keep only those, with `restrictToRegion`).
  public var region: BBox?
  /// Drop results outside `region`.
  public var restrictToRegion: Bool
  /// Keep only results in these countries (ISO alpha-2 codes); empty for anywhere.
  public var countries: Set<String>
  /// The most results to return.
  public var limit: Int

  /// Creates options; by default the whole gazetteer, unbiased, ten results.
  public init(
    focus: Position? = nil, region: BBox? = nil, restrictToRegion: Bool = false,
    countries: Set<String> = [], limit: Int = 10
  ) {
    self.focus = focus
    self.region = region
    self.restrictToRegion = restrictToRegion
    self.countries = countries
    self.limit = limit
  }
}

/// Turns place names into gazetteer rows: places, admin1 areas and countries.
///
/// A query is a name, optionally followed by qualifiers after commas or as trailing words
/// (`QueryParser`): "Springfield, IL", "Paris, Texas", "London, Canada", "Portland Oregon".
/// Names are folded (`NameFolding`) and looked up in four kinds of match, strongest first:
/// exact (any name, primary or alternate), prefix, token, typo. The first kind that finds
/// the name anywhere in the gazetteer decides; weaker kinds, typos above all, are never
/// consulted for a name that exists, so a query that is nothing like a name finds nothing.
/// Typos allow one edit for names of 4 to 8 characters and two from 9; shorter names must
/// match exactly or by prefix.
///
/// Qualifiers, `SearchOptions.countries` and a restricting region then keep the candidates
/// that lie where they say (when a qualifier names several areas, as "IL" names Israel and
/// Illinois, in any of them); when none is left there is no result: "Paris, Germany" finds
/// nothing, rather than a German name that starts like Paris or is a typo away from it. The
/// survivors are ordered by importance, bias and match quality (`Ranking`), and each gets a
/// confidence.
///
/// One geocoder owns one connection and its caches; it is not shared across threads.
public final class ForwardGeocoder {
  /// The gazetteer searched.
  public let gazetteer: Gazetteer
  let areas: AreaDirectory
  let typos: TypoMatcher

  /// Prepares to search a gazetteer (reads its countries and admin1 areas).
  public init(gazetteer: Gazetteer) throws {
    self.gazetteer = gazetteer
    areas = try AreaDirectory(database: gazetteer.database)
    typos = TypoMatcher(database: gazetteer.database)
  }

  /// Country names by ISO alpha-2 code.
  public var countryNames: [String: String] { areas.countryNames }

  /// Admin1 names by "CC.code" (`US.IL`).
  public var admin1Names: [String: String] { areas.admin1Names }

  /// Whether the gazetteer has a country with this ISO alpha-2 code.
  public func hasCountry(_ code: String) -> Bool { areas.countryNames[code] != nil }

  /// The best result for a query, or nil.
  public func geocode(_ query: String, options: SearchOptions = SearchOptions()) throws
    -> ForwardMatch?
  {
    var options = options
    options.limit = 1
    return try search(query, options: options).first
  }

  /// The results for a query, best first, at most `options.limit`.
  ///
  /// They are the candidates of the strongest kind of match, followed, when there are fewer
  /// than the limit, by prefix and token matches of the same name (never by typos).
  public func search(_ query: String, options: SearchOptions = SearchOptions()) throws
    -> [ForwardMatch]
  {
    guard options.limit > 0 else { return [] }
    let readings = QueryParser.readings(of: query, areas: areas)
    let scope = Scope(options)
    let ranking = Ranking(focus: options.focus, region: options.region)
    var settled = Set<Int>()
    for tier in Tier.allCases {
      for (k, reading) in readings.enumerated() where !settled.contains(k) {
        let (found, exists) = try candidates(reading.name, tier, scope)
        guard exists else { continue }
        // The name exists: this reading stands or falls by its filters.
        settled.insert(k)
        let kept = found.filter { reading.admits($0.place) }
        guard !kept.isEmpty else {
          if reading.isGuess { continue }
          return []
        }
        var results = rank(kept, tier, ranking)
        var seen = Set(kept.map(\.id))
        var weaker = tier.next
        while results.count < options.limit, let lower = weaker, lower != .typo {
          let more = try candidates(reading.name, lower, scope).inScope.filter {
            reading.admits($0.place) && seen.insert($0.id).inserted
          }
          results += rank(more, lower, ranking)
          weaker = lower.next
        }
        return Array(results.prefix(options.limit))
      }
    }
    return []
  }

  /// Orders the candidates of one kind of match and turns them into results.
  private func rank(_ candidates: [Candidate], _ tier: Tier, _ ranking: Ranking) -> [ForwardMatch] {
    ranking.order(candidates).map { candidate, share in
      let match: MatchKind =
        switch tier {
        case .exact: candidate.isPrimary ? .exact : .alternate
        case .prefix: .prefix
        case .token: .token
        case .typo: .typo
        }
      let confidence = Ranking.baseConfidence(match, distance: candidate.distance) * share
      return ForwardMatch(
        place: candidate.place, admin1Name: areas.admin1Name(of: candidate.place),
        countryName: areas.countryNames[candidate.place.countryCode],
        pointSource: candidate.pointSource, match: match,
        confidence: (confidence * 1000).rounded() / 1000)
    }
  }
}
