import GeoPipeCore
import GeoPipeSQLite

/// The kinds of match, strongest first.
enum Tier: Int, CaseIterable {
  case exact, prefix, token, typo

  /// The next weaker kind.
  var next: Tier? { Tier(rawValue: rawValue + 1) }
}

/// A gazetteer row that a name matched.
struct Candidate {
  /// The row's id in `places`.
  var id: Int64
  var place: Place
  var pointSource: String
  /// Whether the matching name is the row's name or its ASCII form.
  var isPrimary: Bool
  /// Edits between the query and the name (typos only).
  var distance: Int
  /// How much of the name a prefix or token match typed: the query's length over the
  /// shortest matching name's (0 for other matches).
  var completion: Double
}

/// Where results may lie: in the options' countries and, when restricting, in the region.
struct Scope {
  var countries: Set<String>
  var box: BBox?

  init(_ options: SearchOptions) {
    countries = options.countries
    box = options.restrictToRegion ? options.region : nil
  }

  /// Whether the scope is the whole gazetteer.
  var isEverywhere: Bool { countries.isEmpty && box == nil }

  /// Whether a row lies in the scope.
  func admits(_ place: Place) -> Bool {
    (countries.isEmpty || countries.contains(place.countryCode))
      && (box?.contains(x: place.longitude, y: place.latitude) ?? true)
  }

  /// The scope as an SQL condition on `p`, whose parameters ?3 to ?8 are `parameters`.
  static let condition = """
    (?3 = '' OR instr(?3, ',' || p.country_code || ',') > 0)
    AND (?4 = 0 OR (p.latitude BETWEEN ?5 AND ?6
      AND CASE WHEN ?7 <= ?8 THEN p.longitude BETWEEN ?7 AND ?8
        ELSE p.longitude >= ?7 OR p.longitude <= ?8 END))
    """

  /// The values of `condition`'s parameters: the countries as ",CA,US,", then the box.
  var parameters: [SQLiteValue] {
    let codes = countries.isEmpty ? "" : "," + countries.sorted().joined(separator: ",") + ","
    guard let box else { return [.text(codes), .integer(0), .null, .null, .null, .null] }
    return [
      .text(codes), .integer(1), .real(box.south), .real(box.north), .real(box.west),
      .real(box.east),
    ]
  }
}

extension ForwardGeocoder {
  /// The most rows a prefix or token match considers (the most populous first).
  static let broadMatchLimit = 2000

  private static let columns = """
    p.id, p.kind, p.geonameid, p.name, p.latitude, p.longitude, p.feature_class,
    p.feature_code, p.country_code, p.admin1_code, p.population, p.point_source
    """

  /// The rows in scope whose names match `name` in one kind of match, and whether any row at
  /// all, in scope or not, matches so.
  func candidates(_ name: String, _ tier: Tier, _ scope: Scope) throws
    -> (inScope: [Candidate], exists: Bool)
  {
    guard !name.isEmpty else { return ([], false) }
    let all: [Candidate]
    switch tier {
    case .exact: all = try exactMatches(name)
    case .typo: all = try typoMatches(name)
    case .prefix, .token:
      // Broad matches are cut at the most populous rows, so the scope is applied first.
      let found = try broadMatches(name, tier, scope)
      guard found.isEmpty, !scope.isEverywhere else { return (found, !found.isEmpty) }
      return ([], try !broadMatches(name, tier, Scope(SearchOptions())).isEmpty)
    }
    return (all.filter { scope.admits($0.place) }, !all.isEmpty)
  }

  private func exactMatches(_ name: String) throws -> [Candidate] {
    let statement = try gazetteer.database.statement(
      """
      SELECT n.is_primary, \(Self.columns)
      FROM names n JOIN places p ON p.id = n.place_id WHERE n.folded = ?1
      """)
    try statement.bind(.text(name))
    var found = try Self.read(statement)
    if let iso = areas.aliasCountry(named: name),
      !found.contains(where: { $0.place.kind == .country })
    {
      let country = try gazetteer.database.statement(
        "SELECT 0, \(Self.columns) FROM places p WHERE p.kind = 'country' AND p.country_code = ?1"
      )
      try country.bind(.text(iso))
      found += try Self.read(country)
    }
    return found
  }

