/// Parquet's physical types (parquet.thrift `Type`).
enum PhysicalType: Int32 {
  case boolean = 0
  case int32 = 1
  case int64 = 2
  case int96 = 3
  case float = 4
  case double = 5
  case byteArray = 6
  case fixedLenByteArray = 7
}

/// Column chunk codecs (parquet.thrift `CompressionCodec`).
enum Codec: Int32 {
  case uncompressed = 0
  case snappy = 1
  case gzip = 2
  case lzo = 3
  case brotli = 4
  case lz4 = 5
  case zstd = 6
  case lz4Raw = 7
}

/// Value and level encodings (parquet.thrift `Encoding`).
enum Encoding: Int32 {
  case plain = 0
  case plainDictionary = 2
  case rle = 3
  case bitPacked = 4
  case deltaBinaryPacked = 5
  case deltaLengthByteArray = 6
  case deltaByteArray = 7
  case rleDictionary = 8
  case byteStreamSplit = 9
}

/// A time unit of TIME and TIMESTAMP.
enum TimeUnit: Sendable { case millis, micros, nanos }

/// The logical types geopipe interprets (parquet.thrift `LogicalType`, and the older
/// `ConvertedType` mapped onto it).
enum LogicalType: Equatable, Sendable {
  case string, json, bson, uuid, float16, date, enumeration, list, keyValueMap
  case decimal(scale: Int32, precision: Int32)
  case time(TimeUnit, utc: Bool)
  case timestamp(TimeUnit, utc: Bool)
  case integer(bits: Int, signed: Bool)
  case unknown
}

/// One element of the flattened schema tree.
struct SchemaElement {
  var type: PhysicalType?
  var typeLength: Int32 = 0
  /// 0 required, 1 optional, 2 repeated.
  var repetition: Int32 = 0
  var name = ""
  var childCount = 0
  var convertedType: Int32?
  var scale: Int32 = 0
  var precision: Int32 = 0
  var logicalType: LogicalType?
}

/// Column statistics (min and max as plain-encoded bytes).
struct Statistics {
  var min: [UInt8]?
  var max: [UInt8]?
  var nullCount: Int64?
}

/// The metadata of one column chunk.
struct ColumnMetaData {
  var type = PhysicalType.boolean
  var encodings: [Int32] = []
  var path: [String] = []
  var codec = Codec.uncompressed
  var valueCount: Int64 = 0
  var uncompressedSize: Int64 = 0
  var compressedSize: Int64 = 0
  var dataPageOffset: Int64 = 0
  var dictionaryPageOffset: Int64?
  var statistics: Statistics?
}

/// One row group: its rows and a chunk per leaf column.
struct RowGroup {
  var columns: [ColumnMetaData] = []
  var totalByteSize: Int64 = 0
  var rowCount: Int64 = 0
}

/// The file's footer.
struct FileMetaData {
  var version: Int32 = 1
  var schema: [SchemaElement] = []
  var rowCount: Int64 = 0
  var rowGroups: [RowGroup] = []
  var keyValues: [(key: String, value: String?)] = []
  var createdBy: String?
}

/// Page types (parquet.thrift `PageType`).
enum PageType: Int32 {
  case dataPage = 0
  case indexPage = 1
  case dictionaryPage = 2
  case dataPageV2 = 3
}

/// A page's header.
struct PageHeader {
  var type = PageType.dataPage
  var uncompressedSize: Int32 = 0
  var compressedSize: Int32 = 0
  var valueCount: Int32 = 0
  var encoding = Encoding.plain
  /// Data page v2: the levels' sizes (stored uncompressed before the values) and the nulls.
  var definitionLevelsSize: Int32 = 0
  var repetitionLevelsSize: Int32 = 0
  var nullCount: Int32 = 0
  var rowCount: Int32 = 0
  var isCompressed = true
}

// MARK: - Decoding

