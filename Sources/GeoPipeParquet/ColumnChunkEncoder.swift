/// One column of a row group, ready to encode: a definition level per row (0 null, 1 set, for
/// an optional column) and the values of the rows that are set.
///
/// The values are in the array of the column's type (the others stay empty), so that they are
/// appended in place.
struct ColumnBuffer {
  enum Kind { case booleans, int64s, doubles, bytes }

  let kind: Kind
  var levels: [UInt32] = []
  var booleans: [Bool] = []
  var int64s: [Int64] = []
  var doubles: [Double] = []
  var bytes = ByteArrays()
  /// Whether the column is optional (has definition levels).
  var optional = true

  init(_ kind: Kind) { self.kind = kind }

  var valueCount: Int {
    switch kind {
    case .booleans: booleans.count
    case .int64s: int64s.count
    case .doubles: doubles.count
    case .bytes: bytes.count
    }
  }
}

/// What `ColumnChunkEncoder` wrote for a chunk: its metadata, for the footer.
struct EncodedChunk {
  var meta: ColumnMetaData
  var bytes: [UInt8]
}

/// Encodes column chunks: an optional dictionary page (for repetitive byte arrays) and one data
/// page v1 (RLE definition levels, then PLAIN or RLE_DICTIONARY values), compressed with the
/// chosen codec, with min/max/null-count statistics.
struct ColumnChunkEncoder {
  let codec: Codec
  let compressor: PageCodec

  /// Encodes `buffer` as the chunk of `path` whose first byte will be at `offset`.
  func encode(_ buffer: ColumnBuffer, path: [String], type: PhysicalType, at offset: Int) throws
    -> EncodedChunk
  {
    var meta = ColumnMetaData()
    meta.type = type
    meta.path = path
    meta.codec = codec
    meta.valueCount = Int64(buffer.optional ? buffer.levels.count : buffer.valueCount)
    var out: [UInt8] = []
    var levels: [UInt8] = []
    if buffer.optional {
      let encoded = HybridEncoder.encode(buffer.levels, bitWidth: 1)
      levels = Self.le32(UInt32(encoded.count)) + encoded
    }
    let nullCount = buffer.optional ? buffer.levels.reduce(0) { $0 + ($1 == 0 ? 1 : 0) } : 0
    var statistics = Statistics(nullCount: Int64(nullCount))
    var body: [UInt8]
    var encoding = Encoding.plain
    var uncompressedTotal = 0
    switch buffer.kind {
    case .booleans:
      let v = buffer.booleans
      body = levels + Self.plainBooleans(v)
      if let lo = v.min(by: { !$0 && $1 }), let hi = v.max(by: { !$0 && $1 }) {
        statistics.min = [lo ? 1 : 0]
        statistics.max = [hi ? 1 : 0]
      }
    case .int64s:
      let v = buffer.int64s
      body = levels
      body.reserveCapacity(levels.count + 8 * v.count)
      for x in v { Self.append(UInt64(bitPattern: x), to: &body) }
      if let lo = v.min(), let hi = v.max() {
        statistics.min = Self.le64(UInt64(bitPattern: lo))
        statistics.max = Self.le64(UInt64(bitPattern: hi))
      }
    case .doubles:
      let v = buffer.doubles
      body = levels
      body.reserveCapacity(levels.count + 8 * v.count)
      for x in v { Self.append(x.bitPattern, to: &body) }
      if let lo = v.min(), let hi = v.max() {
        statistics.min = Self.le64((lo == 0 ? -0.0 : lo).bitPattern)
        statistics.max = Self.le64((hi == 0 ? 0.0 : hi).bitPattern)
      }
    case .bytes:
      let v = buffer.bytes
      (statistics.min, statistics.max) = Self.range(v)
      if let dictionary = Self.dictionary(v) {
        let dictionaryPage = try page(
          dictionary.plain, type: .dictionaryPage, count: dictionary.count, encoding: .plain)
        meta.dictionaryPageOffset = Int64(offset)
        out += dictionaryPage.bytes
        uncompressedTotal += dictionaryPage.uncompressed
        encoding = .rleDictionary
        body =
          levels + [UInt8(dictionary.bitWidth)]
          + HybridEncoder.encode(dictionary.indices, bitWidth: dictionary.bitWidth)
      } else {
        body = levels
        body.reserveCapacity(levels.count + v.data.count + 4 * v.count)
        for k in 0..<v.count {
          Self.append(UInt32(v.offsets[k + 1] - v.offsets[k]), to: &body)
          body += v.value(k)
        }
      }
    }
    meta.dataPageOffset = Int64(offset + out.count)
    let data = try page(
      body, type: .dataPage, count: Int(meta.valueCount), encoding: encoding)
    out += data.bytes
    uncompressedTotal += data.uncompressed
    meta.encodings =
      [Encoding.rle.rawValue, encoding.rawValue]
      + (encoding == .rleDictionary ? [Encoding.plain.rawValue] : [])
    meta.statistics = statistics
    meta.compressedSize = Int64(out.count)
    meta.uncompressedSize = Int64(uncompressedTotal)
    return EncodedChunk(meta: meta, bytes: out)
  }

