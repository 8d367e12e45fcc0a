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
    var geometry = ColumnBuffer(.bytes)
    geometry.levels.reserveCapacity(rows)
    columns.append(geometry)
    types.append(.byteArray)
    if layout.covering {
      for _ in 0..<4 {
        var box = ColumnBuffer(.doubles)
        box.levels.reserveCapacity(rows)
        box.doubles.reserveCapacity(rows)
        columns.append(box)
        types.append(.double)
      }
    }
    first = columns.count
    propertyTypes = (0..<layout.properties.count).map { layout.properties.type($0) }
    for type in propertyTypes {
      var buffer: ColumnBuffer
      switch type {
      case .boolean: buffer = ColumnBuffer(.booleans)
      case .int64: buffer = ColumnBuffer(.int64s)
      case .double: buffer = ColumnBuffer(.doubles)
      case .string, .json: buffer = ColumnBuffer(.bytes)
      }
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
        // The covering struct has one level: its leaves are required within it.
        for k in 1...4 {
          let value = Double(bitPattern: try uint64(&cursor))
          if layout.covering {
            columns[k].doubles.append(value)
            columns[k].levels.append(1)
          }
        }
        let wkb = try cursor.take(Int(try cursor.uint32()))
        appendBytes(0, wkb)
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
        columns[c].booleans.append(b)
        columns[c].levels.append(1)
      }
    case .integer:
      let n = Int64(bitPattern: try uint64(&cursor))
      switch type {
      case .int64:
        columns[c].int64s.append(n)
        columns[c].levels.append(1)
      case .double:
        columns[c].doubles.append(Double(n))
        columns[c].levels.append(1)
      default:
        appendBytes(c, String(n))
      }
    case .double:
      let d = Double(bitPattern: try uint64(&cursor))
      if type == .double {
        columns[c].doubles.append(d)
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
    columns[c].bytes.append(bytes)
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