  /// Prefix matches (names that start with `name`, of three characters or more) or token
  /// matches (names holding every word of `name`, by FTS5 `names_fts`; the last word as a
  /// prefix when it has three characters or more), the most populous places first.
  private func broadMatches(_ name: String, _ tier: Tier, _ scope: Scope) throws -> [Candidate] {
    let statement: SQLiteStatement
    if tier == .prefix {
      guard name.count >= 3 else { return [] }
      statement = try gazetteer.database.statement(
        """
        SELECT max(n.is_primary), \(Self.columns), min(length(n.folded))
        FROM names n JOIN places p ON p.id = n.place_id
        WHERE n.folded > ?1 AND n.folded < ?2 AND \(Scope.condition)
        GROUP BY p.id ORDER BY p.population DESC LIMIT \(Self.broadMatchLimit)
        """)
      // Every text that starts with `name` sorts below `name` + U+10FFFF, the last scalar.
      try statement.bind([.text(name), .text(name + "\u{10FFFF}")] + scope.parameters)
    } else {
      let words = name.split(separator: " ")
      guard let last = words.last else { return [] }
      var expression = words.dropLast().map { "\"\($0)\"" }
      expression.append(last.count >= 3 ? "\"\(last)\"*" : "\"\(last)\"")
      statement = try gazetteer.database.statement(
        """
        SELECT max(n.is_primary), \(Self.columns), min(length(n.folded))
        FROM names_fts f JOIN names n ON n.id = f.rowid JOIN places p ON p.id = n.place_id
        WHERE names_fts MATCH ?1 AND \(Scope.condition)
        GROUP BY p.id ORDER BY p.population DESC LIMIT \(Self.broadMatchLimit)
        """)
      // ?2 is unused here, so that the scope's parameters keep their numbers.
      try statement.bind([.text(expression.joined(separator: " ")), .null] + scope.parameters)
    }
    return try Self.read(statement, completing: name)
  }

  /// Names within one edit (4 to 8 characters) or two (9 or more) of `name`.
  private func typoMatches(_ name: String) throws -> [Candidate] {
    let length = name.unicodeScalars.count
    guard length >= 4 else { return [] }
    let names = try typos.matches(name, maxDistance: length <= 8 ? 1 : 2)
    let statement = try gazetteer.database.statement(
      """
      SELECT n.is_primary, \(Self.columns)
      FROM names n JOIN places p ON p.id = n.place_id WHERE n.id = ?1
      """)
    var best: [Int64: Candidate] = [:]
    for (id, distance) in names {
      statement.reset()
      try statement.bind(.integer(id))
      for var candidate in try Self.read(statement) {
        candidate.distance = distance
        if let other = best[candidate.id],
          (other.distance, other.isPrimary ? 0 : 1) <= (distance, candidate.isPrimary ? 0 : 1)
        {
          continue
        }
        best[candidate.id] = candidate
      }
    }
    return Array(best.values)
  }

  /// Reads candidates from a statement whose first column says whether the name is primary
  /// and whose others are `columns`; for prefix and token matches of `query`, a last column
  /// holds the length of the shortest matching name.
  private static func read(_ statement: SQLiteStatement, completing query: String? = nil) throws
    -> [Candidate]
  {
    var found: [Candidate] = []
    let length = Double(query?.count ?? 0)
    while try statement.step() {
      let place = Place(
        geonameid: statement.int64(3), kind: Place.Kind(rawValue: statement.text(2)) ?? .place,
        name: statement.text(4), latitude: statement.double(5), longitude: statement.double(6),
        countryCode: statement.text(9), admin1Code: statement.text(10),
        population: statement.int64(11), featureClass: statement.text(7),
        featureCode: statement.text(8))
      found.append(
        Candidate(
          id: statement.int64(1), place: place, pointSource: statement.text(12),
          isPrimary: statement.int64(0) != 0, distance: 0,
          completion: query == nil ? 0 : min(1, length / Double(max(1, statement.int64(13))))))
    }
    return found
  }
}
