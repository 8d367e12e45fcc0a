import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

/// The GeoNames dump files a gazetteer is built from.
public struct GazetteerSources: Sendable {
  /// A geoname-table file (`cities15000.txt`, `cities500.txt`, `allCountries.txt`; or `.gz`).
  public var geonames: String
  /// `admin1CodesASCII.txt`.
  public var admin1: String?
  /// `countryInfo.txt`.
  public var countries: String?
  /// `alternateNamesV2.txt` (optional).
  public var alternateNames: String?
  /// Files of country or admin1 polygons, already read (see `BoundaryArea.from`).
  public var boundaries: [BoundaryFile] = []

  /// Creates a set of sources.
  public init(geonames: String, admin1: String?, countries: String?, alternateNames: String? = nil)
  {
    self.geonames = geonames
    self.admin1 = admin1
    self.countries = countries
    self.alternateNames = alternateNames
  }
}

/// The features of a file of country or admin1 polygons.
public struct BoundaryFile: Sendable {
  /// The file, for messages and the gazetteer's list of sources.
  public var path: String
  /// Whether its features are countries or admin1 areas.
  public var level: BoundaryArea.Level
  /// Its features, in file order.
  public var features: [Feature]

  /// Creates a boundaries file.
  public init(path: String, level: BoundaryArea.Level, features: [Feature]) {
    self.path = path
    self.level = level
    self.features = features
  }
}

/// Builds a gazetteer file from GeoNames dumps, atomically: everything is written to a
/// temporary file beside the target, which replaces the target only once complete, so a
/// failed or interrupted build leaves an existing gazetteer untouched.
///
/// Populated places (feature class P) become places; rows of admin areas and countries
/// (class A), when the dump has them, give those areas their points. Each admin1 area and
/// country becomes a row too, with its population (the country's own, or the sum of the
/// area's places) and a point: its own row's, else its capital's (countries, by the capital's
/// name in countryInfo), else its most populous place's.
public enum GazetteerBuilder {
  /// Builds `path`; `progress` hears what is happening.
  ///
  /// Without `typoIndex` the trigram index is left out (a smaller file, a faster build), and
  /// the gazetteer then finds no typo matches.
  @discardableResult
  public static func build(
    _ sources: GazetteerSources, to path: String, typoIndex: Bool = true,
    progress: @escaping (String) -> Void = { _ in }
  ) throws -> [String: String] {
    // The path is checked and its folders made before the dumps are read.
    let destination = try OutputPath(path)
    let (temporary, fd) = try destination.makeTemporaryFile()
    close(fd)
    do {
      let counts = try fill(temporary, for: path, from: sources, typoIndex: typoIndex, progress)
      try destination.commit(temporary: temporary, fd: -1)
      return counts
    } catch {
      destination.discard(temporary: temporary)
      if let failure = error as? SQLiteError {
        // The file was created: what fails now is writing it (a full disk, an I/O error).
        throw GeoPipeError("cannot write '\(path)': \(failure.message)", status: .ioError)
      }
      throw error
    }
  }

  /// Builds the database in `temporary`; the connection is closed on return, so the file is
  /// complete before it is synced and renamed.
  private static func fill(
    _ temporary: String, for path: String, from sources: GazetteerSources, typoIndex: Bool,
    _ progress: @escaping (String) -> Void
  ) throws -> [String: String] {
    let database: SQLiteDatabase
    do {
      database = try SQLiteDatabase(path: temporary, create: true)
    } catch {
      throw GeoPipeError("cannot create '\(path)': \(error)", status: .cannotCreate)
    }
    var builder = try GazetteerBuild(database: database, progress: progress)
    try builder.run(sources, typoIndex: typoIndex)
    return builder.meta
  }
}

/// The state of one build.
struct GazetteerBuild {
  let database: SQLiteDatabase
  let progress: (String) -> Void
  let insertName: SQLiteStatement
  var meta: [String: String] = [:]

  struct Country {
    var iso: String
    var iso3: String
    var name: String
    var capital: String
    var population: Int64
    var geonameid: Int64
    var continent: String
  }

