import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

/// What a GeoPackage says about its tables: which hold features, their geometry column,
/// spatial reference system and columns (GeoPackage 1.4 §1.1.2, §1.1.3, §2.1.5).
struct GeoPackageCatalog {
  /// Opens a GeoPackage read-only; a file SQLite cannot open is exit 66 naming it.
  static func open(path: String, name: String) throws -> SQLiteDatabase {
    do {
      return try SQLiteDatabase(path: path, readOnly: true)
    } catch {
      throw GeoPipeError("cannot open '\(name)': \(error.message)", status: .noInput)
    }
  }

  /// One readable table.
  struct Table {
    var name: String
    /// `features` or `attributes`.
    var dataType: String
    /// The geometry column; nil for an attributes table.
    var geometryColumn: String?
    /// POINT, MULTIPOLYGON, GEOMETRY ...
    var geometryTypeName: String?
    var z = 0
    var m = 0
    var srsID: Int32?
    /// The extent gpkg_contents declares.
    var bounds: BBox?
  }

  /// A column of a table.
  struct Column {
    var name: String
    /// The declared type as written (`TEXT(50)`, `MEDIUMINT`).
    var declaredType: String
    var kind: ColumnKind
    var isPrimaryKey: Bool
  }

  /// How a column's values are read, from its declared type (§1.1.1.1.3 Table 1).
  enum ColumnKind {
    case integer, real, text, boolean, blob, other

    init(declaredType: String) {
      var base = declaredType.uppercased()
      if let parenthesis = base.firstIndex(of: "(") { base = String(base[..<parenthesis]) }
      switch base.trimmingCharacters(in: .whitespaces) {
      case "INTEGER", "INT", "SMALLINT", "MEDIUMINT", "TINYINT", "BIGINT": self = .integer
      case "REAL", "FLOAT", "DOUBLE": self = .real
      case "TEXT", "DATE", "DATETIME": self = .text
      case "BOOLEAN": self = .boolean
      case "BLOB": self = .blob
      default: self = .other
      }
    }
  }

  let database: SQLiteDatabase
  let name: String

  /// The feature and attribute tables listed in gpkg_contents, features first, each group in
  /// name order.
  func tables() throws -> [Table] {
    let statement = try database.statement(
      """
      SELECT c.table_name, c.data_type, g.column_name, g.geometry_type_name, g.z, g.m, \
      COALESCE(g.srs_id, c.srs_id), c.min_x, c.min_y, c.max_x, c.max_y \
      FROM gpkg_contents c LEFT JOIN gpkg_geometry_columns g ON g.table_name = c.table_name \
      WHERE c.data_type IN ('features', 'attributes') \
      ORDER BY c.data_type DESC, c.table_name
      """)
    var tables: [Table] = []
    while try statement.step() {
      var table = Table(name: statement.text(0), dataType: statement.text(1))
      if table.dataType == "features" && !statement.isNull(2) {
        table.geometryColumn = statement.text(2)
        table.geometryTypeName = statement.text(3).uppercased()
        table.z = Int(statement.int64(4))
        table.m = Int(statement.int64(5))
      }
      if !statement.isNull(6) { table.srsID = Int32(truncatingIfNeeded: statement.int64(6)) }
      if !statement.isNull(7) && !statement.isNull(8) && !statement.isNull(9)
        && !statement.isNull(10)
      {
        table.bounds = BBox(
          west: statement.double(7), south: statement.double(8), east: statement.double(9),
          north: statement.double(10))
      }
      tables.append(table)
    }
    return tables
  }

