import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

/// A gazetteer file opened for queries.
///
/// Opening checks that the file is an SQLite database written by `GazetteerBuilder` with this
/// schema version, so a corrupt or foreign file gets a clear error instead of failing later.
/// A connection is not shared across threads.
public final class Gazetteer {
  /// GeoNames' licence requires this credit wherever its data or data derived from it goes.
  public static let attribution =
    "Contains data from GeoNames (https://www.geonames.org/), licensed under CC BY 4.0."

  /// The file's path.
  public let path: String
  /// The SQLite connection.
  public let database: SQLiteDatabase

  /// Opens a gazetteer read-only.
  public init(path: String) throws {
    self.path = path
    guard FileManager.default.fileExists(atPath: path) else {
      throw GeoPipeError("\(path): no such gazetteer", status: .noInput)
    }
    do {
      database = try SQLiteDatabase(path: path, readOnly: true)
      // Pages read straight from the file's mapping: no copy into a cache of this process's
      // own, and processes reading one gazetteer at once (shards) share its pages.
      _ = try database.scalarText("PRAGMA mmap_size = 17179869184")
      // The first read of a file that is not a database fails with SQLITE_NOTADB.
      let tables = try database.scalarText(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
      guard tables == "1" else {
        throw GeoPipeError(
          "\(path) is not a geopipe gazetteer: it is an SQLite database without geopipe's tables",
          status: .dataError)
      }
      let version = try database.scalarText(
        "SELECT value FROM meta WHERE key = 'schema_version'")
      guard let version else {
        throw GeoPipeError(
          "\(path) is not a geopipe gazetteer (it has no schema version)", status: .dataError)
      }
      guard version == GazetteerSchema.version else {
        throw GeoPipeError(
          "\(path) has gazetteer schema \(version), and this geopipe reads "
            + "\(GazetteerSchema.version); rebuild it with 'geopipe gazetteer build'",
          status: .dataError)
      }
    } catch let error as SQLiteError {
      let reason =
        error.code == SQLiteError.notADatabase ? "it is not an SQLite database" : error.message
      throw GeoPipeError("\(path) is not a geopipe gazetteer: \(reason)", status: .dataError)
    }
  }

  /// The facts the build recorded (counts, sources, build date, attribution).
  public func metadata() throws -> [(key: String, value: String)] {
    let statement = try database.statement("SELECT key, value FROM meta ORDER BY key")
    var result: [(String, String)] = []
    while try statement.step() { result.append((statement.text(0), statement.text(1))) }
    return result
  }

  /// Every row of a kind (populated places by default), in file order.
  public func places(kind: Place.Kind = .place) throws -> [Place] {
    let statement = try database.statement(
      """
      SELECT geonameid, name, latitude, longitude, country_code, admin1_code, population,
        feature_class, feature_code
      FROM places WHERE kind = ?1 ORDER BY id
      """)
    try statement.bind(.text(kind.rawValue))
    var result: [Place] = []
    while try statement.step() {
      result.append(
        Place(
          geonameid: statement.int64(0), kind: kind, name: statement.text(1),
          latitude: statement.double(2), longitude: statement.double(3),
          countryCode: statement.text(4), admin1Code: statement.text(5),
          population: statement.int64(6), featureClass: statement.text(7),
          featureCode: statement.text(8)))
    }
    return result
  }

  /// Admin1 names by "CC.code".
  public func admin1Names() throws -> [String: String] {
    let statement = try database.statement("SELECT country_code, admin1_code, name FROM admin1")
    var result: [String: String] = [:]
    while try statement.step() {
      result[statement.text(0) + "." + statement.text(1)] = statement.text(2)
    }
    return result
  }

  /// Country names by ISO code.
  public func countryNames() throws -> [String: String] {
    let statement = try database.statement("SELECT iso, name FROM countries")
    var result: [String: String] = [:]
    while try statement.step() { result[statement.text(0)] = statement.text(1) }
    return result
  }

  /// The country and admin1 areas, in the order they were stored; none when the file was
  /// built without boundaries.
  public func areas() throws -> [BoundaryArea] {
    let tables = try database.scalarText(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'areas'")
    guard tables == "1" else { return [] }
    let statement = try database.statement(
      "SELECT level, country_code, admin1_code, name, geometry FROM areas ORDER BY id")
    var result: [BoundaryArea] = []
    while try statement.step() {
      let id = result.count + 1
      let geometry: Geometry?
      do {
        geometry = try statement.withBytes(4) { bytes in try WKBReader.parse(bytes).geometry }
      } catch {
        throw GeoPipeError(
          "\(path): area \(id) has an unreadable polygon (\(error)); rebuild the gazetteer",
          status: .dataError)
      }
      guard let level = BoundaryArea.Level(rawValue: statement.text(0)), let geometry else {
        throw GeoPipeError(
          "\(path): area \(id) is not a country or admin1 polygon; rebuild the gazetteer",
          status: .dataError)
      }
      result.append(
        BoundaryArea(
          level: level, countryCode: statement.text(1), admin1Code: statement.text(2),
          name: statement.text(3), geometry: geometry))
    }
    return result
  }

  /// The default gazetteer: `$GEOPIPE_GAZETTEER`, else `gazetteer.sqlite` in
  /// `$XDG_DATA_HOME/geopipe` (by default `~/.local/share/geopipe`).
  public static var defaultPath: String {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment["GEOPIPE_GAZETTEER"], !path.isEmpty { return path }
    let base =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (NSHomeDirectory() + "/.local/share")
    return base + "/geopipe/gazetteer.sqlite"
  }
}
