/// Decoders of Parquet's integer encodings: the RLE/bit-packed hybrid (levels, dictionary
/// indices, booleans) and DELTA_BINARY_PACKED, over a byte buffer whose bounds every read
/// checks.
struct ByteCursor {
  let bytes: UnsafeRawBufferPointer
  var position = 0

  init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  var remaining: Int { bytes.count - position }

  mutating func byte() throws -> UInt8 {
    guard position < bytes.count else { throw ParquetError("the page's data ends early") }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
    guard count >= 0, count <= remaining else {
      throw ParquetError("a length of \(count) bytes runs past the end of the page")
    }
    defer { position += count }
    return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
  }

  mutating func uint32() throws -> UInt32 {
    let raw = try take(4)
    return UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self))
  }

  mutating func varint() throws -> UInt64 {
    guard let value = try Varint.read({ try byte() }) else {
      throw ParquetError("a varint is too long")
    }
    return value
  }

  mutating func zigzag() throws -> Int64 { Varint.unzigzag(try varint()) }
}

enum HybridDecoder {
  /// Decodes `count` values of `bitWidth` bits from RLE/bit-packed hybrid runs, appending them
  /// to `out`.
  static func decode(
    _ cursor: inout ByteCursor, bitWidth: Int, count: Int, into out: inout [UInt32]
  ) throws {
    guard bitWidth <= 32 else { throw ParquetError("a bit width of \(bitWidth) is impossible") }
    let target = out.count + count
    out.reserveCapacity(target)
    let byteWidth = (bitWidth + 7) / 8
    while out.count < target {
      let header = try cursor.varint()
      if header & 1 == 0 {
        let run = Int(clamping: header >> 1)
        var value: UInt32 = 0
        for k in 0..<byteWidth { value |= UInt32(try cursor.byte()) << (8 * k) }
        guard bitWidth == 32 || value >> bitWidth == 0 else {
          throw ParquetError("a run's value \(value) is wider than \(bitWidth) bits")
        }
        let n = min(run, target - out.count)
        guard run > 0 else { throw ParquetError("an empty run") }
        out.append(contentsOf: repeatElement(value, count: n))
      } else {
        let groups = Int(clamping: header >> 1)
        guard groups > 0, groups <= cursor.remaining + 1 else {
          throw ParquetError("bit-packed runs past the end of the page")
        }
        let raw = try cursor.take(min(cursor.remaining, groups * bitWidth))
        let values = groups * 8
        let n = min(values, target - out.count)
        guard raw.count * 8 >= n * bitWidth else {
          throw ParquetError("bit-packed values run past the end of the page")
        }
        unpack(raw, bitWidth: bitWidth, count: n, into: &out)
      }
    }
  }

  /// Appends `count` little-endian bit-packed values of `bitWidth` bits.
  static func unpack(
    _ raw: UnsafeRawBufferPointer, bitWidth: Int, count: Int, into out: inout [UInt32]
  ) {
    if bitWidth == 0 {
      out.append(contentsOf: repeatElement(0, count: count))
      return
    }
    let mask: UInt64 = bitWidth == 32 ? 0xFFFF_FFFF : (1 << UInt64(bitWidth)) - 1
    var bit = 0
    for _ in 0..<count {
      let byte = bit >> 3
      var word: UInt64 = 0
      let end = min(raw.count, byte + 8)
      for k in byte..<end { word |= UInt64(raw[k]) << (8 * UInt64(k - byte)) }
      out.append(UInt32((word >> UInt64(bit & 7)) & mask))
      bit += bitWidth
    }
  }

  /// Decodes `count` levels (of at most `maxLevel`) stored with a 4-byte length prefix (data
  /// page v1) or with the `length` given (v2).
  static func levels(
    _ cursor: inout ByteCursor, maxLevel: Int, count: Int, length: Int?
  ) throws -> [UInt32] {
    let bitWidth = maxLevel == 0 ? 0 : Int.bitWidth - maxLevel.leadingZeroBitCount
    let size = try length ?? Int(cursor.uint32())
    var inner = ByteCursor(try cursor.take(size))
    var out: [UInt32] = []
    try decode(&inner, bitWidth: bitWidth, count: count, into: &out)
    for level in out where level > maxLevel {
      throw ParquetError("a level of \(level) is above the column's maximum, \(maxLevel)")
    }
    return out
  }
}

enum DeltaDecoder {
  /// Decodes DELTA_BINARY_PACKED integers, `count` of them at most (the block header says
  /// how many there are).
  static func decode(_ cursor: inout ByteCursor, count: Int) throws -> [Int64] {
    let blockSize = Int(clamping: try cursor.varint())
    let miniblocks = Int(clamping: try cursor.varint())
    let total = Int(clamping: try cursor.varint())
    var value = try cursor.zigzag()
    guard blockSize > 0, blockSize % 128 == 0, miniblocks > 0, blockSize % miniblocks == 0,
      (blockSize / miniblocks) % 32 == 0, total <= count
    else { throw ParquetError("a DELTA_BINARY_PACKED header is invalid") }
    let perMiniblock = blockSize / miniblocks
    var out: [Int64] = []
    out.reserveCapacity(total)
    if total > 0 { out.append(value) }
    var unpacked: [UInt32] = []
    while out.count < total {
      let minDelta = try cursor.zigzag()
      let widths = try cursor.take(miniblocks)
      for m in 0..<miniblocks where out.count < total {
        let width = Int(widths[m])
        guard width <= 64 else { throw ParquetError("a miniblock bit width of \(width)") }
        let raw = try cursor.take(min(cursor.remaining, perMiniblock * width / 8))
        let n = min(perMiniblock, total - out.count)
        guard raw.count * 8 >= n * width else {
          throw ParquetError("a miniblock runs past the end of the page")
        }
        if width <= 32 {
          unpacked.removeAll(keepingCapacity: true)
          HybridDecoder.unpack(raw, bitWidth: width, count: n, into: &unpacked)
          for delta in unpacked {
            value = value &+ minDelta &+ Int64(delta)
            out.append(value)
          }
        } else {
          for k in 0..<n {
            value = value &+ minDelta &+ Int64(bitPattern: bits(raw, at: k * width, width: width))
            out.append(value)
          }
        }
      }
    }
    return out
  }

  /// A value of more than 32 bits from a bit-packed run.
  private static func bits(_ raw: UnsafeRawBufferPointer, at bit: Int, width: Int) -> UInt64 {
    var result: UInt64 = 0
    for k in 0..<width {
      let b = bit + k
      if raw[b >> 3] >> UInt8(b & 7) & 1 == 1 { result |= 1 << UInt64(k) }
    }
    return result
  }
}
