import GeoPipeCore
import GeoPipeIO

/// The kind of a property value as the writer's scratch records tag it; the union of a
/// column's kinds decides its type.
enum PropertyKind: UInt8 {
  case integer = 1
  case real = 2
  case bool = 4
  case string = 8
  /// Arrays, objects, and numbers too large for 64 bits, kept as JSON text.
  case json = 16

  /// The kind of a value; nil for null (which FlatGeobuf leaves out).
  init?(_ value: JSONValue) {
    switch value {
    case .null: return nil
    case .integer: self = .integer
    case .double: self = .real
    case .bool: self = .bool
    case .string: self = .string
    case .bigInteger, .bigNumber, .array, .object: self = .json
    }
  }

  /// Appends the value's payload (8 bytes for numbers, 1 for a boolean, a 32-bit length and
  /// bytes for text); returns its length as it is finally written when the column's type is
  /// the kind's own.
  func append(_ value: JSONValue, to record: inout [UInt8]) -> Int {
    switch value {
    case .integer(let n):
      withUnsafeBytes(of: n.littleEndian) { record.appendBytes($0) }
      return 8
    case .double(let x):
      withUnsafeBytes(of: x.bitPattern.littleEndian) { record.appendBytes($0) }
      return 8
    case .bool(let flag):
      record.append(flag ? 1 : 0)
      return 1
    case .string(var text):
      return text.withUTF8 { utf8 in
        FlatGeobufWriter.append32(&record, UInt32(utf8.count))
        record.append(contentsOf: utf8)
        return 4 + utf8.count
      }
    case .null, .bigInteger, .bigNumber, .array, .object:
      var writer = JSONTextWriter()
      writer.writeValue(value)
      FlatGeobufWriter.append32(&record, UInt32(writer.bytes.count))
      record.append(contentsOf: writer.bytes)
      return 4 + writer.bytes.count
    }
  }

  /// The column type for a union of kinds: integers Long, reals (with or without integers)
  /// Double, booleans Bool, strings String, JSON values and any other mixture Json, nothing
  /// but nulls String.
  static func columnType(_ kinds: UInt8) -> FGBColumnType {
    switch kinds {
    case 0, PropertyKind.string.rawValue: .string
    case PropertyKind.integer.rawValue: .long
    case PropertyKind.real.rawValue, PropertyKind.integer.rawValue | PropertyKind.real.rawValue:
      .double
    case PropertyKind.bool.rawValue: .bool
    default: .json
    }
  }
}

/// Turns the writer's scratch records into feature buffers, once the column types and the
/// layer's dimensions are known.
struct FeatureEncoder {
  let types: [FGBColumnType]
  let dimensions: FGBGeometry.Dimensions
  private var builder = FlatBufferBuilder()
  private var properties: [UInt8] = []
  /// A feature table's fields: [geometry], [properties].
  private static let layouts: [[FlatBufferBuilder.Field]] = [
    [], [.init(slot: 0, width: 4)], [.init(slot: 1, width: 4)],
    [.init(slot: 0, width: 4), .init(slot: 1, width: 4)],
  ]

  init(types: [FGBColumnType], dimensions: FGBGeometry.Dimensions) {
    self.types = types
    self.dimensions = dimensions
  }

  /// Appends the size-prefixed feature buffer for a record to `out`.
  mutating func encode(_ r: UnsafeRawBufferPointer, into out: inout [UInt8]) throws {
    let flags = r[4]
    var table = Int(load32(r, 5))
    let blobLength = Int(load32(r, 9))
    let blob = UnsafeRawBufferPointer(rebasing: r[13..<13 + blobLength])
    let propertyCount = encodeProperties(r, from: 13 + blobLength)
    // A geometry short of the layer's z or m is written again with NaN ones (readers take the
    // header's word for which arrays every geometry has).
    let hasGeometry = flags & 1 != 0
    var rebuilt = FlatBufferBuilder()
    if hasGeometry, (flags & 2 != 0) != dimensions.z || (flags & 4 != 0) != dimensions.m,
      let geometry = try FGBGeometry.decode(
        FlatBuffer(bytes: blob).table(at: table), type: .unknown)
    {
      table = FGBGeometry.encode(geometry, dimensions: dimensions, into: &rebuilt)
    }
    builder.reset()
    builder.append32(0)
    builder.append32(0)
    let root = builder.table(Self.layouts[(hasGeometry ? 1 : 0) | (propertyCount > 0 ? 2 : 0)])
    let at = builder.fieldPositions
    builder.set32(UInt32(root - 4), at: 4)
    if propertyCount > 0 {
      builder.link(at[at.count - 1], to: builder.vector(bytes: properties))
    }
    if hasGeometry {
      builder.align(8)
      builder.link(at[0], to: builder.position + table)
    }
    let blobCount = rebuilt.bytes.isEmpty ? blob.count : rebuilt.bytes.count
    builder.set32(UInt32(builder.bytes.count + blobCount - 4), at: 0)
    out.append(contentsOf: builder.bytes)
    if rebuilt.bytes.isEmpty {
      out.append(contentsOf: blob)
    } else {
      out.append(contentsOf: rebuilt.bytes)
    }
  }

  /// Writes the record's properties, from `start`, as the column types say into
  /// `properties`; returns how many there are.
  private mutating func encodeProperties(_ r: UnsafeRawBufferPointer, from start: Int) -> Int {
    properties.removeAll(keepingCapacity: true)
    var count = 0
    var k = start
    while k < r.count {
      let column = Int(r[k]) | Int(r[k + 1]) << 8
      let kind = PropertyKind(rawValue: r[k + 2]) ?? .json
      properties.append(r[k])
      properties.append(r[k + 1])
      k += 3
      count += 1
      switch (types[column], kind) {
      case (.double, .integer):
        let n = Int64(littleEndian: r.loadUnaligned(fromByteOffset: k, as: Int64.self))
        withUnsafeBytes(of: Double(n).bitPattern.littleEndian) {
          properties.append(contentsOf: $0)
        }
        k += 8
      case (.json, .integer), (.json, .real), (.json, .bool), (.json, .string):
        var writer = JSONTextWriter()
        switch kind {
        case .integer:
          writer.writeValue(
            .integer(Int64(littleEndian: r.loadUnaligned(fromByteOffset: k, as: Int64.self))))
          k += 8
        case .real:
          let bits = UInt64(littleEndian: r.loadUnaligned(fromByteOffset: k, as: UInt64.self))
          writer.writeValue(.double(Double(bitPattern: bits)))
          k += 8
        case .bool:
          writer.writeValue(.bool(r[k] != 0))
          k += 1
        case .string, .json:
          let length = Int(load32(r, k))
          let text = UnsafeRawBufferPointer(rebasing: r[k + 4..<k + 4 + length])
          writer.writeString(String(decoding: text, as: UTF8.self))
          k += 4 + length
        }
        FlatGeobufWriter.append32(&properties, UInt32(writer.bytes.count))
        properties.append(contentsOf: writer.bytes)
      default:
        let length: Int
        switch kind {
        case .integer, .real: length = 8
        case .bool: length = 1
        case .string, .json: length = 4 + Int(load32(r, k))
        }
        properties.append(contentsOf: UnsafeRawBufferPointer(rebasing: r[k..<k + length]))
        k += length
      }
    }
    return count
  }

  private func load32(_ r: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
    UInt32(littleEndian: r.loadUnaligned(fromByteOffset: at, as: UInt32.self))
  }
}