  /// The table `layer` names, else the only feature table; an error listing the tables
  /// otherwise.
  func table(named layer: String?) throws -> Table {
    let all = try tables()
    if let layer {
      if let table = all.first(where: { $0.name == layer }) { return table }
      throw GeoPipeError.usage(
        "\(name) has no layer '\(layer)'; its layers: \(Self.list(all.map(\.name)))")
    }
    let features = all.filter { $0.dataType == "features" }
    if features.count == 1 { return features[0] }
    if features.isEmpty {
      throw GeoPipeError.usage(
        "\(name) has no feature table"
          + (all.isEmpty
            ? ""
            : "; choose an attributes table with --layer: "
              + Self.list(all.map(\.name))))
    }
    throw GeoPipeError.usage(
      "\(name) holds \(features.count) layers: choose one with --layer "
        + "(\(Self.list(features.map(\.name))))")
  }

  /// The columns of a table, in order (`PRAGMA table_info`).
  func columns(of table: String) throws -> [Column] {
    let statement = try database.statement("PRAGMA table_info(\(quoted(table)))")
    var columns: [Column] = []
    while try statement.step() {
      let type = statement.text(2)
      columns.append(
        Column(
          name: statement.text(1), declaredType: type, kind: ColumnKind(declaredType: type),
          isPrimaryKey: statement.int64(5) == 1))
    }
    return columns
  }

  /// The CRS of an srs_id as `declaredCRS` gives it: nil for WGS84 (EPSG:4326, OGC CRS84) and
  /// the undefined systems (-1, 0); `EPSG:n` for an EPSG code; else its WKT definition.
  func crs(srsID: Int32?) throws -> String? {
    guard let srsID, srsID > 0 else { return nil }
    let statement = try database.statement(
      "SELECT organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys "
        + "WHERE srs_id = ?")
    try statement.bind(.integer(Int64(srsID)))
    guard try statement.step() else {
      throw GeoPipeError.data(
        "\(name): srs_id \(srsID) is not in gpkg_spatial_ref_sys", at: nil)
    }
    let organization = statement.text(0).uppercased()
    let code = statement.int64(1)
    let definition = statement.text(2)
    if organization == "EPSG" {
      return code == 4326 ? nil : "EPSG:\(code)"
    }
    if organization == "OGC" && code == 84 { return nil }
    if definition.isEmpty || definition == "undefined" {
      throw GeoPipeError.data(
        "\(name): srs_id \(srsID) (\(organization):\(code)) has no definition", at: nil)
    }
    return definition
  }

  /// Whether the table exists in the database (tables, virtual tables and views).
  func exists(_ table: String) throws -> Bool {
    let statement = try database.statement(
      "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?")
    try statement.bind(.text(table))
    defer { statement.reset() }
    return try statement.step()
  }

  /// The LayerInfo `geopipe layers` shows for a table.
  func layerInfo(_ table: Table) throws -> LayerInfo {
    let count = try database.statement("SELECT COUNT(*) FROM \(quoted(table.name))")
    _ = try count.step()
    let fields = try columns(of: table.name).filter {
      !$0.isPrimaryKey && $0.name != table.geometryColumn
    }
    return LayerInfo(
      name: table.name,
      geometryType: table.geometryTypeName.map {
        Self.geometryTypeTitle($0)
          + (table.z > 0 ? (table.m > 0 ? " ZM" : " Z") : (table.m > 0 ? " M" : ""))
      },
      count: Int(count.int64(0)),
      crs: table.geometryColumn == nil ? nil : (try crs(srsID: table.srsID) ?? "EPSG:4326"),
      fields: fields.map { ($0.name, $0.declaredType) }, bounds: table.bounds)
  }

  /// `MULTIPOLYGON` as `MultiPolygon`, `GEOMETRY` as `Geometry`.
  static func geometryTypeTitle(_ name: String) -> String {
    if let kind = GeometryKind(caseInsensitive: name) { return kind.rawValue }
    return name.prefix(1).uppercased() + name.dropFirst().lowercased()
  }

  static func list(_ names: [String]) -> String {
    names.map { "'\($0)'" }.joined(separator: ", ")
  }
}

/// An SQL identifier in double quotes (`"a ""b"""`).
func quoted(_ identifier: String) -> String {
  "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
