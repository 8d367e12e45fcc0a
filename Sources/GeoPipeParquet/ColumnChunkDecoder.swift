/// One column chunk, decoded: its levels and its non-null values.
struct DecodedColumn {
  /// A definition level per entry (empty when the column is required and flat).
  var definitionLevels: [UInt32] = []
  /// A repetition level per entry (empty when nothing on its path repeats).
  var repetitionLevels: [UInt32] = []
  /// The values of the entries defined down to the leaf, in order.
  var values: ColumnValues
  /// The entries (rows, for a flat column).
  var entryCount = 0
}

/// Decodes a column chunk's pages: the dictionary page, then data pages v1 and v2 in PLAIN,
/// dictionary, RLE (booleans), DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY
/// and BYTE_STREAM_SPLIT encodings.
struct ColumnChunkDecoder {
  let leaf: SchemaNode
  let meta: ColumnMetaData
  let codec: PageCodec
  /// The chunk's offset in the file, for messages.
  let fileOffset: Int

  /// The length of a fixed-length value: INT96's 12 bytes, a FIXED_LEN_BYTE_ARRAY's declared
  /// length; 0 for the others.
  private var typeLength: Int {
    leaf.element.type == .int96 ? 12 : Int(leaf.element.typeLength)
  }

  /// Decodes `chunk`, the chunk's bytes from its first page; `rows` is the row group's count.
  func decode(_ chunk: UnsafeRawBufferPointer, rows: Int) throws -> DecodedColumn {
    guard let type = leaf.element.type, type == meta.type else {
      throw ParquetError("the chunk's physical type differs from the schema's")
    }
    var column = DecodedColumn(values: ColumnValues(type))
    var dictionary: ColumnValues?
    var position = 0
    let expected = Int(clamping: meta.valueCount)
    while column.entryCount < expected {
      guard position < chunk.count else {
        throw ParquetError(
          "the chunk ends after \(column.entryCount) of its \(expected) values")
      }
      var thrift = ThriftReader(chunk, at: position)
      let header: PageHeader
      do {
        header = try PageHeader(decoding: &thrift)
      } catch let error as ThriftError {
        throw ParquetError(
          "the page header at byte \(fileOffset + position) is corrupt: \(error.message)")
      }
      let start = thrift.position
      let size = Int(header.compressedSize)
      guard size <= chunk.count - start else {
        throw ParquetError("a page of \(size) bytes runs past the end of the chunk")
      }
      let body = UnsafeRawBufferPointer(rebasing: chunk[start..<start + size])
      position = start + size
      switch header.type {
      case .dictionaryPage:
        let bytes = try codec.decompress(
          body, codec: meta.codec, size: Int(header.uncompressedSize))
        var values = ColumnValues(type)
        try bytes.withUnsafeBytes { raw in
          var cursor = ByteCursor(raw)
          try values.appendPlain(
            &cursor, count: Int(header.valueCount), typeLength: typeLength)
        }
        dictionary = values
      case .dataPage:
        let bytes = try codec.decompress(
          body, codec: meta.codec, size: Int(header.uncompressedSize))
        try bytes.withUnsafeBytes { raw in
          var cursor = ByteCursor(raw)
          try decodePage(&cursor, header: header, v2: false, dictionary: dictionary, into: &column)
        }
      case .dataPageV2:
        let levels = Int(header.repetitionLevelsSize) + Int(header.definitionLevelsSize)
        guard levels <= size, levels <= Int(header.uncompressedSize) else {
          throw ParquetError("the page's levels are longer than the page")
        }
        var bytes = Array(UnsafeRawBufferPointer(rebasing: body[0..<levels]))
        let values = UnsafeRawBufferPointer(rebasing: body[levels...])
        if header.isCompressed {
          bytes += try codec.decompress(
            values, codec: meta.codec, size: Int(header.uncompressedSize) - levels)
        } else {
          bytes += values
        }
        try bytes.withUnsafeBytes { raw in
          var cursor = ByteCursor(raw)
          try decodePage(&cursor, header: header, v2: true, dictionary: dictionary, into: &column)
        }
      case .indexPage:
        continue
      }
    }
    guard column.entryCount == expected else {
      throw ParquetError("the pages hold \(column.entryCount) values, not \(expected)")
    }
    if leaf.repetitionLevel == 0, column.entryCount != rows {
      throw ParquetError("the chunk holds \(column.entryCount) values for \(rows) rows")
    }
    return column
  }

