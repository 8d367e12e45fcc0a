/// A Thrift compact protocol decoding failure: what was wrong and at which byte.
struct ThriftError: Error {
  var message: String
  var offset: Int

  init(_ message: String, at offset: Int) {
    self.message = message
    self.offset = offset
  }
}

/// The element and field types of the Thrift compact protocol.
enum ThriftType: UInt8 {
  case stop = 0
  case boolTrue = 1
  case boolFalse = 2
  case byte = 3
  case i16 = 4
  case i32 = 5
  case i64 = 6
  case double = 7
  case binary = 8
  case list = 9
  case set = 10
  case map = 11
  case `struct` = 12
}

/// Reads Thrift compact protocol values (the encoding of Parquet's footer and page headers)
/// from a byte buffer, checking every length against the bytes there are.
struct ThriftReader {
  let bytes: UnsafeRawBufferPointer
  /// The offset of the next byte.
  var position: Int
  private var depth = 0
  /// The value of the boolean field whose header was read last (booleans live in the header).
  private var fieldBool = false

  init(_ bytes: UnsafeRawBufferPointer, at position: Int = 0) {
    self.bytes = bytes
    self.position = position
  }

  /// Reads a struct, handing each field's id and type to `field`, which reads the value or
  /// returns false to have it skipped.
  mutating func readStruct(_ field: (inout ThriftReader, Int16, ThriftType) throws -> Bool)
    throws
  {
    depth += 1
    defer { depth -= 1 }
    guard depth < 64 else { throw ThriftError("structures nest too deep", at: position) }
    var last: Int16 = 0
    while true {
      let header = try byte()
      guard let type = ThriftType(rawValue: header & 0x0F) else {
        throw ThriftError("unknown field type \(header & 0x0F)", at: position - 1)
      }
      if type == .stop { return }
      let delta = Int16(header >> 4)
      let id = delta != 0 ? last &+ delta : Int16(truncatingIfNeeded: try zigzag())
      last = id
      if type == .boolTrue || type == .boolFalse { fieldBool = type == .boolTrue }
      let start = position
      if try !field(&self, id, type) {
        position = start
        try skip(type)
      }
    }
  }

  /// A boolean field's value (after its header was read by `readStruct`).
  func bool() -> Bool { fieldBool }

  mutating func i32() throws -> Int32 { Int32(truncatingIfNeeded: try zigzag()) }

  mutating func i64() throws -> Int64 { try zigzag() }

  mutating func double() throws -> Double {
    guard bytes.count - position >= 8 else { throw ThriftError("truncated double", at: position) }
    let bits = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
    position += 8
    return Double(bitPattern: UInt64(littleEndian: bits))
  }

  mutating func binary() throws -> UnsafeRawBufferPointer {
    let count = try varint()
    guard count <= UInt64(bytes.count - position) else {
      throw ThriftError("a length of \(count) bytes runs past the end", at: position)
    }
    let start = position
    position += Int(count)
    return UnsafeRawBufferPointer(rebasing: bytes[start..<position])
  }

  mutating func string() throws -> String {
    let raw = try binary()
    guard let text = String(validating: raw, as: UTF8.self) else {
      throw ThriftError("a string is not UTF-8", at: position - raw.count)
    }
    return text
  }

  /// Reads a list header: the elements' type and count.
  mutating func listHeader() throws -> (ThriftType, Int) {
    let header = try byte()
    guard let type = ThriftType(rawValue: header & 0x0F) else {
      throw ThriftError("unknown list element type \(header & 0x0F)", at: position - 1)
    }
    var count = Int(header >> 4)
    if count == 15 {
      let long = try varint()
      guard long <= UInt64(bytes.count - position) else {
        throw ThriftError("a list of \(long) elements runs past the end", at: position)
      }
      count = Int(long)
    }
    return (type, count)
  }

  /// Reads a list whose elements `element` reads.
  mutating func list<T>(_ element: (inout ThriftReader) throws -> T) throws -> [T] {
    let (_, count) = try listHeader()
    var result: [T] = []
    result.reserveCapacity(min(count, 1 << 16))
    for _ in 0..<count { result.append(try element(&self)) }
    return result
  }

