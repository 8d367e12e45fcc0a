import GeoPipeCore
import GeoPipeIO

/// Where binary COPY data comes from: a connection (`PQgetCopyData`), or bytes in memory.
protocol CopyDataSource: AnyObject {
  /// Hands the next message of COPY data to `body`; false at the end.
  func nextCopyData(_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool
}

extension PostgreSQLConnection: CopyDataSource {}

/// Turns binary COPY data (`CopyBinary`) into features, one row at a time.
///
/// The geometry column (EWKB) becomes the geometry, the id column the id and every other column
/// a property. Every length is checked against the bytes there are and the size its type
/// needs: malformed data is a data error naming the row, never a crash.
final class CopyDecoder {
  private let source: any CopyDataSource
  private let columns: [(name: String, decoding: PostgreSQLQuery.Decoding)]
  private let fidIndex: Int?
  private let name: String
  private var pending: [UInt8] = []
  private var offset = 0
  private var started = false
  private var row = 0
  /// Bytes of COPY data received so far.
  private(set) var bytesRead = 0

  init(
    source: any CopyDataSource, columns: [(name: String, decoding: PostgreSQLQuery.Decoding)],
    fidIndex: Int?, name: String
  ) {
    self.source = source
    self.columns = columns
    self.fidIndex = fidIndex
    self.name = name
  }

  /// The next row's feature, or nil after the trailer.
  func next() throws -> Feature? {
    if !started {
      started = true
      try need(19, "the header")
      let signature = pending.withUnsafeBytes { Array($0[offset..<(offset + 11)]) }
      guard signature == Array(CopyBinary.header.prefix(11)) else {
        throw malformed("the data does not start with the binary COPY signature")
      }
      let extensionLength = Int(load(UInt32.self, at: offset + 15))
      offset += 19
      try need(extensionLength, "the header extension")
      offset += extensionLength
    }
    row += 1
    try need(2, "a row")
    let fieldCount = Int(load(Int16.self, at: offset))
    offset += 2
    if fieldCount == -1 {
      while try source.nextCopyData({ _ in }) {}
      return nil
    }
    guard fieldCount == columns.count else {
      throw malformed("a row has \(fieldCount) fields, not \(columns.count)")
    }
    var feature = Feature()
    var properties = JSONObject()
    properties.reserveCapacity(columns.count)
    for k in 0..<fieldCount {
      try need(4, "a field")
      let length = Int(load(Int32.self, at: offset))
      offset += 4
      guard length != -1 else {
        if k != fidIndex && columns[k].decoding != .geometry {
          properties.appendUnchecked(columns[k].name, .null)
        }
        continue
      }
      guard length >= 0 else { throw malformed("a field has the length \(length)") }
      try need(length, "a field")
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
  }

  // MARK: Bytes

  /// Makes sure `count` bytes past `offset` are in `pending`, fetching more COPY data.
  private func need(_ count: Int, _ what: String) throws {
    while pending.count - offset < count {
      if offset > 0 {
        pending.removeFirst(offset)
        offset = 0
      }
      let more = try source.nextCopyData { bytes in
        pending.append(contentsOf: bytes)
        bytesRead += bytes.count
      }
      if !more { throw malformed("the data ends inside \(what)") }
    }
  }

  private func load<T: FixedWidthInteger>(_ type: T.Type, at position: Int) -> T {
    pending.withUnsafeBytes { CopyBinary.load(type, $0, at: position) }
  }

  private func malformed(_ message: String) -> GeoPipeError {
    GeoPipeError.data("\(name): row \(row) of the COPY data: \(message)", at: nil)
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
    case .boolean:
      try size(bytes, 1, column: k)
      return .bool(bytes.first == 1)
    case .int2:
      try size(bytes, 2, column: k)
      return .integer(Int64(CopyBinary.load(Int16.self, bytes, at: 0)))
    case .int4:
      try size(bytes, 4, column: k)
      return .integer(Int64(CopyBinary.load(Int32.self, bytes, at: 0)))
    case .int8:
      try size(bytes, 8, column: k)
      return .integer(CopyBinary.load(Int64.self, bytes, at: 0))
    case .float4:
      try size(bytes, 4, column: k)
      return number(Double(Float(bitPattern: CopyBinary.load(UInt32.self, bytes, at: 0))))
    case .float8:
      try size(bytes, 8, column: k)
      return number(Double(bitPattern: CopyBinary.load(UInt64.self, bytes, at: 0)))
    case .text: return .string(String(decoding: bytes, as: UTF8.self))
    case .json: return try json(bytes, column: k)
    case .jsonb:
      guard bytes.first == CopyBinary.jsonbVersion else {
        throw malformed("column '\(columns[k].name)': a jsonb value of an unknown version")
      }
      return try json(UnsafeRawBufferPointer(rebasing: bytes.dropFirst()), column: k)
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

  private func size(_ bytes: UnsafeRawBufferPointer, _ count: Int, column k: Int) throws {
    guard bytes.count == count else {
      throw malformed("column '\(columns[k].name)': \(bytes.count) bytes, not \(count)")
    }
  }
}