  private func decodePage(
    _ cursor: inout ByteCursor, header: PageHeader, v2: Bool, dictionary: ColumnValues?,
    into column: inout DecodedColumn
  ) throws {
    let count = Int(header.valueCount)
    guard count <= Int(clamping: meta.valueCount) - column.entryCount else {
      throw ParquetError("the pages hold more values than the chunk's \(meta.valueCount)")
    }
    if leaf.repetitionLevel > 0 {
      column.repetitionLevels += try HybridDecoder.levels(
        &cursor, maxLevel: leaf.repetitionLevel, count: count,
        length: v2 ? Int(header.repetitionLevelsSize) : nil)
    }
    var present = count
    if leaf.definitionLevel > 0 {
      let levels = try HybridDecoder.levels(
        &cursor, maxLevel: leaf.definitionLevel, count: count,
        length: v2 ? Int(header.definitionLevelsSize) : nil)
      present = 0
      for level in levels where level == leaf.definitionLevel { present += 1 }
      column.definitionLevels += levels
    }
    column.entryCount += count
    switch header.encoding {
    case .plain:
      try column.values.appendPlain(&cursor, count: present, typeLength: typeLength)
    case .plainDictionary, .rleDictionary:
      guard let dictionary else {
        throw ParquetError("a dictionary-encoded page comes without a dictionary page")
      }
      guard present > 0 else { return }
      let width = Int(try cursor.byte())
      var indices: [UInt32] = []
      try HybridDecoder.decode(&cursor, bitWidth: width, count: present, into: &indices)
      try column.values.appendGathered(dictionary, indices)
    case .rle:
      guard case .booleans(var values) = column.values else {
        throw ParquetError("RLE values are only read for BOOLEAN columns")
      }
      column.values = .booleans([])
      _ = try cursor.uint32()
      var bits: [UInt32] = []
      try HybridDecoder.decode(&cursor, bitWidth: 1, count: present, into: &bits)
      values += bits.map { $0 == 1 }
      column.values = .booleans(values)
    case .deltaBinaryPacked:
      let values = try DeltaDecoder.decode(&cursor, count: present)
      guard values.count == present else {
        throw ParquetError("the page holds \(values.count) values, not \(present)")
      }
      try column.values.appendIntegers(values)
    case .deltaLengthByteArray:
      let lengths = try DeltaDecoder.decode(&cursor, count: present)
      try appendStrings(&cursor, prefixes: nil, lengths: lengths, count: present, to: &column)
    case .deltaByteArray:
      let prefixes = try DeltaDecoder.decode(&cursor, count: present)
      let lengths = try DeltaDecoder.decode(&cursor, count: present)
      try appendStrings(&cursor, prefixes: prefixes, lengths: lengths, count: present, to: &column)
    case .byteStreamSplit:
      try column.values.appendByteStreamSplit(&cursor, count: present)
    case .bitPacked:
      throw ParquetError("BIT_PACKED values are not supported")
    }
  }

  /// Appends byte arrays whose lengths (and, for DELTA_BYTE_ARRAY, prefix lengths shared with
  /// the previous value) were delta-encoded, followed by their bytes.
  private func appendStrings(
    _ cursor: inout ByteCursor, prefixes: [Int64]?, lengths: [Int64], count: Int,
    to column: inout DecodedColumn
  ) throws {
    guard case .bytes(var values) = column.values else {
      throw ParquetError("a byte-array encoding in a column of another type")
    }
    guard lengths.count == count, prefixes == nil || prefixes?.count == count else {
      throw ParquetError("the page holds \(lengths.count) lengths, not \(count)")
    }
    column.values = .booleans([])
    var previous: [UInt8] = []
    for k in 0..<count {
      guard lengths[k] >= 0, lengths[k] <= cursor.remaining else {
        throw ParquetError("a value of \(lengths[k]) bytes runs past the end of the page")
      }
      let suffix = try cursor.take(Int(lengths[k]))
      if let prefixes {
        let prefix = prefixes[k]
        guard prefix >= 0, prefix <= previous.count else {
          throw ParquetError("a prefix of \(prefix) bytes is longer than the previous value")
        }
        previous = Array(previous[0..<Int(prefix)]) + suffix
        previous.withUnsafeBytes { values.append($0) }
      } else {
        values.append(suffix)
      }
    }
    column.values = .bytes(values)
  }
}