  struct Area {
    var population: Int64 = 0
    var biggest: (id: Int64, population: Int64, latitude: Double, longitude: Double)?
    var capital: (id: Int64, population: Int64, latitude: Double, longitude: Double)?
    var ownPoint: (latitude: Double, longitude: Double)?
  }

  init(database: SQLiteDatabase, progress: @escaping (String) -> Void) throws {
    self.database = database
    self.progress = progress
    try database.execute(GazetteerSchema.create)
    insertName = try database.statement(
      "INSERT INTO names (place_id, name, folded, is_primary) VALUES (?1, ?2, ?3, ?4)")
  }

  /// Reads the sources into the tables, then indexes them: one transaction on a file that
  /// no one else sees until it is renamed, so without a journal, and every index built
  /// after its table is filled (a sort, or one pass over the rows) rather than row by row.
  mutating func run(_ sources: GazetteerSources, typoIndex: Bool) throws {
    try database.execute(
      """
      CREATE TABLE countries (
        iso TEXT PRIMARY KEY, iso3 TEXT NOT NULL, name TEXT NOT NULL, capital TEXT NOT NULL,
        population INTEGER NOT NULL, continent TEXT NOT NULL);
      CREATE TABLE admin1 (
        country_code TEXT NOT NULL, admin1_code TEXT NOT NULL, name TEXT NOT NULL,
        asciiname TEXT NOT NULL, geonameid INTEGER NOT NULL,
        PRIMARY KEY (country_code, admin1_code));
      """)
    let countries = try sources.countries.map(readCountries) ?? [:]
    let admin1 = try sources.admin1.map(readAdmin1) ?? [:]
    try database.execute("BEGIN")
    var areas: [String: Area] = [:]
    var nations: [String: Area] = [:]
    var byGeonameid: [Int64: Int64] = [:]
    let capitals = Dictionary(
      countries.values.map { ($0.iso, NameFolding.fold($0.capital)) },
      uniquingKeysWith: { a, _ in a })
    let adminIds = Set(admin1.values.map(\.geonameid)).subtracting([0])
    let countryIds = Set(countries.values.map(\.geonameid)).subtracting([0])
    let file = try TabFile(path: sources.geonames)
    progress("reading \(sources.geonames)")
    let insertPlace = try database.statement(
      """
      INSERT INTO places (kind, geonameid, name, latitude, longitude, feature_class, feature_code,
        country_code, admin1_code, population, point_source)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
      """)
    var places = 0
    while let fields = try file.next() {
      guard fields.count >= 15 else {
        throw file.error(
          "expected 19 tab-separated columns (the geoname table), found \(fields.count)")
      }
      guard let geonameid = Int64(fields[0]), let latitude = Double(fields[4]),
        let longitude = Double(fields[5]), (-90...90).contains(latitude),
        (-180...180).contains(longitude)
      else { throw file.error("invalid geonameid or coordinates") }
      let featureClass = String(fields[6])
      let country = String(fields[8])
      let admin = String(fields[10])
      let population = Int64(fields[14]) ?? 0
      let key = country + "." + admin
      if featureClass == "A" {
        if adminIds.contains(geonameid) {
          areas[key, default: Area()].ownPoint = (latitude, longitude)
        }
        if countryIds.contains(geonameid) {
          nations[country, default: Area()].ownPoint = (latitude, longitude)
        }
        continue
      }
      guard featureClass == "P" || featureClass.isEmpty else { continue }
      insertPlace.reset()
      try insertPlace.bind(
        .text("place"), .integer(geonameid), .text(String(fields[1])), .real(latitude),
        .real(longitude), .text(featureClass.isEmpty ? "P" : featureClass),
        .text(String(fields[7])), .text(country), .text(admin), .integer(population),
        .text("own row"))
      try insertPlace.run()
      let id = database.lastInsertedRowID
      byGeonameid[geonameid] = id
      places += 1
      let folded = try insertNames(
        id, primary: [String(fields[1]), String(fields[2])],
        alternates: fields[3].split(separator: ",").map(String.init))
      let point = (id, population, latitude, longitude)
      Self.count(point, in: &areas[key, default: Area()])
      Self.count(point, in: &nations[country, default: Area()])
      if capitals[country] == folded.first,
        nations[country]?.capital.map({ population > $0.population }) ?? true
      {
        nations[country]?.capital = point
      }
      if places % 50000 == 0 { progress("\(places) places") }
    }
    meta["places"] = String(places)
    var areaCount = 0
    for (key, info) in admin1.sorted(by: { $0.key < $1.key }) {
      let area = areas[key] ?? Area()
      guard let (latitude, longitude, source) = point(of: area, capitalFirst: false) else {
        continue
      }
      let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
      try database.statement("INSERT INTO admin1 VALUES (?1, ?2, ?3, ?4, ?5)")
        .bind(
          .text(parts[0]), .text(parts.count > 1 ? parts[1] : ""), .text(info.name),
          .text(info.asciiname), .integer(info.geonameid)
        ).run()
      insertPlace.reset()
      try insertPlace.bind(
        .text("admin1"), .integer(info.geonameid), .text(info.name), .real(latitude),
        .real(longitude), .text("A"), .text("ADM1"), .text(parts[0]),
        .text(parts.count > 1 ? parts[1] : ""), .integer(area.population), .text(source))
      try insertPlace.run()
      let id = database.lastInsertedRowID
      try insertNames(id, primary: [info.name, info.asciiname], alternates: [])
      if info.geonameid != 0 { byGeonameid[info.geonameid] = id }
      areaCount += 1
    }
    meta["admin1"] = String(areaCount)
    var countryCount = 0
    for country in countries.values.sorted(by: { $0.iso < $1.iso }) {
      try database.statement("INSERT INTO countries VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        .bind(
          .text(country.iso), .text(country.iso3), .text(country.name), .text(country.capital),
          .integer(country.population), .text(country.continent)
        ).run()
      let area = nations[country.iso] ?? Area()
      guard let (latitude, longitude, source) = point(of: area, capitalFirst: true) else {
        continue
      }
      insertPlace.reset()
      try insertPlace.bind(
        .text("country"), .integer(country.geonameid), .text(country.name), .real(latitude),
        .real(longitude), .text("A"), .text("PCLI"), .text(country.iso), .text(""),
        .integer(max(country.population, area.population)), .text(source))
      try insertPlace.run()
      let id = database.lastInsertedRowID
      try insertNames(id, primary: [country.name], alternates: [])
      if country.geonameid != 0 { byGeonameid[country.geonameid] = id }
      countryCount += 1
    }
    meta["countries"] = String(countryCount)
    try storeAreas(
      sources.boundaries,
      iso3: Dictionary(countries.values.map { ($0.iso3, $0.iso) }, uniquingKeysWith: { a, _ in a }))
    if let path = sources.alternateNames {
      try readAlternateNames(path, places: byGeonameid)
      // A place's alternate names may repeat names it has: keep the first of each.
      try database.execute(
        """
        DELETE FROM names WHERE id NOT IN (SELECT min(id) FROM names GROUP BY place_id, folded)
        """)
    }
    let names = try database.scalarText("SELECT count(*) FROM names") ?? "0"
    meta["names"] = names
    progress("indexing \(names) names")
    try database.execute(GazetteerSchema.indexes)
    if typoIndex {
      progress("building the typo index")
      try database.execute(GazetteerSchema.typoIndex)
      meta["typo_index"] = "trigrams"
    } else {
      meta["typo_index"] =
        "none (built with --no-typo-index: geocode and search find no typo matches)"
    }
    try database.execute(GazetteerSchema.statistics)
    meta["schema_version"] = GazetteerSchema.version
    meta["built_at"] = ISO8601DateFormatter().string(from: Date())
    meta["sources"] =
      ([sources.geonames, sources.admin1, sources.countries, sources.alternateNames]
      + sources.boundaries.map(\.path))
      .compactMap { $0.map { URL(fileURLWithPath: $0).lastPathComponent } }.joined(separator: ", ")
    meta["attribution"] = Gazetteer.attribution
    for (key, value) in meta {
      try database.statement("INSERT INTO meta VALUES (?1, ?2)").bind(.text(key), .text(value))
        .run()
    }
    try database.execute("COMMIT")
  }

