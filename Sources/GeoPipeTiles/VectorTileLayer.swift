import Foundation

/// A property value as vector tiles store it (MVT 2.1 §4.1, `Value`).
///
/// Strings are equal, and hash, by their UTF-8 bytes (a tile stores bytes): canonically
/// equivalent strings spelled differently stay apart, and no Unicode normalization is paid.
enum TileValue: Hashable, Sendable {
  case string(String)
  case double(Double)
  case uint(UInt64)
  case sint(Int64)
  case bool(Bool)

  static func == (a: TileValue, b: TileValue) -> Bool {
    switch (a, b) {
    case (.string(let x), .string(let y)): sameBytes(x, y)
    case (.double(let x), .double(let y)): x == y
    case (.uint(let x), .uint(let y)): x == y
    case (.sint(let x), .sint(let y)): x == y
    case (.bool(let x), .bool(let y)): x == y
    default: false
    }
  }

  /// Whether two strings have the same UTF-8 bytes.
  private static func sameBytes(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    let same = a.utf8.withContiguousStorageIfAvailable { x in
      b.utf8.withContiguousStorageIfAvailable { y -> Bool in
        guard let p = x.baseAddress, let q = y.baseAddress else { return true }
        return memcmp(p, q, x.count) == 0
      }
    }
    return (same ?? nil) ?? a.utf8.elementsEqual(b.utf8)
  }

  func hash(into hasher: inout Hasher) {
    func tagged(_ tag: UInt8, _ value: some Hashable) {
      hasher.combine(tag)
      hasher.combine(value)
    }
    switch self {
    case .string(var text):
      hasher.combine(0 as UInt8)
      text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    case .double(let x): tagged(1, x)
    case .uint(let n): tagged(2, n)
    case .sint(let n): tagged(3, n)
    case .bool(let b): tagged(4, b)
    }
  }

  /// The type names `vector_layers` uses for a field, by number (0: none).
  static let fieldTypeNames = ["", "String", "Number", "Boolean", "Mixed"]
  /// The number of the type name of a field with values of several types.
  static let mixedFieldType: UInt8 = 4

  /// The number of the type name `vector_layers` uses for a field of this value:
  /// String, Number or Boolean (``fieldTypeNames``).
  var fieldType: UInt8 {
    switch self {
    case .string: 1
    case .double, .uint, .sint: 2
    case .bool: 3
    }
  }

  func encode(into w: inout ProtobufWriter) {
    var body = ProtobufWriter()
    switch self {
    case .string(let s): body.stringField(1, s)
    case .double(let x): body.doubleField(3, x)
    case .uint(let n): body.varintField(5, n)
    case .sint(let n): body.varintField(6, ProtobufWriter.zigzag64(n))
    case .bool(let b): body.varintField(7, b ? 1 : 0)
    }
    w.bytesField(4, body.bytes)
  }
}

/// One layer of one tile being encoded: features, and the keys and values tables they share
/// (MVT 2.1 §4.1–4.2).
struct VectorTileLayerEncoder {
  let name: String
  let extent: Int
  private var features = ProtobufWriter()
  private var keys: [Int32] = []
  private var values: [Int32] = []
  private var keyIndex: [Int32: UInt32] = [:]
  private var valueIndex: [Int32: UInt32] = [:]
  private var local: [UInt32] = []
  private(set) var count = 0

  init(name: String, extent: Int) {
    self.name = name
    self.extent = extent
  }

  /// Adds a feature whose tags are global key and value numbers, in pairs.
  ///
  /// Writes the Feature message straight into the layer: its length is worked out first, so
  /// no feature needs buffers of its own.
  mutating func add(id: UInt64?, kind: UInt8, tags: [Int32], geometry: [UInt32]) {
    local.removeAll(keepingCapacity: true)
    var k = 0
    while k + 1 < tags.count {
      local.append(Self.index(of: tags[k], in: &keys, &keyIndex))
      local.append(Self.index(of: tags[k + 1], in: &values, &valueIndex))
      k += 2
    }
    let geometryLength = geometry.reduce(0) { $0 + ProtobufWriter.size(UInt64($1)) }
    features.feature(id: id, tags: local, type: kind, geometryLength: geometryLength) {
      for command in geometry { $0.varint(UInt64(command)) }
    }
    count += 1
  }

  /// The bytes of the layer's features, encoded.
  var featureBytes: Int { features.bytes.count }

  /// The layer message, appended to a tile as field 3.
  ///
  /// The features, most of a layer's bytes, are copied once, straight into the tile: the
  /// fields before and after them are encoded first, so the layer's length is known.
  func encode(into tile: inout ProtobufWriter, keyNames: [String], valueTable: [TileValue]) {
    var head = ProtobufWriter()
    head.varintField(15, 2)
    head.stringField(1, name)
    var tail = ProtobufWriter()
    for key in keys { tail.stringField(3, keyNames[Int(key)]) }
    for value in values { valueTable[Int(value)].encode(into: &tail) }
    tail.varintField(5, UInt64(extent))
    tile.key(3, 2)
    tile.varint(UInt64(head.bytes.count + features.bytes.count + tail.bytes.count))
    tile.bytes.append(contentsOf: head.bytes)
    tile.bytes.append(contentsOf: features.bytes)
    tile.bytes.append(contentsOf: tail.bytes)
  }

  private static func index(
    of global: Int32, in table: inout [Int32], _ index: inout [Int32: UInt32]
  )
    -> UInt32
  {
    if let local = index[global] { return local }
    let local = UInt32(table.count)
    table.append(global)
    index[global] = local
    return local
  }
}

extension ProtobufWriter {
  /// Appends a Feature message (MVT 2.1 §4.2) as field 2 of a layer.
  ///
  /// It holds the id, tags, type and the `geometryLength` bytes of packed commands that
  /// `geometry` writes; the length is worked out first, so no feature needs buffers of its own.
  mutating func feature(
    id: UInt64?, tags: [UInt32], type: UInt8, geometryLength: Int,
    geometry: (inout ProtobufWriter) -> Void
  ) {
    let tagsLength = tags.reduce(0) { $0 + ProtobufWriter.size(UInt64($1)) }
    var length = 2 + 1 + ProtobufWriter.size(UInt64(geometryLength)) + geometryLength
    if let id { length += 1 + ProtobufWriter.size(id) }
    if !tags.isEmpty { length += 1 + ProtobufWriter.size(UInt64(tagsLength)) + tagsLength }
    key(2, 2)
    varint(UInt64(length))
    if let id { varintField(1, id) }
    if !tags.isEmpty {
      key(2, 2)
      varint(UInt64(tagsLength))
      for tag in tags { varint(UInt64(tag)) }
    }
    varintField(3, UInt64(type))
    key(4, 2)
    varint(UInt64(geometryLength))
    geometry(&self)
  }
}