extension FileMetaData {
  /// Decodes a footer (parquet.thrift `FileMetaData`).
  init(decoding reader: inout ThriftReader) throws {
    var result = FileMetaData()
    try reader.readStruct { r, id, _ in
      switch id {
      case 1: result.version = try r.i32()
      case 2: result.schema = try r.list { try SchemaElement(decoding: &$0) }
      case 3: result.rowCount = try r.i64()
      case 4: result.rowGroups = try r.list { try RowGroup(decoding: &$0) }
      case 5:
        result.keyValues = try r.list { r in
          var key = ""
          var value: String?
          try r.readStruct { r, id, _ in
            switch id {
            case 1: key = try r.string()
            case 2: value = try r.string()
            default: return false
            }
            return true
          }
          return (key: key, value: value)
        }
      case 6: result.createdBy = try r.string()
      default: return false
      }
      return true
    }
    self = result
  }
}

extension SchemaElement {
  init(decoding reader: inout ThriftReader) throws {
    var e = SchemaElement()
    try reader.readStruct { r, id, _ in
      switch id {
      case 1:
        e.type = try r.enumeration(PhysicalType.self, "physical type")
      case 2: e.typeLength = try r.i32()
      case 3: e.repetition = try r.i32()
      case 4: e.name = try r.string()
      case 5: e.childCount = Int(max(0, try r.i32()))
      case 6: e.convertedType = try r.i32()
      case 7: e.scale = try r.i32()
      case 8: e.precision = try r.i32()
      case 10: e.logicalType = try LogicalType(decoding: &r)
      default: return false
      }
      return true
    }
    self = e
  }
}

extension LogicalType {
  /// Decodes the `LogicalType` union.
  init(decoding reader: inout ThriftReader) throws {
    var result = LogicalType.unknown
    try reader.readStruct { r, id, _ in
      switch id {
      case 1: result = .string
      case 2: result = .keyValueMap
      case 3: result = .list
      case 4: result = .enumeration
      case 5:
        var scale: Int32 = 0
        var precision: Int32 = 0
        try r.readStruct { r, id, _ in
          switch id {
          case 1: scale = try r.i32()
          case 2: precision = try r.i32()
          default: return false
          }
          return true
        }
        result = .decimal(scale: scale, precision: precision)
        return true
      case 6: result = .date
      case 7, 8:
        var utc = false
        var unit = TimeUnit.millis
        try r.readStruct { r, field, _ in
          switch field {
          case 1: utc = r.bool()
          case 2: unit = try Self.timeUnit(&r)
          default: return false
          }
          return true
        }
        result = id == 7 ? .time(unit, utc: utc) : .timestamp(unit, utc: utc)
        return true
      case 10:
        var bits = 64
        var signed = true
        try r.readStruct { r, field, _ in
          switch field {
          case 1: bits = Int(try r.byte())
          case 2: signed = r.bool()
          default: return false
          }
          return true
        }
        result = .integer(bits: bits, signed: signed)
        return true
      case 12: result = .json
      case 13: result = .bson
      case 14: result = .uuid
      case 15: result = .float16
      default: result = .unknown
      }
      // The empty structs of the other members.
      try r.skip(.struct)
      return true
    }
    self = result
  }

  private static func timeUnit(_ r: inout ThriftReader) throws -> TimeUnit {
    var unit = TimeUnit.millis
    try r.readStruct { r, id, _ in
      switch id {
      case 2: unit = .micros
      case 3: unit = .nanos
      default: unit = .millis
      }
      try r.skip(.struct)
      return true
    }
    return unit
  }

  /// The logical type an older `ConvertedType` stands for.
  init?(converted: Int32, scale: Int32, precision: Int32) {
    switch converted {
    case 0: self = .string
    case 1, 2: self = .keyValueMap
    case 3: self = .list
    case 4: self = .enumeration
    case 5: self = .decimal(scale: scale, precision: precision)
    case 6: self = .date
    case 7: self = .time(.millis, utc: true)
    case 8: self = .time(.micros, utc: true)
    case 9: self = .timestamp(.millis, utc: true)
    case 10: self = .timestamp(.micros, utc: true)
    case 11...14: self = .integer(bits: 8 << (Int(converted) - 11), signed: false)
    case 15...18: self = .integer(bits: 8 << (Int(converted) - 15), signed: true)
    case 19: self = .json
    case 20: self = .bson
    default: return nil
    }
  }
}

