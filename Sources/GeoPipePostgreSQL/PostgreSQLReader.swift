import GeoPipeCore
import GeoPipeIO

/// Reads the rows of a table or a query as features, streamed with
/// `COPY (query) TO STDOUT (FORMAT binary)`: memory does not grow with the number of rows.
///
/// The geometry column becomes the geometry (in WGS84), `--fid-column` the id, and every
/// other column a property, in the query's order (NULL as null).
final class PostgreSQLReader: FeatureReader {
  private let connection: PostgreSQLConnection
  private let name: String
  private let decoder: CopyDecoder
  var bytesRead: Int { decoder.bytesRead }
  let skippedCount = 0
  var collectionMembers: JSONObject { JSONObject() }

  /// Opens the table or query the options name; with `share`, only one shard's share of it
  /// (see `PostgreSQLShare`).
  init(url: String, options: ReadOptions, share: InputShare? = nil) throws {
    let name = PostgreSQL.redacted(url)
    self.name = name
    let values = options.formatOptions
    let connection: PostgreSQLConnection
    do {
      connection = try PostgreSQLConnection(url: url)
    } catch {
      throw GeoPipeError("cannot read \(name): \(error)", status: .noInput)
    }
    self.connection = connection
    let source: String
    var isTable = false
    switch (values.string("table") ?? options.layer, values.string("sql")) {
    case (let table?, nil):
      do {
        source = try connection.quote(table: try PostgreSQL.tableName(table))
        isTable = true
      } catch let error as PostgreSQLError {
        throw GeoPipeError("cannot read \(name): \(error)", status: .noInput)
      }
    case (nil, let sql?):
      var text = Substring(sql)
      while let last = text.last, last == ";" || last.isWhitespace { text = text.dropLast() }
      source = "(\(text)\n)"
    case (_?, _?):
      throw GeoPipeError.usage("PostgreSQL: give --table or --sql, not both")
    case (nil, nil):
      throw GeoPipeError.usage("PostgreSQL: give --table NAME or --sql \"SELECT …\" to read")
    }
    do {
      let fixed = isTable ? try PostgreSQLShare.order(of: source, connection: connection) : nil
      var conditions: [String] = []
      let order = try fixed.flatMap { order in
        try PostgreSQLShare.sortedOrder(order, bbox: options.bbox, connection: connection)
      }
      if let share, fixed != nil {
        conditions = try PostgreSQLShare.conditions(share, table: source, connection: connection)
      } else if let share, !share.readsWhole {
        conditions = ["false"]
      }
      let query = try PostgreSQLQuery(
        connection: connection, source: source,
        geometryColumn: values.string("geometry-column"), bbox: options.bbox,
        conditions: conditions, order: order)
      let fidIndex = values.string("fid-column").flatMap { fid in
        query.columns.firstIndex { $0.name == fid }
      }
      if let fid = values.string("fid-column"), fidIndex == nil {
        throw PostgreSQLError(message: "no column '\(fid)' for --fid-column")
      }
      try connection.beginCopyOut(query.copy)
      decoder = CopyDecoder(
        source: connection, columns: query.columns, fidIndex: fidIndex, name: name)
    } catch let error as PostgreSQLError {
      throw GeoPipeError("cannot read \(name): \(error)", status: .noInput)
    }
  }

  /// Opens a shard's share of a table (`PostgreSQLShare`); a query is read whole by the shard
  /// whose share holds its start, and the others do not connect.
  @Sendable
  static func openShare(_ url: String, options: ReadOptions, share: InputShare) throws
    -> any FeatureReader
  {
    let values = options.formatOptions
    if values.string("sql") != nil, values.string("table") ?? options.layer == nil,
      !share.readsWhole
    {
      return EmptyFeatureReader()
    }
    return try PostgreSQLReader(url: url, options: options, share: share)
  }

  func next() throws -> Feature? {
    do {
      return try decoder.next()
    } catch let error as PostgreSQLError {
      throw GeoPipeError("cannot read \(name): \(error)", status: .noInput)
    }
  }
}
