import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

/// Reads the features of one table of a GeoPackage, in rowid order, one prepared statement
/// stepped row by row.
///
/// The integer primary key (`fid`) becomes the feature's id, the geometry column its geometry
/// (NULL and empty geometries none) and the other columns its properties, typed by their
/// declared types. With `ReadOptions.bbox` and a WGS84 layer that has an R-tree index
/// (`rtree_<table>_<column>`), only the rows whose envelope meets the box are read.
final class GeoPackageReader: FeatureReader {
  private let database: SQLiteDatabase
  private let statement: SQLiteStatement
  private let name: String
  private let layer: String
  private let hasID: Bool
  private let hasGeometry: Bool
  private let properties: [(name: String, kind: GeoPackageCatalog.ColumnKind)]
  private let firstProperty: Int32
  private let options: ReadOptions
  private var rowsRead = 0
  private(set) var bytesRead = 0
  private(set) var skippedCount = 0
  let declaredCRS: String?
  var collectionMembers: JSONObject { JSONObject() }
  /// Whether the R-tree index chose the rows (for tests and `--verbose`).
  let usesIndex: Bool

  init(path: String, name: String, options: ReadOptions) throws {
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
      hasID = key != nil
      hasGeometry = geometry != nil
      let rest = columns.filter { $0.name != key?.name && $0.name != geometry?.name }
      properties = rest.map { ($0.name, $0.kind) }
      firstProperty = Int32((hasID ? 1 : 0) + (hasGeometry ? 1 : 0))
      declaredCRS = try hasGeometry ? catalog.crs(srsID: table.srsID) : nil
      var selected = [key, geometry].compactMap { $0.map { quoted($0.name) } }
      selected += rest.map { quoted($0.name) }
      var sql =
        "SELECT \(selected.isEmpty ? "NULL" : selected.joined(separator: ", ")) FROM "
        + quoted(table.name)
      let rtree = "rtree_\(table.name)_\(geometry?.name ?? "")"
      var index = false
      if let box = options.bbox, !box.crossesAntimeridian, let key, geometry != nil,
        declaredCRS == nil, (table.srsID ?? 0) > 0, try catalog.exists(rtree)
      {
        sql +=
          " WHERE \(quoted(key.name)) IN (SELECT id FROM \(quoted(rtree)) WHERE minx <= "
          + "\(box.east) AND maxx >= \(box.west) AND miny <= \(box.north) AND maxy >= "
          + "\(box.south)) ORDER BY \(quoted(key.name))"
        index = true
      }
      usesIndex = index
      statement = try database.statement(sql)
    } catch let error as SQLiteError {
      throw Self.dataError(error, name: name)
    }
  }

  func next() throws -> Feature? {
    while true {
      let row: Bool
      do {
        row = try statement.step()
      } catch {
        throw Self.dataError(error, name: name)
      }
      guard row else { return nil }
      rowsRead += 1
      var feature = Feature()
      if hasID { feature.id = statement.isNull(0) ? nil : .integer(statement.int64(0)) }
      if hasGeometry {
        let column: Int32 = hasID ? 1 : 0
        do {
          feature.geometry = try geometry(column)
        } catch {
          let record =
            hasID && !statement.isNull(0) ? "fid \(statement.int64(0))" : "row \(rowsRead)"
          let message = "layer '\(layer)', \(record): \(error)"
          guard options.onError == .skip else {
            throw GeoPipeError.data("\(name): \(message)", at: nil, problem: .structure)
          }
          skippedCount += 1
          options.diagnostics(
            ReadDiagnostic(
              severity: .warning, message: "\(name): skipped \(message)", problem: .structure))
          continue
        }
      }
      var object = JSONObject()
      object.reserveCapacity(properties.count)
      for (k, property) in properties.enumerated() {
        object.appendUnchecked(property.name, value(firstProperty + Int32(k), property.kind))
      }
      feature.properties = object
      return feature
    }
  }

  private func geometry(_ column: Int32) throws(GeoPackageBlob.Failure) -> Geometry? {
    switch statement.type(column) {
    case .null: return nil
    case .blob:
      let decoded = statement.withBytes(column) { bytes in
        bytesRead += bytes.count
        return Result { () throws(GeoPackageBlob.Failure) in try GeoPackageBlob.decode(bytes) }
      }
      return try decoded.get().geometry
    default:
      throw GeoPackageBlob.Failure(message: "the geometry column holds text or a number", offset: 0)
    }
  }

  /// A column's value as its declared type says, from what is stored (SQLite keeps any kind in
  /// any column): INTEGER → integer, REAL → number, BOOLEAN → bool, TEXT/DATE/DATETIME →
  /// string, BLOB → base64 string.
  private func value(_ column: Int32, _ kind: GeoPackageCatalog.ColumnKind) -> JSONValue {
    switch statement.type(column) {
    case .null: return .null
    case .integer:
      let n = statement.int64(column)
      switch kind {
      case .real: return .double(Double(n))
      case .boolean: return .bool(n != 0)
      case .text: return .string(String(n))
      default: return .integer(n)
      }
    case .real:
      let x = statement.double(column)
      return kind == .text ? .string(String(x)) : .double(x)
    case .text:
      return .string(statement.text(column))
    case .blob:
      return .string(statement.withBytes(column) { Data($0).base64EncodedString() })
    }
  }

  static func dataError(_ error: SQLiteError, name: String) -> GeoPipeError {
    if error.code == SQLiteError.notADatabase {
      return GeoPipeError.data("\(name) is not a GeoPackage (not an SQLite database)", at: nil)
    }
    return GeoPipeError.data(error.message, at: nil)
  }
}
