import GeoPipeCore

/// FlatGeobuf's geometry types (the WKB numbering, `header.fbs`).
enum FGBGeometryType: UInt8 {
  case unknown = 0
  case point = 1
  case lineString = 2
  case polygon = 3
  case multiPoint = 4
  case multiLineString = 5
  case multiPolygon = 6
  case geometryCollection = 7

  init(_ kind: GeometryKind) {
    switch kind {
    case .point: self = .point
    case .lineString: self = .lineString
    case .polygon: self = .polygon
    case .multiPoint: self = .multiPoint
    case .multiLineString: self = .multiLineString
    case .multiPolygon: self = .multiPolygon
    case .geometryCollection: self = .geometryCollection
    }
  }

  /// The name `geopipe layers` shows.
  var name: String {
    switch self {
    case .unknown: "Geometry"
    case .point: "Point"
    case .lineString: "LineString"
    case .polygon: "Polygon"
    case .multiPoint: "MultiPoint"
    case .multiLineString: "MultiLineString"
    case .multiPolygon: "MultiPolygon"
    case .geometryCollection: "GeometryCollection"
    }
  }

  /// The names of the types geopipe does not read (curves and surfaces), by number.
  static func unsupportedName(_ raw: UInt8) -> String {
    let names = [
      8: "CircularString", 9: "CompoundCurve", 10: "CurvePolygon", 11: "MultiCurve",
      12: "MultiSurface", 13: "Curve", 14: "Surface", 15: "PolyhedralSurface", 16: "TIN",
      17: "Triangle",
    ]
    return names[Int(raw)].map { "\($0) (\(raw))" } ?? "\(raw)"
  }
}

/// FlatGeobuf's column types (`header.fbs`).
enum FGBColumnType: UInt8, CaseIterable {
  case byte = 0
  case ubyte
  case bool
  case short
  case ushort
  case int
  case uint
  case long
  case ulong
  case float
  case double
  case string
  case json
  case dateTime
  case binary

  /// The name in the specification.
  var name: String {
    switch self {
    case .byte: "Byte"
    case .ubyte: "UByte"
    case .bool: "Bool"
    case .short: "Short"
    case .ushort: "UShort"
    case .int: "Int"
    case .uint: "UInt"
    case .long: "Long"
    case .ulong: "ULong"
    case .float: "Float"
    case .double: "Double"
    case .string: "String"
    case .json: "Json"
    case .dateTime: "DateTime"
    case .binary: "Binary"
    }
  }

  /// Bytes of a fixed-size value; nil for those stored with a length.
  var fixedSize: Int? {
    switch self {
    case .byte, .ubyte, .bool: 1
    case .short, .ushort: 2
    case .int, .uint, .float: 4
    case .long, .ulong, .double: 8
    case .string, .json, .dateTime, .binary: nil
    }
  }
}

/// One attribute column.
struct FGBColumn {
  var name: String
  var type: FGBColumnType
}

/// A FlatGeobuf header: what geopipe reads and writes of it.
struct FGBHeader {
  var name: String?
  /// minX, minY, maxX, maxY.
  var envelope: [Double] = []
  var geometryType = FGBGeometryType.unknown
  var hasZ = false
  var hasM = false
  var columns: [FGBColumn] = []
  /// 0 when unknown.
  var featuresCount: UInt64 = 0
  /// 0 when there is no index.
  var indexNodeSize: UInt16 = 16
  var crsOrganization: String?
  var crsCode: Int32 = 0
  var crsName: String?
  var crsWKT: String?
  var crsCodeString: String?

  /// The magic bytes of version 3.0; the last byte is the patch version.
  static let magic: [UInt8] = [0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62, 0x01]

  /// Whether `head` starts with FlatGeobuf 3.x's magic bytes (any patch version).
  static func recognizes(_ head: [UInt8]) -> Bool {
    head.count >= 8 && Array(head[0..<7]) == Array(magic[0..<7])
  }

  /// The CRS geopipe reports when it is not WGS84: `EPSG:code` for an EPSG code, else the WKT.
  var declaredCRS: String? {
    let organization = crsOrganization?.uppercased() ?? "EPSG"
    if organization == "EPSG", crsCode != 0 {
      return crsCode == 4326 ? nil : "EPSG:\(crsCode)"
    }
    if organization == "OGC", crsCodeString?.uppercased() == "CRS84" { return nil }
    if let crsWKT, !crsWKT.isEmpty { return crsWKT }
    if let crsCodeString, !crsCodeString.isEmpty, crsOrganization != nil {
      return "\(organization):\(crsCodeString)"
    }
    return nil
  }

  /// The CRS as `geopipe layers` shows it.
  var crsDescription: String? {
    declaredCRS ?? (crsCode == 4326 || crsCodeString?.uppercased() == "CRS84" ? "EPSG:4326" : nil)
  }

