import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

/// One value of a row, as SQLite stores it; text and blobs point into the row's storage.
enum GeoPackageCell {
  case null
  case integer(Int64)
  case real(Double)
  case text(UnsafeRawBufferPointer)
  case blob(UnsafeRawBufferPointer)

  /// Column `k` of the statement's current row (text and blobs valid until the next step).
  init(_ statement: SQLiteStatement, _ k: Int32) {
    switch statement.type(k) {
    case .null: self = .null
    case .integer: self = .integer(statement.int64(k))
    case .real: self = .real(statement.double(k))
    case .text: self = statement.withBytes(k) { .text($0) }
    case .blob: self = statement.withBytes(k) { .blob($0) }
    }
  }
}

/// A row that cannot become a feature: its geometry cannot be decoded.
struct GeoPackageRowError: Error {
  /// What is wrong, naming the layer and the row (`layer 'roads', fid 12: …`).
  var message: String
}

/// How the columns of a selected row become a feature: the integer primary key (if any), the
/// geometry (if any), then the properties.
struct GeoPackageRowLayout: Sendable {
  let layer: String
  let hasID: Bool
  let hasGeometry: Bool
  let properties: [(name: String, kind: GeoPackageCatalog.ColumnKind)]

  /// The columns a row has.
  var columnCount: Int { (hasID ? 1 : 0) + (hasGeometry ? 1 : 0) + properties.count }

  /// The feature of row number `row` (1-based), whose column `k` is `cell(k)`.
  func feature(row: Int, _ cell: (Int) -> GeoPackageCell) throws(GeoPackageRowError) -> Feature {
    var feature = Feature()
    // An INTEGER PRIMARY KEY is the rowid: always an integer.
    var id: Int64?
    if hasID, case .integer(let n) = cell(0) { id = n }
    feature.id = id.map { .integer($0) }
    var column = hasID ? 1 : 0
    if hasGeometry {
      do {
        feature.geometry = try Self.geometry(cell(column))
      } catch {
        throw GeoPackageRowError(
          message: "layer '\(layer)', \(id.map { "fid \($0)" } ?? "row \(row)"): \(error)")
      }
      column += 1
    }
    var object = JSONObject()
    object.reserveCapacity(properties.count)
    for property in properties {
      object.appendUnchecked(property.name, Self.value(cell(column), property.kind))
      column += 1
    }
    feature.properties = object
    return feature
  }

  private static func geometry(_ cell: GeoPackageCell) throws(GeoPackageBlob.Failure) -> Geometry? {
    switch cell {
    case .null: return nil
    case .blob(let bytes): return try GeoPackageBlob.decode(bytes).geometry
    default:
      throw GeoPackageBlob.Failure(message: "the geometry column holds text or a number", offset: 0)
    }
  }

  /// A column's value as its declared type says, from what is stored (SQLite keeps any kind in
  /// any column): INTEGER → integer, REAL → number, BOOLEAN → bool, TEXT/DATE/DATETIME →
  /// string (up to a NUL, as SQLite's C string), BLOB → base64 string.
  private static func value(_ cell: GeoPackageCell, _ kind: GeoPackageCatalog.ColumnKind)
    -> JSONValue
  {
    switch cell {
    case .null: return .null
    case .integer(let n):
      switch kind {
      case .real: return .double(Double(n))
      case .boolean: return .bool(n != 0)
      case .text: return .string(String(n))
      default: return .integer(n)
      }
    case .real(let x):
      return kind == .text ? .string(String(x)) : .double(x)
    case .text(let bytes):
      let end = bytes.firstIndex(of: 0) ?? bytes.count
      return .string(
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self))
    case .blob(let bytes):
      return .string(Data(bytes).base64EncodedString())
    }
  }
}
