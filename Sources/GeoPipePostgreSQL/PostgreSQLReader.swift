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
  private let columns: [(name: String, decoding: PostgreSQLQuery.Decoding)]
  private let fidIndex: Int?
  private var pending: [UInt8] = []
  private var offset = 0
  private var started = false
  private var row = 0
  private(set) var bytesRead = 0
  let skippedCount = 0
  var collectionMembers: JSONObject { JSONObject() }

  init(url: String, options: ReadOptions) throws {
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
    switch (values.string("table") ?? options.layer, values.string("sql")) {
    case (let table?, nil):
      let parts = try PostgreSQL.tableName(table)
      source =
        try (parts.schema.map { try connection.quote($0) + "." } ?? "")
        + connection.quote(parts.name)
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
      let query = try PostgreSQLQuery(
        connection: connection, source: source,
        geometryColumn: values.string("geometry-column"), bbox: options.bbox)
      columns = query.columns
      fidIndex = values.string("fid-column").flatMap { fid in
        query.columns.firstIndex { $0.name == fid }
      }
      if let fid = values.string("fid-column"), fidIndex == nil {
        throw PostgreSQLError(message: "no column '\(fid)' for --fid-column")
      }
      try connection.beginCopyOut(query.copy)
    } catch let error as PostgreSQLError {
      throw GeoPipeError("cannot read \(name): \(error)", status: .noInput)
    }
  }

  func next() throws -> Feature? {
    do {
      if !started {
        started = true
        guard try available(19) else { throw PostgreSQLError(message: "no COPY header") }
        let extensionLength = Int(load(Int32.self, at: offset + 15))
        offset += 19
        guard try available(extensionLength) else {
          throw PostgreSQLError(message: "COPY header cut short")
        }
        offset += extensionLength
      }
      guard try available(2) else { throw PostgreSQLError(message: "COPY data cut short") }
      let fieldCount = Int(load(Int16.self, at: offset))
      offset += 2
      if fieldCount == -1 {
        while try connection.nextCopyData({ _ in }) {}
        return nil
      }
      guard fieldCount == columns.count else {
        throw PostgreSQLError(message: "a row has \(fieldCount) fields, not \(columns.count)")
      }
      row += 1
      var feature = Feature()
      var properties = JSONObject()
      properties.reserveCapacity(columns.count)
      for k in 0..<fieldCount {
        guard try available(4) else { throw PostgreSQLError(message: "COPY data cut short") }
        let length = Int(load(Int32.self, at: offset))
        offset += 4
        guard length >= 0 else {
          if k != fidIndex && columns[k].decoding != .geometry {
            properties.appendUnchecked(columns[k].name, .null)
          }
          continue
        }
        guard try available(length) else { throw PostgreSQLError(message: "COPY data cut short") }
        let value = try pending.withUnsafeBytes { bytes in
          try decode(
            UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), column: k,
            into: &feature)
        }
        offset += length
        if k == fidIndex {
          feature.id = value
        } else if let value {
          properties.appendUnchecked(columns[k].name, value)
        }
      }
      feature.properties = properties
      return feature
    } catch let error as PostgreSQLError {
      throw GeoPipeError("cannot read \(name): \(error)", status: .noInput)
    }
  }

  // MARK: Decoding

  /// Whether `count` bytes past `offset` are in `pending`, after fetching more COPY data.
  private func available(_ count: Int) throws -> Bool {
    while pending.count - offset < count {
      if offset > 0 {
        pending.removeFirst(offset)
        offset = 0
      }
      let more = try connection.nextCopyData { bytes in
        pending.append(contentsOf: bytes)
        bytesRead += bytes.count
      }
      if !more { return false }
    }
    return true
  }

  private func load<T: FixedWidthInteger>(_ type: T.Type, at position: Int) -> T {
    pending.withUnsafeBytes { CopyBinary.load(type, $0, at: position) }
  }

  /// A field's value; the geometry goes into `feature` (nil returned).
  private func decode(_ bytes: UnsafeRawBufferPointer, column k: Int, into feature: inout Feature)
    throws -> JSONValue?
  {
    switch columns[k].decoding {
    case .geometry:
      do {
        feature.geometry = try WKBReader.parse(bytes).geometry
      } catch {
        throw GeoPipeError.data(
          "\(name): row \(row): column '\(columns[k].name)': \(error)", at: nil)
      }
      return nil
    case .boolean: return .bool(bytes.first == 1)
    case .int2: return .integer(Int64(CopyBinary.load(Int16.self, bytes, at: 0)))
    case .int4: return .integer(Int64(CopyBinary.load(Int32.self, bytes, at: 0)))
    case .int8: return .integer(CopyBinary.load(Int64.self, bytes, at: 0))
    case .float4:
      return number(Double(Float(bitPattern: CopyBinary.load(UInt32.self, bytes, at: 0))))
    case .float8: return number(Double(bitPattern: CopyBinary.load(UInt64.self, bytes, at: 0)))
    case .text: return .string(String(decoding: bytes, as: UTF8.self))
    case .json: return try json(bytes, column: k)
    case .jsonb: return try json(UnsafeRawBufferPointer(rebasing: bytes.dropFirst()), column: k)
    }
  }

  /// A finite double as a number; NaN and the infinities, which JSON has no numbers for, as
  /// the words PostgreSQL writes them as.
  private func number(_ x: Double) -> JSONValue {
    x.isFinite ? .double(x) : .string(x.isNaN ? "NaN" : x > 0 ? "Infinity" : "-Infinity")
  }

  private func json(_ bytes: UnsafeRawBufferPointer, column k: Int) throws -> JSONValue {
    do {
      return try JSONText.parse(Array(bytes), name: "\(name) row \(row) '\(columns[k].name)'")
    } catch let error as GeoPipeError {
      throw GeoPipeError.data(error.message, at: nil)
    }
  }
}