  /// Decodes a header buffer (the bytes after its size prefix).
  init(decoding buffer: FlatBuffer) throws {
    let table = try buffer.root()
    name = try table.string(0)
    if let vector = try table.vector(1, elementSize: 8) {
      envelope = (0..<vector.count).map { buffer.f64(vector.start + 8 * $0) }
    }
    let rawType = try table.uint8(2)
    guard let type = FGBGeometryType(rawValue: rawType) else {
      throw FlatBufferError(
        "geopipe does not read geometry type \(FGBGeometryType.unsupportedName(rawType))",
        at: table.position)
    }
    geometryType = type
    hasZ = try table.bool(3)
    hasM = try table.bool(4)
    if let vector = try table.vector(7, elementSize: 4) {
      columns.reserveCapacity(vector.count)
      for k in 0..<vector.count {
        columns.append(try FGBColumn(decoding: table.table(in: vector, at: k)))
      }
    }
    featuresCount = try table.uint64(8)
    indexNodeSize = try table.uint16(9, default: 16)
    if let crs = try table.table(10) {
      crsOrganization = try crs.string(0)
      crsCode = try crs.int32(1)
      crsName = try crs.string(2)
      crsWKT = try crs.string(4)
      crsCodeString = try crs.string(5)
    }
  }

  init() {}

  /// Encodes the header as a size-prefixed buffer.
  func encoded() -> [UInt8] {
    var b = FlatBufferBuilder()
    b.append32(0)  // the size prefix, set at the end
    b.append32(0)  // the root offset
    var fields: [FlatBufferBuilder.Field] = [.init(slot: 8, width: 8)]
    if name != nil { fields.append(.init(slot: 0, width: 4)) }
    if !envelope.isEmpty { fields.append(.init(slot: 1, width: 4)) }
    if !columns.isEmpty { fields.append(.init(slot: 7, width: 4)) }
    fields.append(.init(slot: 10, width: 4))
    fields.append(.init(slot: 9, width: 2))
    fields.append(.init(slot: 2, width: 1))
    if hasZ { fields.append(.init(slot: 3, width: 1)) }
    if hasM { fields.append(.init(slot: 4, width: 1)) }
    let table = b.table(fields)
    let at = b.fieldPositions
    b.set32(UInt32(table - 4), at: 4)
    var slots: [Int: Int] = [:]
    for (field, position) in zip(fields, at) { slots[field.slot] = position }
    if let position = slots[8] { b.set64(featuresCount, at: position) }
    if let position = slots[9] { b.set16(indexNodeSize, at: position) }
    if let position = slots[2] { b.bytes[position] = geometryType.rawValue }
    if let position = slots[3] { b.bytes[position] = 1 }
    if let position = slots[4] { b.bytes[position] = 1 }
    if let name, let position = slots[0] { b.link(position, to: b.string(name)) }
    if let position = slots[1] {
      b.link(position, to: b.vector(doubles: envelope))
    }
    if let position = slots[7] {
      let vector = b.offsetVector(count: columns.count)
      b.link(position, to: vector)
      for (k, column) in columns.enumerated() {
        let columnTable = b.table([.init(slot: 0, width: 4), .init(slot: 1, width: 1)])
        let columnFields = b.fieldPositions
        b.link(vector + 4 + 4 * k, to: columnTable)
        b.bytes[columnFields[1]] = column.type.rawValue
        b.link(columnFields[0], to: b.string(column.name))
      }
    }
    if let position = slots[10] {
      var crsFields: [FlatBufferBuilder.Field] = [.init(slot: 1, width: 4)]
      if crsOrganization != nil { crsFields.append(.init(slot: 0, width: 4)) }
      if crsName != nil { crsFields.append(.init(slot: 2, width: 4)) }
      if crsWKT != nil { crsFields.append(.init(slot: 4, width: 4)) }
      let crsTable = b.table(crsFields)
      let crsAt = b.fieldPositions
      b.link(position, to: crsTable)
      for (field, fieldPosition) in zip(crsFields, crsAt) {
        switch field.slot {
        case 1: b.set32(UInt32(bitPattern: crsCode), at: fieldPosition)
        case 0: b.link(fieldPosition, to: b.string(crsOrganization ?? ""))
        case 2: b.link(fieldPosition, to: b.string(crsName ?? ""))
        default: b.link(fieldPosition, to: b.string(crsWKT ?? ""))
        }
      }
    }
    b.align(8)
    b.set32(UInt32(b.bytes.count - 4), at: 0)
    return b.bytes
  }
}

extension FGBColumn {
  init(decoding table: FlatTable) throws {
    guard let name = try table.string(0) else {
      throw FlatBufferError("a column has no name", at: table.position)
    }
    let raw = try table.uint8(1)
    guard let type = FGBColumnType(rawValue: raw) else {
      throw FlatBufferError("column '\(name)' has an unknown type \(raw)", at: table.position)
    }
    self.name = name
    self.type = type
  }
}
