import GeoPipeIO

/// A row group's columns, filled from the writer's scratch records: the geometry's WKB, the
/// covering box, and each property converted to its column's type.
struct RowGroupBuffers {
  var columns: [ColumnBuffer] = []
  var types: [PhysicalType] = []
  private let layout: ParquetLayout
  private let propertyTypes: [PropertyColumns.ColumnType]
  private let first: Int

  init(layout: ParquetLayout, rows: Int) {
    self.layout = layout
    var geometry = ColumnBuffer(values: .bytes(ByteArrays()))
    geometry.levels.reserveCapacity(rows)
    columns.append(geometry)
    types.append(.byteArray)
    if layout.covering {
      for _ in 0..<4 {
        columns.append(ColumnBuffer(values: .doubles([])))
        types.append(.double)
      }
    }
    first = columns.count
    propertyTypes = (0..<layout.properties.count).map { layout.properties.type($0) }
    for type in propertyTypes {
      let values: ColumnBuffer.Values =
        switch type {
        case .boolean: .booleans([])
        case .int64: .int64s([])
        case .double: .doubles([])
        case .string, .json: .bytes(ByteArrays())
        }
      var buffer = ColumnBuffer(values: values)
      buffer.levels.reserveCapacity(rows)
      columns.append(buffer)
      types.append(type.physical)
    }
  }

  /// Reads the records (as `GeoParquetWriter.write` made them) into the columns.
  mutating func read(_ records: UnsafeRawBufferPointer) throws {
    var cursor = ByteCursor(records)
    var seen = [Bool](repeating: false, count: propertyTypes.count)
    while cursor.remaining > 0 {
      _ = try cursor.uint32()
      if try cursor.byte() == 1 {
        let box = try (0..<4).map { _ in Double(bitPattern: try uint64(&cursor)) }
        let wkb = try cursor.take(Int(try cursor.uint32()))
        appendBytes(0, wkb)
        if layout.covering {
          // The struct's one level: its leaves are required within it.
          for k in 0..<4 {
            guard case .doubles(var v) = columns[1 + k].values else { continue }
            columns[1 + k].values = .booleans([])
            v.append(box[k])
            columns[1 + k].values = .doubles(v)
            columns[1 + k].levels.append(1)
          }
        }
      } else {
        columns[0].levels.append(0)
        if layout.covering { for k in 1...4 { columns[k].levels.append(0) } }
      }
      for k in seen.indices { seen[k] = false }
      let count = Int(try cursor.byte()) | Int(try cursor.byte()) << 8
      for _ in 0..<count {
        let column = Int(try cursor.byte()) | Int(try cursor.byte()) << 8
        let kind = PropertyColumns.Kind(rawValue: try cursor.byte()) ?? .null
        seen[column] = true
        try appendProperty(column, kind: kind, &cursor)
      }
      for k in seen.indices where !seen[k] { columns[first + k].levels.append(0) }
    }
  }

  private mutating func appendProperty(
    _ property: Int, kind: PropertyColumns.Kind, _ cursor: inout ByteCursor
  ) throws {
    let c = first + property
    let type = propertyTypes[property]
    switch kind {
    case .null:
      columns[c].levels.append(0)
    case .boolean:
      let b = try cursor.byte() == 1
      if type == .json {
        appendBytes(c, b ? "true" : "false")
      } else {
        guard case .booleans(var v) = columns[c].values else { return }
        columns[c].values = .int64s([])
        v.append(b)
        columns[c].values = .booleans(v)
        columns[c].levels.append(1)
      }
    case .integer:
      let n = Int64(bitPattern: try uint64(&cursor))
      switch columns[c].values {
      case .int64s(var v):
        columns[c].values = .booleans([])
        v.append(n)
        columns[c].values = .int64s(v)
        columns[c].levels.append(1)
      case .doubles(var v):
        columns[c].values = .booleans([])
        v.append(Double(n))
        columns[c].values = .doubles(v)
        columns[c].levels.append(1)
      default:
        appendBytes(c, String(n))
      }
    case .double:
      let d = Double(bitPattern: try uint64(&cursor))
      if case .doubles(var v) = columns[c].values {
        columns[c].values = .booleans([])
        v.append(d)
        columns[c].values = .doubles(v)
        columns[c].levels.append(1)
      } else {
        var w = JSONTextWriter()
        w.writeValue(.double(d))
        w.bytes.withUnsafeBytes { appendBytes(c, $0) }
      }
    case .string:
      let text = try cursor.take(Int(try cursor.uint32()))
      if type == .json {
        var w = JSONTextWriter()
        w.writeString(String(decoding: text, as: UTF8.self))
        w.bytes.withUnsafeBytes { appendBytes(c, $0) }
      } else {
        appendBytes(c, text)
      }
    case .json:
      appendBytes(c, try cursor.take(Int(try cursor.uint32())))
    }
  }

  private mutating func appendBytes(_ c: Int, _ bytes: UnsafeRawBufferPointer) {
    guard case .bytes(var v) = columns[c].values else { return }
    columns[c].values = .booleans([])
    v.append(bytes)
    columns[c].values = .bytes(v)
    columns[c].levels.append(1)
  }

  private mutating func appendBytes(_ c: Int, _ text: String) {
    Array(text.utf8).withUnsafeBytes { appendBytes(c, $0) }
  }

  private func uint64(_ cursor: inout ByteCursor) throws -> UInt64 {
    let raw = try cursor.take(8)
    return UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
  }
}