  /// An area's point and where it comes from.
  private func point(of area: Area, capitalFirst: Bool) -> (Double, Double, String)? {
    if let own = area.ownPoint { return (own.latitude, own.longitude, "own row") }
    if capitalFirst, let capital = area.capital {
      return (capital.latitude, capital.longitude, "capital")
    }
    if let biggest = area.biggest {
      return (biggest.latitude, biggest.longitude, "most populous place")
    }
    return nil
  }

  /// Adds to an area's population and keeps its most populous place.
  private static func count(
    _ point: (id: Int64, population: Int64, latitude: Double, longitude: Double),
    in area: inout Area
  ) {
    area.population += point.population
    if area.biggest.map({ point.population > $0.population }) ?? true { area.biggest = point }
  }

  /// Inserts a place's names once per folded form; returns the folded forms inserted, in
  /// order.
  @discardableResult
  private func insertNames(_ id: Int64, primary: [String], alternates: [String]) throws
    -> [String]
  {
    var inserted: [String] = []
    for (k, name) in (primary + alternates).enumerated() {
      let folded = NameFolding.fold(name)
      guard !folded.isEmpty, !inserted.contains(folded) else { continue }
      inserted.append(folded)
      insertName.reset()
      try insertName.bind(
        .integer(id), .text(name), .text(folded), .integer(k < primary.count ? 1 : 0))
      try insertName.run()
    }
    return inserted
  }

