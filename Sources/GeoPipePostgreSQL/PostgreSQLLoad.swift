/// The transaction that puts a writer's rows into a table.
///
/// Create, replace, append or upsert, binary COPY, GiST index, ANALYZE, COMMIT. Nothing is committed unless all of it succeeds.
struct PostgreSQLLoad {
  let connection: PostgreSQLConnection
  let table: (schema: String?, name: String)
  let ifExists: PostgreSQL.IfExists
  let upsertKey: String?
  /// The quoted id column, the new table's primary key.
  let primaryKey: String?

  /// Runs the transaction for a table of `columns` (quoted name, type), the rows handed out
  /// by `rows` as COPY tuples.
  func run(
    columns: [(name: String, type: String)],
    rows: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
  ) throws {
    let target = try connection.quote(table: table)
    let names = columns.map(\.name).joined(separator: ", ")
    let definitions = columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ")
    let keyed = definitions + (primaryKey.map { ", PRIMARY KEY (\($0))" } ?? "")
    let geometry = columns.first { $0.type.hasPrefix("geometry") }?.name ?? columns[0].name
    try connection.execute("BEGIN")
    do {
      if try connection.tableExists(target) {
        switch (ifExists, upsertKey) {
        case (.fail, nil):
          throw PostgreSQLError(message: PostgreSQL.tableExists)
        case (.replace, _):
          let fresh = try connection.quote(table: (table.schema, table.name + "_geopipe_new"))
          try connection.execute("CREATE TABLE \(fresh) (\(keyed))")
          try copy(into: fresh, names: names, rows: rows)
          try connection.execute("DROP TABLE \(target)")
          try connection.execute(
            "ALTER TABLE \(fresh) RENAME TO \(try connection.quote(table.name))")
          try index(target, geometry: geometry)
        default:
          try connection.execute(
            "CREATE TEMPORARY TABLE geopipe_staging (\(definitions)) "
              + "ON COMMIT DROP")
          try copy(into: "geopipe_staging", names: names, rows: rows)
          try connection.execute(
            "INSERT INTO \(target) (\(names)) SELECT \(names) FROM geopipe_staging"
              + (try conflictClause(columns: columns)))
        }
      } else {
        let unique = try upsertKey.map { ", UNIQUE (\(try connection.quote($0)))" } ?? ""
        try connection.execute("CREATE TABLE \(target) (\(keyed)\(unique))")
        try copy(into: target, names: names, rows: rows)
        try index(target, geometry: geometry)
      }
      try connection.execute("ANALYZE \(target)")
      try connection.execute("COMMIT")
    } catch {
      _ = try? connection.execute("ROLLBACK")
      throw error
    }
  }

  private func copy(
    into target: String, names: String,
    rows: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
  ) throws {
    try connection.beginCopyIn("COPY \(target) (\(names)) FROM STDIN (FORMAT binary)")
    var buffer = CopyBinary.header
    buffer.reserveCapacity(1 << 20 + (1 << 16))
    try rows { tuple in
      buffer.append(contentsOf: tuple)
      if buffer.count >= 1 << 20 {
        try buffer.withUnsafeBytes { try connection.putCopyData($0) }
        buffer.removeAll(keepingCapacity: true)
      }
    }
    buffer.append(contentsOf: CopyBinary.trailer)
    try buffer.withUnsafeBytes { try connection.putCopyData($0) }
    try connection.endCopyIn()
  }

  private func index(_ target: String, geometry: String) throws {
    try connection.execute("CREATE INDEX ON \(target) USING GIST (\(geometry))")
  }

  /// ` ON CONFLICT (key) DO UPDATE SET …` for an upsert, else nothing.
  private func conflictClause(columns: [(name: String, type: String)]) throws -> String {
    guard let upsertKey else { return "" }
    let key = try connection.quote(upsertKey)
    let updates = columns.filter { $0.name != key }.map { "\($0.name) = EXCLUDED.\($0.name)" }
    return " ON CONFLICT (\(key)) DO "
      + (updates.isEmpty ? "NOTHING" : "UPDATE SET " + updates.joined(separator: ", "))
  }
}
