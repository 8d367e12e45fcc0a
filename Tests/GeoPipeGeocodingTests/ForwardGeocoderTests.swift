import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeGeocoding

#if canImport(Glibc)
import Glibc
#endif

/// A gazetteer built once per test run from the GeoNames files in Data/geonames (cities15000,
/// admin1 codes, country info), in the temporary folder, removed when the tests exit.
private enum Cities15000 {
  static let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("geopipe-forward-\(getpid()).sqlite").path

  static let built: Result<String, any Error> = Result {
    let data = ForwardGeocoderTests.root.appendingPathComponent("Data/geonames")
    let sources = GazetteerSources(
      geonames: data.appendingPathComponent("cities15000.txt.gz").path,
      admin1: data.appendingPathComponent("admin1CodesASCII.txt.gz").path,
      countries: data.appendingPathComponent("countryInfo.txt.gz").path)
    atexit { unlink(Cities15000.path) }
    try GazetteerBuilder.build(sources, to: path)
    return path
  }

  /// A geocoder of its own (connections are not shared across threads).
  static func geocoder() throws -> ForwardGeocoder {
    try ForwardGeocoder(gazetteer: Gazetteer(path: built.get()))
  }
}

/// Forward geocoding on the shipped cities15000: the query set's accuracy, each ranking rule,
/// and the typo machinery against brute-force oracles.
@Suite struct ForwardGeocoderTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// One line of Fixtures/geocode/queries.tsv.
  struct Case {
    var query: String
    var expected: String
    var options: SearchOptions
    var category: String
  }

  static func cases() throws -> [Case] {
    let url = root.appendingPathComponent("Fixtures/geocode/queries.tsv")
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
      .filter { !$0.hasPrefix("#") }
      .map { line in
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        var options = SearchOptions()
        for option in fields[2].split(separator: " ") {
          let parts = option.split(separator: "=").map(String.init)
          let numbers =
            parts.count > 1 ? parts[1].split(separator: ",").compactMap { Double($0) } : []
          switch parts[0] {
          case "focus": options.focus = Position(x: numbers[0], y: numbers[1])
          case "region":
            options.region = BBox(
              west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
          case "restrict": options.restrictToRegion = true
          case "country": options.countries = [parts[1]]
          default: Issue.record("unknown option \(option) in queries.tsv")
          }
        }
        return Case(query: fields[0], expected: fields[1], options: options, category: fields[3])
      }
  }

  /// Whether a result is what a case expects.
  static func meets(_ result: ForwardMatch?, _ expected: String) -> Bool {
    guard let result else { return expected == "none" }
    let place = result.place
    if expected.hasPrefix("admin1:") {
      return place.kind == .admin1
        && expected == "admin1:\(place.countryCode).\(place.admin1Code)"
    }
    return expected == String(place.geonameid)
  }

  @Test func findsAtLeast95PercentOfTheQuerySetFirst() throws {
    let geocoder = try Cities15000.geocoder()
    let cases = try Self.cases()
    #expect(cases.count >= 150)
    var failures: [String] = []
    for item in cases {
      let result = try geocoder.geocode(item.query, options: item.options)
      guard !Self.meets(result, item.expected) else { continue }
      failures.append(
        "\(item.category): '\(item.query)' expected \(item.expected), found "
          + (result.map { "\($0.place.name) (\($0.place.geonameid), \($0.match))" } ?? "none"))
    }
    let share = Double(cases.count - failures.count) / Double(cases.count)
    #expect(
      share >= 0.95,
      "\(failures.count) of \(cases.count) wrong:\n\(failures.joined(separator: "\n"))")
  }

  @Test(arguments: [
    ("Roma", 3_169_070), ("Moskva", 524_901), ("München", 2_867_714), ("Tokyo", 1_850_147),
    ("New York", 5_128_581), ("Springfield, IL", 4_250_542), ("Paris, Texas", 4_717_560),
    ("London, Canada", 6_058_560), ("Portland Oregon", 5_746_545), ("SAO PAULO", 3_448_439),
  ])
  func followsTheRankingRules(query: String, geonameid: Int64) throws {
    let result = try Cities15000.geocoder().geocode(query)
    #expect(result?.place.geonameid == geonameid, "\(query): \(String(describing: result))")
  }

  @Test func anExactMatchBeatsPrefixTokenAndTypo() throws {
    let geocoder = try Cities15000.geocoder()
    // "York" is a name of its own, and a token of New York's.
    let york = try geocoder.search("York", options: SearchOptions(limit: 3))
    #expect(york.first?.place.countryCode == "GB")
    #expect(york.first?.match == .exact)
    let roma = try geocoder.geocode("Roma")
    #expect(roma?.match == .alternate)
    #expect(try geocoder.geocode("Frankf")?.match == .prefix)
    #expect(try geocoder.geocode("Janeiro")?.match == .token)
    let typo = try geocoder.geocode("Amsterdma")
    #expect(typo?.match == .typo)
    #expect(typo?.place.geonameid == 2_759_794)
  }

  @Test func aQualifierNamingSeveralAreasKeepsCandidatesInAny() throws {
    let geocoder = try Cities15000.geocoder()
    #expect(
      Set(geocoder.areas.areas(named: "il")) == [
        .country("IL"), .admin1(country: "US", code: "IL"),
      ])
    #expect(try geocoder.geocode("Haifa, IL")?.place.countryCode == "IL")
    #expect(try geocoder.geocode("Peoria, IL")?.place.admin1Code == "IL")
    let springfields = try geocoder.search("Springfield, IL")
    #expect(springfields.map(\.place.geonameid) == [4_250_542])
    #expect(springfields.first?.confidence == 1)
  }

  @Test(arguments: [
    "Paris, Narnia", "Paris, Germany", "Tokyo, France", ", France", "", "asdfghjkl", "xyzzy",
    "Mordor", "qqq", "!!!",
  ])
  func findsNothingRatherThanAGuess(query: String) throws {
    #expect(try Cities15000.geocoder().search(query).isEmpty)
  }

  @Test func areasHaveAPointSource() throws {
    let geocoder = try Cities15000.geocoder()
    let bavaria = try #require(try geocoder.geocode("Bavaria"))
    #expect(bavaria.place.kind == .admin1)
    #expect(bavaria.place.geonameid == 0)
    #expect(bavaria.pointSource == "most populous place")
    #expect(bavaria.countryName == "Germany")
    let japan = try #require(try geocoder.geocode("Japan"))
    #expect(japan.place.kind == .country)
    #expect(japan.pointSource == "capital")
    #expect(try geocoder.geocode("Deutschland")?.place.countryCode == "DE")
  }

  @Test func aFocusOrRegionBiasesAndRestrictFilters() throws {
    let geocoder = try Cities15000.geocoder()
    let texas = SearchOptions(focus: Position(x: -95.55, y: 33.66))
    #expect(try geocoder.geocode("Paris", options: texas)?.place.geonameid == 4_717_560)
    let illinois = BBox(west: -91.5, south: 37, east: -87.5, north: 42.5)
    #expect(
      try geocoder.geocode("Springfield", options: SearchOptions(region: illinois))?.place
        .admin1Code == "IL")
    let australia = BBox(west: 110, south: -45, east: 155, north: -10)
    #expect(
      try geocoder.search("Berlin", options: SearchOptions(region: australia)).first?.place
        .countryCode == "DE", "a region only biases")
    #expect(
      try geocoder.search(
        "Berlin", options: SearchOptions(region: australia, restrictToRegion: true)
      )
      .isEmpty)
    #expect(
      try geocoder.geocode("London", options: SearchOptions(countries: ["CA"]))?.place.geonameid
        == 6_058_560)
  }

  @Test func aRegionAcrossTheAntimeridianBiasesBothSides() {
    let pacific = BBox(west: 170, south: -50, east: -170, north: -10)
    let ranking = Ranking(focus: nil, region: pacific)
    #expect(ranking.bias(latitude: -30, longitude: 179) == Ranking.biasWeight)
    #expect(ranking.bias(latitude: -30, longitude: -175) == Ranking.biasWeight)
    #expect(ranking.bias(latitude: -30, longitude: 0) < 0.5)
    #expect(
      Ranking.distance(from: (-30, 165), toBox: pacific)
        < Ranking.distance(from: (-30, 150), toBox: pacific))
  }

  @Test func confidenceReflectsAmbiguity() throws {
    let geocoder = try Cities15000.geocoder()
    let paris = try #require(try geocoder.geocode("Paris"))
    #expect(paris.confidence > 0.9)
    let springfield = try #require(try geocoder.geocode("Springfield"))
    #expect(springfield.confidence < 0.5)
    let typo = try #require(try geocoder.geocode("Philadelpia"))
    #expect(typo.confidence < 0.6)
    for result in try geocoder.search("San", options: SearchOptions(limit: 50)) {
      #expect((0...1).contains(result.confidence))
    }
  }

  @Test func searchListsTheCandidatesBestFirst() throws {
    let geocoder = try Cities15000.geocoder()
    let results = try geocoder.search("Springfield", options: SearchOptions(limit: 20))
    let exact = results.prefix { $0.match == .exact || $0.match == .alternate }
    // Nine places: eight named Springfield, and Springfield Gardens, once called so.
    #expect(exact.count == 9)
    let named = exact.prefix { $0.place.name == "Springfield" }
    #expect(named.count == 8, "an alternate name ranks below the places' own names")
    #expect(named.map(\.place.population) == named.map(\.place.population).sorted(by: >))
    #expect(results.dropFirst(exact.count).allSatisfy { $0.match == .prefix || $0.match == .token })
    #expect(try geocoder.search("Springfield", options: SearchOptions(limit: 3)).count == 3)
  }

  // MARK: - Typo machinery against oracles

  /// The optimal string alignment distance, by the textbook full table.
  static func textbookDistance(_ a: [UInt32], _ b: [UInt32]) -> Int {
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in stride(from: 1, through: a.count, by: 1) {
      for j in stride(from: 1, through: b.count, by: 1) {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[a.count][b.count]
  }

  @Test func alignmentDistanceAgreesWithTheTextbookTable() {
    var random = SystemRandomNumberGenerator()
    var scratch = AlignmentScratch()
    for _ in 0..<3000 {
      let a = (0..<Int.random(in: 0...9, using: &random)).map { _ in
        UInt32.random(in: 97...100, using: &random)
      }
      let b = (0..<Int.random(in: 0...9, using: &random)).map { _ in
        UInt32.random(in: 97...100, using: &random)
      }
      let truth = Self.textbookDistance(a, b)
      for limit in 0...3 {
        let found = TypoMatcher.alignmentDistance(a, b, limit: limit, scratch: &scratch)
        #expect(found == (truth <= limit ? truth : nil), "\(a) \(b) limit \(limit)")
      }
    }
  }

  @Test func cheapestSpreadIsTheCheapestChoice() {
    var random = SystemRandomNumberGenerator()
    for _ in 0..<300 {
      let costs = (0..<Int.random(in: 1...12, using: &random)).map { _ in
        Int.random(in: 0...50, using: &random)
      }
      for (count, gap) in [(2, 3), (2, 4), (3, 3), (3, 4)] {
        // Brute force: every increasing choice of `count` indices `gap` apart.
        var best: Int?
        func choose(_ from: Int, _ left: Int, _ cost: Int) {
          guard left > 0 else {
            best = min(best ?? cost, cost)
            return
          }
          for i in stride(from: from, to: costs.count, by: 1) {
            choose(i + gap, left - 1, cost + costs[i])
          }
        }
        choose(0, count, 0)
        let found = TypoMatcher.cheapestSpread(costs, count: count, gap: gap)
        #expect(found.map { $0.reduce(0) { $0 + costs[$1] } } == best, "\(costs) \(count) \(gap)")
        if let found {
          #expect(found.count == count)
          #expect(zip(found, found.dropFirst()).allSatisfy { $1 - $0 >= gap })
        }
      }
    }
  }

  /// Every name id and folded name of the test gazetteer.
  static func allNames(_ gazetteer: Gazetteer) throws -> [(id: Int64, scalars: [UInt32])] {
    let statement = try gazetteer.database.statement("SELECT id, folded FROM names")
    var names: [(Int64, [UInt32])] = []
    while try statement.step() {
      names.append((statement.int64(0), statement.text(1).unicodeScalars.map(\.value)))
    }
    return names
  }

  @Test(arguments: [
    ("amsterdma", 1), ("philadelpia", 1), ("barcelonna", 1), ("johannesberg", 2),
    ("san fransisco", 2), ("rio de janiero", 2), ("kuala lumpr", 2),
  ])
  func typoCandidatesMissNothingAndAddNothing(query: String, distance: Int) throws {
    // Queries long enough for probes four apart, where every name within reach must be found.
    let gazetteer = try Gazetteer(path: Cities15000.built.get())
    let matcher = TypoMatcher(database: gazetteer.database)
    let target = query.unicodeScalars.map(\.value)
    var scratch = AlignmentScratch()
    var expected: [Int64: Int] = [:]
    for (id, scalars) in try Self.allNames(gazetteer)
    where abs(scalars.count - target.count) <= distance {
      if let d = TypoMatcher.alignmentDistance(target, scalars, limit: distance, scratch: &scratch)
      {
        expected[id] = d
      }
    }
    #expect(!expected.isEmpty)
    let found = try matcher.matches(query, maxDistance: distance)
    #expect(Dictionary(uniqueKeysWithValues: found.map { ($0.id, $0.distance) }) == expected)
  }
}