  private func readCountries(_ path: String) throws -> [String: Country] {
    let file = try TabFile(path: path)
    var result: [String: Country] = [:]
    while let fields = try file.next() {
      guard fields.count >= 17 else {
        throw file.error("expected the columns of countryInfo.txt, found \(fields.count)")
      }
      guard fields[16].isEmpty || Int64(fields[16]) != nil else {
        throw file.error("invalid geonameid '\(fields[16])'")
      }
      let geonameid = Int64(fields[16]) ?? 0
      let iso = String(fields[0])
      result[iso] = Country(
        iso: iso, iso3: String(fields[1]), name: String(fields[4]), capital: String(fields[5]),
        population: Int64(fields[7]) ?? 0, geonameid: geonameid, continent: String(fields[8]))
    }
    return result
  }

  private func readAdmin1(_ path: String) throws -> [String: (
    name: String, asciiname: String, geonameid: Int64
  )] {
    let file = try TabFile(path: path)
    var result: [String: (String, String, Int64)] = [:]
    while let fields = try file.next() {
      guard fields.count >= 3, fields.count < 4 || fields[3].isEmpty || Int64(fields[3]) != nil
      else {
        throw file.error("expected code, name, asciiname and geonameid (admin1CodesASCII.txt)")
      }
      // Rebuilt dumps may leave the geonameid empty: 0 stands for unknown.
      let geonameid = fields.count > 3 ? Int64(fields[3]) ?? 0 : 0
      result[String(fields[0])] = (String(fields[1]), String(fields[2]), geonameid)
    }
    return result
  }

  /// Adds names from alternateNamesV2.txt to the places it names, leaving out codes that are
  /// not names (links, postal codes, airport codes) and historic names.
  private func readAlternateNames(_ path: String, places: [Int64: Int64]) throws {
    let skipped: Set<Substring> = [
      "link", "post", "iata", "icao", "faac", "fr_1793", "unlc", "wkdt", "tcid",
    ]
    let file = try TabFile(path: path)
    progress("reading \(path)")
    while let fields = try file.next() {
      guard fields.count >= 4, let geonameid = Int64(fields[1]) else {
        throw file.error("expected the columns of alternateNamesV2.txt")
      }
      guard let id = places[geonameid], !skipped.contains(fields[2]) else { continue }
      if fields.count > 7 && fields[7] == "1" { continue }
      try insertNames(id, primary: [], alternates: [String(fields[3])])
    }
  }
}
