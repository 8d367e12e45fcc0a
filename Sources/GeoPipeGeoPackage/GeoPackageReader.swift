import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

/// Reads the features of one table of a GeoPackage, in rowid order, one prepared statement
/// stepped row by row (a shard's rows a fid range of it).
///
/// The integer primary key (`fid`) becomes the feature's id, the geometry column its geometry
/// (NULL and empty geometries none) and the other columns its properties, typed by their
/// declared types. With `ReadOptions.bbox` and a WGS84 layer that has an R-tree index
/// (`rtree_<table>_<column>`), only the rows whose envelope meets the box are read.
final class GeoPackageReader: BatchFeatureReader {
  private let database: SQLiteDatabase
  private let statement: SQLiteStatement
  private let name: String
  private let layer: String
  private let layout: GeoPackageRowLayout
  private let options: ReadOptions
  /// Rows made into features on worker threads, a batch at a time; nil when made here.
  private var batches: GeoPackageBatches?
  private var rowsRead = 0
  /// Whether the statement has stepped past its last row (stepping it again would start over).
  private var ended = false
  private var bytesReadHere = 0
  private(set) var skippedCount = 0
  let declaredCRS: String?
  var bytesRead: Int { batches?.bytesRead ?? bytesReadHere }
  var collectionMembers: JSONObject { JSONObject() }
  /// Whether the R-tree index chose the rows (for tests and `--verbose`).
  let usesIndex: Bool

  /// Opens the table `options.layer` names (else the only feature table); with `share`, only
  /// the rows of one shard's share (`GeoPackageShare`), or none when the table does not split
  /// and the share does not hold its start.
  init(path: String, name: String, options: ReadOptions, share: InputShare? = nil) throws {
    self.name = name
    self.options = options
    database = try GeoPackageCatalog.open(path: path, name: name)
    let catalog = GeoPackageCatalog(database: database, name: name)
    do {
      guard try catalog.exists("gpkg_contents") else {
        throw GeoPipeError.data(
          "\(name) is not a GeoPackage: it has no gpkg_contents table", at: nil)
      }
      let table = try catalog.table(named: options.layer)
      layer = table.name
      let columns = try catalog.columns(of: table.name)
      let key = columns.first { $0.isPrimaryKey && $0.kind == .integer }
      let geometry = table.geometryColumn.flatMap { name in columns.first { $0.name == name } }
      let rest = columns.filter { $0.name != key?.name && $0.name != geometry?.name }
      layout = GeoPackageRowLayout(
        layer: table.name, hasID: key != nil, hasGeometry: geometry != nil,
        properties: rest.map { ($0.name, $0.kind) })
      declaredCRS = try geometry != nil ? catalog.crs(srsID: table.srsID) : nil
      var selected = [key, geometry].compactMap { $0.map { quoted($0.name) } }
      selected += rest.map { quoted($0.name) }
      var sql =
        "SELECT \(selected.isEmpty ? "NULL" : selected.joined(separator: ", ")) FROM "
        + quoted(table.name)
      let rtree = "rtree_\(table.name)_\(geometry?.name ?? "")"
      var conditions: [String] = []
      if let box = options.bbox, !box.crossesAntimeridian, let key, geometry != nil,
        declaredCRS == nil, (table.srsID ?? 0) > 0, try catalog.exists(rtree)
      {
        conditions.append(
          "\(quoted(key.name)) IN (SELECT id FROM \(quoted(rtree)) WHERE minx <= "
            + "\(box.east) AND maxx >= \(box.west) AND miny <= \(box.north) AND maxy >= "
            + "\(box.south))")
      }
      usesIndex = !conditions.isEmpty
      let database = database
      let byRowid = try key.map {
        try GeoPackageShare.splits(table.name, key: $0.name, in: database)
      }
      if let share {
        if let key, byRowid == true {
          conditions += try GeoPackageShare(share, table: table.name, key: key.name, in: database)
            .conditions(key: key.name)
        } else if !share.readsWhole {
          conditions.append("0")
        }
      }
      if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
      // In fid order, as a shard reads its range (a plain scan could use a covering index).
      if let key, usesIndex || byRowid == true { sql += " ORDER BY \(quoted(key.name))" }
      statement = try database.statement(sql)
    } catch let error as SQLiteError {
      throw Self.dataError(error, name: name)
    }
    if options.threads > 1, options.onError == .fail {
      batches = GeoPackageBatches(
        workers: options.threads, layout: layout, name: name, statement: statement
      ) { [name] statement in
        try Self.step(statement, name: name)
      }
    }
  }

  var decodesInBatches: Bool { batches != nil }

  func nextBatch() throws -> [Feature]? {
    if let batches { return try batches.nextBatch() }
    return try next().map { [$0] }
  }

  func next() throws -> Feature? {
    if let batches { return try batches.next() }
    guard !ended else { return nil }
    while try Self.step(statement, name: name) {
      rowsRead += 1
      do {
        return try layout.feature(row: rowsRead) { k in
          let cell = GeoPackageCell(statement, Int32(k))
          if case .blob(let bytes) = cell { bytesReadHere += bytes.count }
          return cell
        }
      } catch {
        guard options.onError == .skip else {
          throw GeoPipeError.data("\(name): \(error.message)", at: nil, problem: .structure)
        }
        skippedCount += 1
        options.diagnostics(
          ReadDiagnostic(
            severity: .warning, message: "\(name): skipped \(error.message)",
            problem: .structure))
      }
    }
    ended = true
    return nil
  }

  private static func step(_ statement: SQLiteStatement, name: String) throws -> Bool {
    do {
      return try statement.step()
    } catch {
      throw Self.dataError(error, name: name)
    }
  }

  static func dataError(_ error: SQLiteError, name: String) -> GeoPipeError {
    if error.code == SQLiteError.notADatabase {
      return GeoPipeError.data("\(name) is not a GeoPackage (not an SQLite database)", at: nil)
    }
    return GeoPipeError.data(error.message, at: nil)
  }
}
