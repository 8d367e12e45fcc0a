/// Reads protocol-buffers fields from a range of bytes, checking every length against the end
/// of that range (protobuf encoding guide, "Message Structure").
///
/// Errors are `TilesError`s saying what was malformed; the caller names the tile.
struct ProtobufDecoder {
  /// A field's wire type and what it holds.
  enum Value {
    /// A varint (wire type 0).
    case varint(UInt64)
    /// 64 bits (wire type 1).
    case fixed64(UInt64)
    /// The range of a length-delimited field's bytes (wire type 2).
    case bytes(Range<Int>)
    /// 32 bits (wire type 5).
    case fixed32(UInt32)
  }

  let bytes: [UInt8]
  private(set) var position: Int
  let end: Int

  /// A decoder of `bytes[range]`, which must lie within `bytes`.
  init(_ bytes: [UInt8], range: Range<Int>? = nil) {
    self.bytes = bytes
    position = range?.lowerBound ?? 0
    end = range?.upperBound ?? bytes.count
  }

  var atEnd: Bool { position >= end }

  mutating func varint() throws -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while position < end {
      let byte = bytes[position]
      position += 1
      if shift == 63 && byte > 1 { throw TilesError("a varint overflows 64 bits") }
      result |= UInt64(byte & 0x7f) << shift
      if byte < 0x80 { return result }
      shift += 7
      if shift > 63 { throw TilesError("a varint is longer than 10 bytes") }
    }
    throw TilesError("a varint runs past the end of its message")
  }

  /// The next field's number and value.
  mutating func field() throws -> (number: Int, value: Value) {
    let key = try varint()
    let number = key >> 3
    guard number > 0, number < 1 << 29 else {
      throw TilesError("field number \(number) is invalid")
    }
    switch key & 7 {
    case 0: return (Int(number), .varint(try varint()))
    case 1: return (Int(number), .fixed64(UInt64(try fixed(8))))
    case 2:
      let length = try varint()
      guard length <= UInt64(end - position) else {
        throw TilesError("field \(number) claims \(length) bytes, \(end - position) are left")
      }
      let start = position
      position += Int(length)
      return (Int(number), .bytes(start..<position))
    case 5: return (Int(number), .fixed32(UInt32(try fixed(4))))
    default: throw TilesError("field \(number) has wire type \(key & 7), which is not supported")
    }
  }

  /// 8 little-endian bytes.
  mutating func fixed64() throws -> UInt64 { try fixed(8) }

  /// The range of the next `count` bytes, which are stepped over.
  mutating func take(_ count: Int) throws -> Range<Int> {
    guard count >= 0, end - position >= count else {
      throw TilesError("\(count) bytes are needed, \(end - position) are left")
    }
    defer { position += count }
    return position..<(position + count)
  }

  private mutating func fixed(_ count: Int) throws -> UInt64 {
    guard end - position >= count else { throw TilesError("a fixed-size value is cut off") }
    var value: UInt64 = 0
    for k in 0..<count { value |= UInt64(bytes[position + k]) << (8 * UInt64(k)) }
    position += count
    return value
  }

  /// The varints of a packed repeated field.
  func packed(_ range: Range<Int>) throws -> [UInt32] {
    var inner = ProtobufDecoder(bytes, range: range)
    var out: [UInt32] = []
    out.reserveCapacity(range.count)
    while !inner.atEnd {
      let value = try inner.varint()
      guard value <= UInt64(UInt32.max) else {
        throw TilesError("a packed value \(value) does not fit 32 bits")
      }
      out.append(UInt32(value))
    }
    return out
  }

  /// The UTF-8 text of a range.
  func string(_ range: Range<Int>) -> String {
    String(decoding: bytes[range], as: UTF8.self)
  }

  static func unzigzag(_ n: UInt32) -> Int32 {
    Int32(bitPattern: n >> 1) ^ -Int32(bitPattern: n & 1)
  }
}