  /// A page: its header and its compressed body.
  private func page(_ body: [UInt8], type: PageType, count: Int, encoding: Encoding) throws -> (
    bytes: [UInt8], uncompressed: Int
  ) {
    let compressed = try compressor.compress(body, codec: codec)
    guard body.count <= Int32.max, compressed.count <= Int32.max else {
      throw ParquetError("a page of \(body.count) bytes is too large: lower --row-group-size")
    }
    var header = ThriftWriter()
    header.structBody { w in
      w.i32(1, type.rawValue)
      w.i32(2, Int32(body.count))
      w.i32(3, Int32(compressed.count))
      w.structField(type == .dictionaryPage ? 7 : 5) { w in
        w.i32(1, Int32(count))
        w.i32(2, encoding.rawValue)
        if type == .dataPage {
          w.i32(3, Encoding.rle.rawValue)
          w.i32(4, Encoding.rle.rawValue)
        }
      }
    }
    return (header.bytes + compressed, header.bytes.count + body.count)
  }

  /// A dictionary for byte arrays that repeat enough to be worth one: at most half as many
  /// distinct values as values, and a dictionary of at most 1 MiB.
  private static func dictionary(_ v: ByteArrays) -> (
    plain: [UInt8], count: Int, indices: [UInt32], bitWidth: Int
  )? {
    guard v.count >= 16 else { return nil }
    var index: [ArraySlice<UInt8>: UInt32] = [:]
    var plain: [UInt8] = []
    var indices: [UInt32] = []
    indices.reserveCapacity(v.count)
    for k in 0..<v.count {
      let value = v.value(k)
      if let known = index[value] {
        indices.append(known)
        continue
      }
      let next = UInt32(index.count)
      index[value] = next
      append(UInt32(value.count), to: &plain)
      plain += value
      if index.count > v.count / 2 || plain.count > 1 << 20 { return nil }
      indices.append(next)
    }
    let bitWidth = max(1, UInt32.bitWidth - UInt32(max(index.count - 1, 0)).leadingZeroBitCount)
    return (plain, index.count, indices, bitWidth)
  }

  /// The smallest and largest value, compared as unsigned bytes.
  private static func range(_ v: ByteArrays) -> ([UInt8]?, [UInt8]?) {
    guard v.count > 0 else { return (nil, nil) }
    var lo = v.value(0)
    var hi = lo
    for k in 1..<v.count {
      let value = v.value(k)
      if value.lexicographicallyPrecedes(lo) { lo = value }
      if hi.lexicographicallyPrecedes(value) { hi = value }
    }
    // Long values (WKB) make poor statistics: leave them out, as other writers do.
    guard lo.count <= 64, hi.count <= 64 else { return (nil, nil) }
    return (Array(lo), Array(hi))
  }

  private static func plainBooleans(_ v: [Bool]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: (v.count + 7) / 8)
    for (k, b) in v.enumerated() where b { out[k >> 3] |= 1 << UInt8(k & 7) }
    return out
  }

  /// Appends an integer's little-endian bytes.
  static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
  }

  static func le32(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }

  static func le64(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
  }
}

/// Encodes values as an RLE/bit-packed hybrid: runs of 8 or more equal values as RLE runs,
/// the rest bit-packed in groups of 8.
enum HybridEncoder {
  static func encode(_ values: [UInt32], bitWidth: Int) -> [UInt8] {
    var out: [UInt8] = []
    var packed: [UInt32] = []
    let byteWidth = (bitWidth + 7) / 8
    func flushPacked() {
      guard !packed.isEmpty else { return }
      let groups = (packed.count + 7) / 8
      Varint.append(UInt64(groups) << 1 | 1, to: &out)
      var bytes = [UInt8](repeating: 0, count: groups * bitWidth)
      var bit = 0
      for value in packed {
        for b in 0..<bitWidth where value >> b & 1 == 1 {
          bytes[(bit + b) >> 3] |= 1 << UInt8((bit + b) & 7)
        }
        bit += bitWidth
      }
      out += bytes
      packed.removeAll(keepingCapacity: true)
    }
    var i = 0
    while i < values.count {
      var j = i + 1
      while j < values.count, values[j] == values[i] { j += 1 }
      // A long run: complete the packed values to a group of 8, then repeat the rest.
      let fill = (8 - packed.count % 8) % 8
      if j - i >= 8 + fill {
        packed += values[i..<i + fill]
        flushPacked()
        let run = j - i - fill
        Varint.append(UInt64(run) << 1, to: &out)
        for k in 0..<byteWidth { out.append(UInt8(truncatingIfNeeded: values[i] >> (8 * k))) }
        i = j
      } else {
        packed += values[i..<j]
        i = j
      }
    }
    flushPacked()
    return out
  }
}
