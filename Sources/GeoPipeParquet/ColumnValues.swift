/// Variable-length values stored end to end: value `k` is `data[offsets[k]..<offsets[k+1]]`.
struct ByteArrays {
  var data: [UInt8] = []
  var offsets: [Int] = [0]

  var count: Int { offsets.count - 1 }

  mutating func append(_ bytes: UnsafeRawBufferPointer) {
    data.append(contentsOf: bytes)
    offsets.append(data.count)
  }

  /// Calls `body` with value `k`'s bytes.
  func withValue<T>(_ k: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    try data.withUnsafeBytes { raw in
      try body(UnsafeRawBufferPointer(rebasing: raw[offsets[k]..<offsets[k + 1]]))
    }
  }

  func value(_ k: Int) -> ArraySlice<UInt8> { data[offsets[k]..<offsets[k + 1]] }
}

/// The non-null values of a column chunk, by physical type.
enum ColumnValues {
  case booleans([Bool])
  case int32s([Int32])
  case int64s([Int64])
  case floats([Float])
  case doubles([Double])
  /// BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and INT96 values.
  case bytes(ByteArrays)

  init(_ type: PhysicalType) {
    switch type {
    case .boolean: self = .booleans([])
    case .int32: self = .int32s([])
    case .int64: self = .int64s([])
    case .float: self = .floats([])
    case .double: self = .doubles([])
    case .int96, .byteArray, .fixedLenByteArray: self = .bytes(ByteArrays())
    }
  }

  var count: Int {
    switch self {
    case .booleans(let v): v.count
    case .int32s(let v): v.count
    case .int64s(let v): v.count
    case .floats(let v): v.count
    case .doubles(let v): v.count
    case .bytes(let v): v.count
    }
  }

  /// Appends `count` PLAIN-encoded values.
  mutating func appendPlain(
    _ cursor: inout ByteCursor, count: Int, typeLength: Int
  ) throws {
    switch self {
    case .booleans(var v):
      self = .int32s([])
      let raw = try cursor.take((count + 7) / 8)
      v.reserveCapacity(v.count + count)
      for k in 0..<count { v.append(raw[k >> 3] >> UInt8(k & 7) & 1 == 1) }
      self = .booleans(v)
    case .int32s(var v):
      self = .booleans([])
      let raw = try cursor.take(count * 4)
      v.append(contentsOf: raw.littleEndianValues(Int32.self, count: count))
      self = .int32s(v)
    case .int64s(var v):
      self = .booleans([])
      let raw = try cursor.take(count * 8)
      v.append(contentsOf: raw.littleEndianValues(Int64.self, count: count))
      self = .int64s(v)
    case .floats(var v):
      self = .booleans([])
      let raw = try cursor.take(count * 4)
      v.append(
        contentsOf: raw.littleEndianValues(UInt32.self, count: count).map(Float.init(bitPattern:)))
      self = .floats(v)
    case .doubles(var v):
      self = .booleans([])
      let raw = try cursor.take(count * 8)
      v.append(
        contentsOf: raw.littleEndianValues(UInt64.self, count: count).map(Double.init(bitPattern:)))
      self = .doubles(v)
    case .bytes(var v):
      self = .booleans([])
      v.offsets.reserveCapacity(v.offsets.count + count)
      if typeLength > 0 {
        for _ in 0..<count { v.append(try cursor.take(typeLength)) }
      } else {
        for _ in 0..<count {
          let length = Int(try cursor.uint32())
          v.append(try cursor.take(length))
        }
      }
      self = .bytes(v)
    }
  }

  /// Appends the values of `dictionary` at `indices`.
  mutating func appendGathered(_ dictionary: ColumnValues, _ indices: [UInt32]) throws {
    let size = dictionary.count
    for index in indices where Int(index) >= size {
      throw ParquetError("a dictionary index \(index) is past the dictionary's \(size) values")
    }
    switch (self, dictionary) {
    case (.booleans(var v), .booleans(let d)):
      self = .int32s([])
      v += indices.map { d[Int($0)] }
      self = .booleans(v)
    case (.int32s(var v), .int32s(let d)):
      self = .booleans([])
      v += indices.map { d[Int($0)] }
      self = .int32s(v)
    case (.int64s(var v), .int64s(let d)):
      self = .booleans([])
      v += indices.map { d[Int($0)] }
      self = .int64s(v)
    case (.floats(var v), .floats(let d)):
      self = .booleans([])
      v += indices.map { d[Int($0)] }
      self = .floats(v)
    case (.doubles(var v), .doubles(let d)):
      self = .booleans([])
      v += indices.map { d[Int($0)] }
      self = .doubles(v)
    case (.bytes(var v), .bytes(let d)):
      self = .booleans([])
      v.offsets.reserveCapacity(v.offsets.count + indices.count)
      for index in indices {
        v.data += d.value(Int(index))
        v.offsets.append(v.data.count)
      }
      self = .bytes(v)
    default:
      throw ParquetError("the dictionary's type differs from the column's")
    }
  }

  /// Appends integers decoded from a delta encoding, checked against the type's range.
  mutating func appendIntegers(_ values: [Int64]) throws {
    switch self {
    case .int32s(var v):
      self = .booleans([])
      for value in values {
        guard let narrow = Int32(exactly: value) else {
          throw ParquetError("a delta-encoded value \(value) is outside INT32")
        }
        v.append(narrow)
      }
      self = .int32s(v)
    case .int64s(var v):
      self = .booleans([])
      v += values
      self = .int64s(v)
    default:
      throw ParquetError("DELTA_BINARY_PACKED is only for INT32 and INT64 columns")
    }
  }

  /// Appends BYTE_STREAM_SPLIT floats or doubles.
  mutating func appendByteStreamSplit(_ cursor: inout ByteCursor, count: Int) throws {
    switch self {
    case .floats(var v):
      self = .booleans([])
      let raw = try cursor.take(count * 4)
      for k in 0..<count {
        var bits: UInt32 = 0
        for b in 0..<4 { bits |= UInt32(raw[b * count + k]) << (8 * b) }
        v.append(Float(bitPattern: bits))
      }
      self = .floats(v)
    case .doubles(var v):
      self = .booleans([])
      let raw = try cursor.take(count * 8)
      for k in 0..<count {
        var bits: UInt64 = 0
        for b in 0..<8 { bits |= UInt64(raw[b * count + k]) << (8 * b) }
        v.append(Double(bitPattern: bits))
      }
      self = .doubles(v)
    default:
      throw ParquetError("BYTE_STREAM_SPLIT is only read for FLOAT and DOUBLE columns")
    }
  }
}

extension UnsafeRawBufferPointer {
  /// `count` little-endian values of `T` from the start (copied when unaligned).
  func littleEndianValues<T: FixedWidthInteger>(_: T.Type, count: Int) -> [T] {
    var out = [T](repeating: 0, count: count)
    out.withUnsafeMutableBytes {
      $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: self[0..<count * MemoryLayout<T>.size]))
    }
    #if _endian(big)
    return out.map { T(littleEndian: $0) }
    #else
    return out
    #endif
  }
}
