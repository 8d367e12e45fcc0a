import GeoPipeCore
import GeoPipeIO

/// Writes features into a PostgreSQL table in one transaction.
///
/// A table's columns are the union of the features' properties, typed from all their values,
/// so features go to a scratch file first, each as COPY fields with a kind tag. `finish()`
/// then, in one transaction, creates the table (or, with `--if-exists replace`, a new one that
/// takes the old one's place), loads the rows with binary `COPY … FROM STDIN` (geometries as
/// EWKB), creates a GiST index on the geometry, runs `ANALYZE` and commits. Appends and upserts
/// load a temporary table and insert its rows (`INSERT … ON CONFLICT` for an upsert). Any
/// failure, or the process ending first, leaves the database as it was.
final class PostgreSQLWriter: FeatureWriter {
  struct Column {
    var name: String
    var kinds: ColumnKinds = []
  }

  private let url: String
  let name: String
  private let table: (schema: String?, name: String)
  private let ifExists: PostgreSQL.IfExists
  private let upsertKey: String?
  private let geometryColumn: String
  let fidColumn: String?
  private let srid: Int32
  private let diagnostics: @Sendable (ReadDiagnostic) -> Void
  private var scratch: ScratchFile?
  private(set) var columns: [Column] = []
  private var columnIndex: [String: Int] = [:]
  private var idKinds: ColumnKinds = []
  private var geometryKinds = Set<GeometryKind>()
  private var withZ = 0
  private var geometries = 0
  private var idsLeftOut = 0
  private var count = 0
  private var record: [UInt8] = []
  private var fields: [UInt8] = []

  init(url: String, options: WriteOptions) throws {
    self.url = url
    name = PostgreSQL.redacted(url)
    let values = options.formatOptions
    table = try PostgreSQL.tableName(values.string("table") ?? options.layer ?? "features")
    ifExists = values.string("if-exists").flatMap(PostgreSQL.IfExists.init) ?? .fail
    upsertKey = values.string("upsert-on")
    geometryColumn = values.string("geometry-column") ?? "geom"
    fidColumn = values.string("fid-column")
    diagnostics = options.diagnostics
    if let crs = options.crs {
      let code = crs.uppercased().hasPrefix("EPSG:") ? Int32(crs.dropFirst(5)) : nil
      guard let code, code > 0 else {
        throw GeoPipeError.usage(
          "PostgreSQL: --crs '\(crs)' has no SRID: give it as EPSG:CODE (reproject first)")
      }
      srid = code
    } else {
      srid = 4326
    }
    if options.precision != nil {
      throw GeoPipeError.usage(
        "PostgreSQL keeps every coordinate as it is: leave out --precision")
    }
    if upsertKey != nil && ifExists == .replace {
      throw GeoPipeError.usage(
        "--upsert-on updates an existing table: leave out --if-exists replace")
    }
    if geometryColumn == fidColumn {
      throw GeoPipeError.usage("--fid-column and --geometry-column name the same column")
    }
    // A wrong URL or password, or a table in the way, is reported before any feature is read
    // (and the table checked again in the transaction).
    let connection = try connect()
    do {
      if ifExists == .fail && upsertKey == nil,
        try connection.tableExists(try connection.quote(table: table))
      {
        throw PostgreSQLError(message: PostgreSQL.tableExists)
      }
    } catch let error as PostgreSQLError {
      throw GeoPipeError(
        "cannot write \(name): table '\(tableText)': \(error)", status: .cannotCreate)
    }
    scratch = try ScratchFile(in: ScratchFile.temporaryFolder, for: name)
  }

  func write(_ feature: Feature) throws {
    guard let scratch else { return }
    count += 1
    record.removeAll(keepingCapacity: true)
    record.append(contentsOf: [0, 0, 0, 0])
    if let geometry = feature.geometry {
      geometryKinds.insert(geometry.kind)
      geometries += 1
      if geometry.hasZ { withZ += 1 }
      fields.removeAll(keepingCapacity: true)
      WKBWriter.append(geometry, flavor: .extended(srid: srid), to: &fields)
      CopyBinary.append(Int32(fields.count), to: &record)
      record.append(contentsOf: fields)
    } else {
      CopyBinary.append(Int32(-1), to: &record)
    }
    if let id = feature.id, fidColumn != nil, let kind = ColumnKinds(id) {
      guard kind == .integer || kind == .text, idKinds.union(kind).columnType != nil else {
        throw dataError("its id \(id) is not a string or an integer like the ids before it")
      }
      idKinds.insert(kind)
      record.append(kind.rawValue)
      try appendField(id, kind: kind)
    } else {
      if feature.id != nil { idsLeftOut += 1 }
      record.append(0)
    }
    for member in feature.properties ?? JSONObject() {
      let k = try column(for: member.key)
      guard let kind = ColumnKinds(member.value) else { continue }
      let kinds = columns[k].kinds.union(kind)
      guard kinds.columnType != nil else {
        throw dataError(
          "property '\(member.key)' is \(kind.name) (\(member.value)), but earlier features "
            + "have \(columns[k].kinds.name) there: a column holds one type")
      }
      columns[k].kinds = kinds
      CopyBinary.append(UInt32(k), to: &record)
      record.append(kind.rawValue)
      try appendField(member.value, kind: kind)
    }
    let length = UInt32(record.count - 4).bigEndian
    withUnsafeBytes(of: length) { record.replaceSubrange(0..<4, with: $0) }
    try record.withUnsafeBytes { try scratch.write($0) }
  }

