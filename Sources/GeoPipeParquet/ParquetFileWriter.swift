import GeoPipeCore
import GeoPipeIO

/// The columns of a GeoParquet file geopipe writes: the geometry (WKB), the covering box
/// struct, then the properties.
struct ParquetLayout {
  var properties: PropertyColumns
  var covering: Bool
  var geometryName: String
  var coveringName: String

  init(properties: PropertyColumns, covering: Bool) {
    self.properties = properties
    self.covering = covering
    geometryName =
      ["geometry", "geom", "wkb_geometry"].first { properties.index[$0] == nil } ?? "geometry_"
    coveringName = ["bbox", "geometry_bbox"].first { properties.index[$0] == nil } ?? "bbox_"
  }

  /// The flattened schema (parquet.thrift `SchemaElement`s).
  var schema: [SchemaElement] {
    var elements: [SchemaElement] = []
    var root = SchemaElement()
    root.name = "schema"
    root.childCount = 1 + (covering ? 1 : 0) + properties.count
    elements.append(root)
    var geometry = SchemaElement(type: .byteArray, repetition: 1)
    geometry.name = geometryName
    elements.append(geometry)
    if covering {
      var group = SchemaElement(repetition: 1)
      group.name = coveringName
      group.childCount = 4
      elements.append(group)
      for key in ["xmin", "ymin", "xmax", "ymax"] {
        var leaf = SchemaElement(type: .double, repetition: 0)
        leaf.name = key
        elements.append(leaf)
      }
    }
    for k in 0..<properties.count {
      let type = properties.type(k)
      var element = SchemaElement(type: type.physical, repetition: 1)
      element.name = properties.names[k]
      switch type {
      case .string:
        element.logicalType = .string
        element.convertedType = 0
      case .json:
        element.logicalType = .json
        element.convertedType = 19
      default: break
      }
      elements.append(element)
    }
    return elements
  }

  /// The leaf columns' paths, in chunk order.
  var paths: [[String]] {
    [[geometryName]]
      + (covering ? ["xmin", "ymin", "xmax", "ymax"].map { [coveringName, $0] } : [])
      + properties.names.map { [$0] }
  }
}

/// Writes a Parquet file to a sink: the magic, row groups of column chunks, and the footer.
struct ParquetFileWriter {
  let sink: ByteSink
  let layout: ParquetLayout
  private let encoder: ColumnChunkEncoder
  private var offset = 0
  private var rowGroups: [RowGroup] = []
  private var rows: Int64 = 0

  init(sink: ByteSink, codec: Codec, layout: ParquetLayout) throws {
    self.sink = sink
    self.layout = layout
    encoder = ColumnChunkEncoder(codec: codec, compressor: try PageCodec())
  }

  mutating func start() throws { try write(ParquetFile.magic) }

  /// Writes the row group of the `rows` scratch records in `records`.
  mutating func writeRowGroup(_ records: UnsafeRawBufferPointer, rows count: Int) throws {
    var buffers = RowGroupBuffers(layout: layout, rows: count)
    try buffers.read(records)
    var group = RowGroup()
    group.rowCount = Int64(count)
    for (k, buffer) in buffers.columns.enumerated() {
      let chunk: EncodedChunk
      do {
        chunk = try encoder.encode(
          buffer, path: layout.paths[k], type: buffers.types[k], at: offset)
      } catch let error as ParquetError {
        throw GeoPipeError(
          "row group \(rowGroups.count), column \(layout.paths[k].joined(separator: ".")): "
            + error.message, status: .dataError)
      }
      try write(chunk.bytes)
      group.columns.append(chunk.meta)
      group.totalByteSize += chunk.meta.uncompressedSize
    }
    rowGroups.append(group)
    rows += Int64(count)
  }

  /// Writes the footer with the `geo` metadata.
  mutating func finish(geo: String) throws {
    var w = ThriftWriter()
    let schema = layout.schema
    w.structBody { w in
      w.i32(1, 2)
      w.listField(2, .struct, count: schema.count)
      for element in schema { w.structBody { Self.encode(element, &$0) } }
      w.i64(3, rows)
      w.listField(4, .struct, count: rowGroups.count)
      for group in rowGroups { w.structBody { Self.encode(group, &$0) } }
      w.listField(5, .struct, count: 1)
      w.structBody { w in
        w.string(1, "geo")
        w.string(2, geo)
      }
      w.string(6, "geopipe")
      // Column orders: every column by its type's order, so that min and max are used.
      let leaves = layout.paths.count
      w.listField(7, .struct, count: leaves)
      for _ in 0..<leaves {
        w.structBody { w in w.structField(1) { _ in } }
      }
    }
    try write(w.bytes)
    try write(ColumnChunkEncoder.le32(UInt32(w.bytes.count)) + ParquetFile.magic)
  }

  private mutating func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try sink.write($0) }
    offset += bytes.count
  }

  private static func encode(_ e: SchemaElement, _ w: inout ThriftWriter) {
    if let type = e.type { w.i32(1, type.rawValue) }
    if e.type != nil || e.repetition != 0 || e.childCount == 0 { w.i32(3, e.repetition) }
    w.string(4, e.name)
    if e.childCount > 0 { w.i32(5, Int32(e.childCount)) }
    if let converted = e.convertedType { w.i32(6, converted) }
    if let logical = e.logicalType {
      w.structField(10) { w in
        w.structField(logical == .json ? 12 : 1) { _ in }
      }
    }
  }

  private static func encode(_ g: RowGroup, _ w: inout ThriftWriter) {
    w.listField(1, .struct, count: g.columns.count)
    for column in g.columns {
      w.structBody { w in
        w.i64(2, column.chunkStart)
        w.structField(3) { w in encode(column, &w) }
      }
    }
    w.i64(2, g.totalByteSize)
    w.i64(3, g.rowCount)
  }

  private static func encode(_ m: ColumnMetaData, _ w: inout ThriftWriter) {
    w.i32(1, m.type.rawValue)
    w.listField(2, .i32, count: m.encodings.count)
    for encoding in m.encodings { w.zigzag(Int64(encoding)) }
    w.listField(3, .binary, count: m.path.count)
    for name in m.path { w.element(Array(name.utf8)) }
    w.i32(4, m.codec.rawValue)
    w.i64(5, m.valueCount)
    w.i64(6, m.uncompressedSize)
    w.i64(7, m.compressedSize)
    w.i64(9, m.dataPageOffset)
    if let dictionary = m.dictionaryPageOffset { w.i64(11, dictionary) }
    if let s = m.statistics {
      w.structField(12) { w in
        if let nulls = s.nullCount { w.i64(3, nulls) }
        if let max = s.max { w.binary(5, max) }
        if let min = s.min { w.binary(6, min) }
      }
    }
  }
}