extension RowGroup {
  init(decoding reader: inout ThriftReader) throws {
    var g = RowGroup()
    try reader.readStruct { r, id, _ in
      switch id {
      case 1:
        g.columns = try r.list { r in
          var meta: ColumnMetaData?
          try r.readStruct { r, id, _ in
            switch id {
            case 1:
              _ = try r.string()
              throw ThriftError("column chunks in other files are not supported", at: r.position)
            case 3: meta = try ColumnMetaData(decoding: &r)
            default: return false
            }
            return true
          }
          guard let meta else {
            throw ThriftError("a column chunk has no metadata", at: r.position)
          }
          return meta
        }
      case 2: g.totalByteSize = try r.i64()
      case 3: g.rowCount = try r.i64()
      default: return false
      }
      return true
    }
    self = g
  }
}

extension ColumnMetaData {
  init(decoding reader: inout ThriftReader) throws {
    var m = ColumnMetaData()
    try reader.readStruct { r, id, _ in
      switch id {
      case 1:
        m.type = try r.enumeration(PhysicalType.self, "physical type")
      case 2: m.encodings = try r.list { try $0.i32() }
      case 3: m.path = try r.list { try $0.string() }
      case 4:
        m.codec = try r.enumeration(Codec.self, "codec")
      case 5: m.valueCount = try r.i64()
      case 6: m.uncompressedSize = try r.i64()
      case 7: m.compressedSize = try r.i64()
      case 9: m.dataPageOffset = try r.i64()
      case 11: m.dictionaryPageOffset = try r.i64()
      case 12: m.statistics = try Statistics(decoding: &r)
      default: return false
      }
      return true
    }
    self = m
  }
}

extension Statistics {
  init(decoding reader: inout ThriftReader) throws {
    var s = Statistics()
    var legacyMin: [UInt8]?
    var legacyMax: [UInt8]?
    try reader.readStruct { r, id, _ in
      switch id {
      case 1: legacyMax = Array(try r.binary())
      case 2: legacyMin = Array(try r.binary())
      case 3: s.nullCount = try r.i64()
      case 5: s.max = Array(try r.binary())
      case 6: s.min = Array(try r.binary())
      default: return false
      }
      return true
    }
    // The deprecated min and max are right for the numeric types, the only ones read here.
    if s.min == nil { s.min = legacyMin }
    if s.max == nil { s.max = legacyMax }
    self = s
  }
}

extension PageHeader {
  init(decoding reader: inout ThriftReader) throws {
    var h = PageHeader()
    try reader.readStruct { r, id, _ in
      switch id {
      case 1:
        h.type = try r.enumeration(PageType.self, "page type")
      case 2: h.uncompressedSize = try r.i32()
      case 3: h.compressedSize = try r.i32()
      case 5, 7:
        try r.readStruct { r, id, _ in
          switch id {
          case 1: h.valueCount = try r.i32()
          case 2: h.encoding = try r.enumeration(Encoding.self, "encoding")
          default: return false
          }
          return true
        }
      case 8:
        try r.readStruct { r, id, _ in
          switch id {
          case 1: h.valueCount = try r.i32()
          case 2: h.nullCount = try r.i32()
          case 3: h.rowCount = try r.i32()
          case 4: h.encoding = try r.enumeration(Encoding.self, "encoding")
          case 5: h.definitionLevelsSize = try r.i32()
          case 6: h.repetitionLevelsSize = try r.i32()
          case 7: h.isCompressed = r.bool()
          default: return false
          }
          return true
        }
      default: return false
      }
      return true
    }
    guard h.uncompressedSize >= 0, h.compressedSize >= 0, h.valueCount >= 0,
      h.definitionLevelsSize >= 0, h.repetitionLevelsSize >= 0
    else { throw ThriftError("the page header has a negative size", at: reader.position) }
    self = h
  }
}
