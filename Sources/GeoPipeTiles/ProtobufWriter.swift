/// The few protocol-buffers encodings a vector tile needs: varints, zigzag, length-delimited
/// fields and packed repeated varints (protobuf encoding guide, "Base 128 Varints").
struct ProtobufWriter {
  var bytes: [UInt8] = []

  mutating func varint(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
      v >>= 7
    }
    bytes.append(UInt8(v))
  }

  /// A field key: the field number and its wire type (0 varint, 1 64-bit, 2 length-delimited).
  mutating func key(_ field: Int, _ wireType: Int) { varint(UInt64(field << 3 | wireType)) }

  mutating func varintField(_ field: Int, _ value: UInt64) {
    key(field, 0)
    varint(value)
  }

  mutating func bytesField(_ field: Int, _ data: [UInt8]) {
    key(field, 2)
    varint(UInt64(data.count))
    bytes.append(contentsOf: data)
  }

  mutating func stringField(_ field: Int, _ text: String) { bytesField(field, Array(text.utf8)) }

  mutating func doubleField(_ field: Int, _ value: Double) {
    key(field, 1)
    var bits = value.bitPattern
    for _ in 0..<8 {
      bytes.append(UInt8(truncatingIfNeeded: bits))
      bits >>= 8
    }
  }

  /// Bytes of a value as a varint.
  static func size(_ value: UInt64) -> Int {
    value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
  }

  static func zigzag(_ n: Int32) -> UInt32 { UInt32(bitPattern: (n << 1) ^ (n >> 31)) }

  static func zigzag64(_ n: Int64) -> UInt64 { UInt64(bitPattern: (n << 1) ^ (n >> 63)) }
}