  mutating func skip(_ type: ThriftType) throws {
    switch type {
    case .stop: throw ThriftError("unexpected stop", at: position)
    case .boolTrue, .boolFalse: return
    case .byte: _ = try byte()
    case .i16, .i32, .i64: _ = try varint()
    case .double: _ = try double()
    case .binary: _ = try binary()
    case .list, .set:
      let (element, count) = try listHeader()
      for _ in 0..<count {
        if element == .boolTrue || element == .boolFalse {
          _ = try byte()
        } else {
          try skip(element)
        }
      }
    case .map:
      let count = try varint()
      guard count > 0 else { return }
      guard count <= UInt64(bytes.count - position) else {
        throw ThriftError("a map of \(count) entries runs past the end", at: position)
      }
      let types = try byte()
      guard let key = ThriftType(rawValue: types >> 4), let value = ThriftType(rawValue: types & 15)
      else { throw ThriftError("unknown map types", at: position - 1) }
      for _ in 0..<count {
        try skip(key)
        try skip(value)
      }
    case .struct: try readStruct { _, _, _ in false }
    }
  }

  mutating func byte() throws -> UInt8 {
    guard position < bytes.count else { throw ThriftError("truncated", at: position) }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func varint() throws -> UInt64 {
    guard let value = try Varint.read({ try byte() }) else {
      throw ThriftError("a varint is too long", at: position - 1)
    }
    return value
  }

  mutating func zigzag() throws -> Int64 { Varint.unzigzag(try varint()) }

  /// An i32 field holding one of an enumeration's values.
  mutating func enumeration<E: RawRepresentable>(_: E.Type, _ what: String) throws -> E
  where E.RawValue == Int32 {
    let raw = try i32()
    guard let value = E(rawValue: raw) else {
      throw ThriftError("unknown \(what) \(raw)", at: position)
    }
    return value
  }
}

/// Writes Thrift compact protocol values.
struct ThriftWriter {
  var bytes: [UInt8] = []
  private var lastField: [Int16] = [0]

  /// Writes a field header (for a boolean field, `type` carries the value).
  mutating func field(_ id: Int16, _ type: ThriftType) {
    let delta = id - lastField[lastField.count - 1]
    if delta > 0 && delta <= 15 {
      bytes.append(UInt8(delta) << 4 | type.rawValue)
    } else {
      bytes.append(type.rawValue)
      varint(Varint.zigzag(Int64(id)))
    }
    lastField[lastField.count - 1] = id
  }

  /// Writes a struct field whose members `body` writes.
  mutating func structField(_ id: Int16, _ body: (inout ThriftWriter) -> Void) {
    field(id, .struct)
    structBody(body)
  }

  /// Writes a struct's members and its stop byte (a list element or the top-level struct).
  mutating func structBody(_ body: (inout ThriftWriter) -> Void) {
    lastField.append(0)
    body(&self)
    bytes.append(0)
    lastField.removeLast()
  }

  mutating func i32(_ id: Int16, _ value: Int32) {
    field(id, .i32)
    zigzag(Int64(value))
  }

  mutating func i64(_ id: Int16, _ value: Int64) {
    field(id, .i64)
    zigzag(value)
  }

  mutating func bool(_ id: Int16, _ value: Bool) { field(id, value ? .boolTrue : .boolFalse) }

  mutating func binary(_ id: Int16, _ value: [UInt8]) {
    field(id, .binary)
    varint(UInt64(value.count))
    bytes += value
  }

  mutating func string(_ id: Int16, _ value: String) { binary(id, Array(value.utf8)) }

  /// Writes a list field's header.
  mutating func listField(_ id: Int16, _ element: ThriftType, count: Int) {
    field(id, .list)
    if count < 15 {
      bytes.append(UInt8(count) << 4 | element.rawValue)
    } else {
      bytes.append(0xF0 | element.rawValue)
      varint(UInt64(count))
    }
  }

  /// A bare i32 (a list element).
  mutating func zigzag(_ value: Int64) { varint(Varint.zigzag(value)) }

  /// A bare binary (a list element).
  mutating func element(_ value: [UInt8]) {
    varint(UInt64(value.count))
    bytes += value
  }

  mutating func varint(_ value: UInt64) { Varint.append(value, to: &bytes) }
}

/// Unsigned LEB128 varints and zigzag integers, as the Thrift compact protocol and Parquet's
/// encodings store them.
enum Varint {
  /// Reads a varint from the bytes `next` gives; nil when it runs past 64 bits.
  static func read(_ next: () throws -> UInt8) rethrows -> UInt64? {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while shift < 64 {
      let b = try next()
      result |= UInt64(b & 0x7F) << shift
      if b & 0x80 == 0 { return result }
      shift += 7
    }
    return nil
  }

  static func unzigzag(_ raw: UInt64) -> Int64 {
    Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
  }

  static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

  static func append(_ value: UInt64, to out: inout [UInt8]) {
    var v = value
    while v >= 0x80 {
      out.append(UInt8(v & 0x7F) | 0x80)
      v >>= 7
    }
    out.append(UInt8(v))
  }
}
