import GeoPipeCore
import GeoPipeIO

/// The property buffer of a feature: pairs of a column index (16 bits) and a value, fixed-size
/// little-endian numbers for the numeric types and a 32-bit length and bytes for the others.
enum FGBProperties {
  /// Decodes a property buffer into one value per column, in column order.
  ///
  /// Columns the buffer leaves out are null. `start` is the buffer's offset, for errors.
  static func decode(
    _ bytes: UnsafeRawBufferPointer, start: Int, columns: [FGBColumn], names: [String],
    into values: inout [JSONValue]
  ) throws -> JSONObject {
    values.removeAll(keepingCapacity: true)
    values.append(contentsOf: repeatElement(.null, count: columns.count))
    var k = 0
    while k < bytes.count {
      guard k + 2 <= bytes.count else {
        throw FlatBufferError("a property is cut short", at: start + k)
      }
      let index = Int(load(UInt16.self, bytes, k))
      guard index < columns.count else {
        throw FlatBufferError(
          "a property names column \(index), but there are \(columns.count) columns",
          at: start + k)
      }
      k += 2
      let type = columns[index].type
      let length: Int
      let valueStart: Int
      if let size = type.fixedSize {
        length = size
        valueStart = k
      } else {
        guard k + 4 <= bytes.count else {
          throw FlatBufferError("a property is cut short", at: start + k)
        }
        length = Int(load(UInt32.self, bytes, k))
        valueStart = k + 4
      }
      guard length <= bytes.count - valueStart else {
        throw FlatBufferError(
          "property '\(columns[index].name)' runs past the property buffer", at: start + k)
      }
      values[index] = try value(
        type, UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueStart + length]),
        column: columns[index].name, at: start + valueStart)
      k = valueStart + length
    }
    var members: [JSONMember] = []
    members.reserveCapacity(columns.count)
    for (name, value) in zip(names, values) { members.append(JSONMember(name, value)) }
    return JSONObject(members: members)
  }

  private static func value(
    _ type: FGBColumnType, _ v: UnsafeRawBufferPointer, column: String, at offset: Int
  ) throws -> JSONValue {
    switch type {
    case .byte: return .integer(Int64(Int8(bitPattern: v[0])))
    case .ubyte: return .integer(Int64(v[0]))
    case .bool: return .bool(v[0] != 0)
    case .short: return .integer(Int64(Int16(bitPattern: load(UInt16.self, v, 0))))
    case .ushort: return .integer(Int64(load(UInt16.self, v, 0)))
    case .int: return .integer(Int64(Int32(bitPattern: load(UInt32.self, v, 0))))
    case .uint: return .integer(Int64(load(UInt32.self, v, 0)))
    case .long: return .integer(Int64(bitPattern: load(UInt64.self, v, 0)))
    case .ulong:
      let n = load(UInt64.self, v, 0)
      return n <= UInt64(Int64.max) ? .integer(Int64(n)) : .bigInteger(String(n))
    case .float: return number(Double(Float(bitPattern: load(UInt32.self, v, 0))))
    case .double: return number(Double(bitPattern: load(UInt64.self, v, 0)))
    case .string, .dateTime:
      guard let text = String(validating: v, as: UTF8.self) else {
        throw FlatBufferError("property '\(column)' is not valid UTF-8", at: offset)
      }
      return .string(text)
    case .json:
      do {
        return try JSONText.parse(Array(v), name: column)
      } catch let error as GeoPipeError {
        throw FlatBufferError("property '\(column)' is not JSON: \(error.message)", at: offset)
      }
    case .binary: return .string(Base64.encode(v))
    }
  }

  /// A number; JSON has no NaN or infinity, so those are null.
  private static func number(_ value: Double) -> JSONValue {
    value.isFinite ? .double(value) : .null
  }

  @inline(__always)
  private static func load<T: FixedWidthInteger>(
    _: T.Type, _ bytes: UnsafeRawBufferPointer, _ at: Int
  ) -> T {
    T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self))
  }
}

/// Base64 (RFC 4648 §4, with padding), for Binary columns.
enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var k = 0
    while k < bytes.count {
      let b0 = UInt32(bytes[k])
      let b1 = k + 1 < bytes.count ? UInt32(bytes[k + 1]) : 0
      let b2 = k + 2 < bytes.count ? UInt32(bytes[k + 2]) : 0
      let n = b0 << 16 | b1 << 8 | b2
      out.append(alphabet[Int(n >> 18 & 63)])
      out.append(alphabet[Int(n >> 12 & 63)])
      out.append(k + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : 0x3D)
      out.append(k + 2 < bytes.count ? alphabet[Int(n & 63)] : 0x3D)
      k += 3
    }
    return String(decoding: out, as: UTF8.self)
  }
}