  func finish() throws {
    guard let scratch else { return }
    self.scratch = nil
    if idsLeftOut > 0 {
      diagnostics(
        ReadDiagnostic(
          severity: .warning,
          message: "\(name): \(idsLeftOut) feature ids were not written (give --fid-column to "
            + "keep them)"))
    }
    let connection = try connect()
    do {
      let load = PostgreSQLLoad(
        connection: connection, table: table, ifExists: ifExists, upsertKey: upsertKey,
        primaryKey: try fidColumn.map(connection.quote))
      try load.run(
        columns: try tableColumns(connection), rows: { send in try rows(scratch, send) })
    } catch let error as PostgreSQLError {
      throw GeoPipeError(
        "cannot write \(name): table '\(tableText)': \(error)",
        status: error.sqlState?.hasPrefix("23") == true || error.sqlState?.hasPrefix("22") == true
          ? .dataError : .cannotCreate)
    }
  }

  func abort() {
    scratch = nil
  }

  // MARK: Rows

  var tableText: String { (table.schema.map { $0 + "." } ?? "") + table.name }

  private func connect() throws -> PostgreSQLConnection {
    do {
      return try PostgreSQLConnection(url: url)
    } catch {
      throw GeoPipeError("cannot write \(name): \(error)", status: .cannotCreate)
    }
  }

  private func dataError(_ message: String) -> GeoPipeError {
    GeoPipeError.data("\(name): table '\(tableText)', feature \(count): \(message)", at: nil)
  }

  private func column(for key: String) throws -> Int {
    if let k = columnIndex[key] { return k }
    guard key != geometryColumn, key != fidColumn else {
      throw dataError(
        "property '\(key)' has the name of the geometry or id column: rename it, or give "
          + "--geometry-column or --fid-column another name")
    }
    columns.append(Column(name: key))
    columnIndex[key] = columns.count - 1
    return columns.count - 1
  }

  /// Appends a value's COPY field (its length, then its binary send format).
  private func appendField(_ value: JSONValue, kind: ColumnKinds) throws {
    switch value {
    case .null: break
    case .bool(let b):
      CopyBinary.append(Int32(1), to: &record)
      record.append(b ? 1 : 0)
    case .integer(let n):
      CopyBinary.append(Int32(8), to: &record)
      CopyBinary.append(n, to: &record)
    case .double(let x):
      CopyBinary.append(Int32(8), to: &record)
      CopyBinary.append(x.bitPattern, to: &record)
    case .bigInteger(let digits), .bigNumber(let digits):
      throw dataError(
        "the number \(digits) does not fit in a bigint or a double precision column")
    case .string(let s):
      let bytes = Array(s.utf8)
      CopyBinary.append(Int32(bytes.count), to: &record)
      record.append(contentsOf: bytes)
    case .array, .object:
      var text = JSONTextWriter()
      text.writeValue(value)
      CopyBinary.append(Int32(text.bytes.count + 1), to: &record)
      record.append(CopyBinary.jsonbVersion)
      record.append(contentsOf: text.bytes)
    }
  }

  /// The table's columns and their definitions: the id column, the geometry column, then a
  /// column per property in the order the properties first appeared.
  private func tableColumns(_ connection: PostgreSQLConnection) throws -> [(String, String)] {
    var definitions: [(String, String)] = []
    if let fidColumn {
      let type = idKinds == .text ? "text" : "bigint"
      definitions.append((try connection.quote(fidColumn), type))
    }
    let geometry = try connection.quote(geometryColumn)
    definitions.append((geometry, geometryType(quoted: geometry)))
    for column in columns {
      definitions.append((try connection.quote(column.name), column.kinds.columnType ?? "text"))
    }
    return definitions
  }

  /// The geometry column's type.
  ///
  /// `geometry(Type[Z], SRID)`: the one kind of geometry the features have, else `Geometry`,
  /// with Z when all have Z. Mixed dimensions need an untyped column, its SRID checked.
  private func geometryType(quoted: String) -> String {
    let kind = geometryKinds.count == 1 ? geometryKinds.first?.rawValue ?? "Geometry" : "Geometry"
    if withZ > 0 && withZ < geometries {
      return "geometry CHECK (ST_SRID(\(quoted)) = \(srid))"
    }
    return "geometry(\(kind)\(withZ > 0 ? "Z" : ""), \(srid))"
  }
}
