import Foundation
import GeoPipeCore
import GeoPipeIO

/// Turns a leaf column's values into JSON values by its physical and logical type: integers
/// (signed and unsigned, any width), floats, booleans, strings, JSON text, DATE and TIME and
/// TIMESTAMP (ISO 8601 text), DECIMAL (exact decimal text, as a number), UUID (text), and other
/// binary values (base64 text).
enum ValueConversion {
  /// The JSON value of each of `values`, for `leaf`.
  static func json(_ values: ColumnValues, leaf: SchemaNode) throws -> [JSONValue] {
    let logical = leaf.logicalType
    switch values {
    case .booleans(let v): return v.map { .bool($0) }
    case .int32s(let v):
      switch logical {
      case .date: return v.map { .string(date(Int64($0))) }
      case .time(let unit, _): return v.map { .string(time(Int64($0), unit)) }
      case .decimal(let scale, _): return v.map { decimal(Int128($0), scale: Int(scale)) }
      case .integer(_, signed: false): return v.map { .integer(Int64(UInt32(bitPattern: $0))) }
      default: return v.map { .integer(Int64($0)) }
      }
    case .int64s(let v):
      switch logical {
      case .timestamp(let unit, let utc): return v.map { .string(timestamp($0, unit, utc: utc)) }
      case .time(let unit, _): return v.map { .string(time($0, unit)) }
      case .decimal(let scale, _): return v.map { decimal(Int128($0), scale: Int(scale)) }
      case .integer(_, signed: false):
        return v.map { $0 >= 0 ? .integer($0) : .bigInteger(String(UInt64(bitPattern: $0))) }
      default: return v.map { .integer($0) }
      }
    case .floats(let v): return v.map { $0.isFinite ? .double(Double($0)) : .null }
    case .doubles(let v): return v.map { $0.isFinite ? .double($0) : .null }
    case .bytes(let v):
      var out: [JSONValue] = []
      out.reserveCapacity(v.count)
      let type = leaf.element.type
      for k in 0..<v.count {
        out.append(
          try v.withValue(k) { raw in try bytesValue(raw, type: type, logical: logical, leaf: leaf)
          })
      }
      return out
    }
  }

  private static func bytesValue(
    _ raw: UnsafeRawBufferPointer, type: PhysicalType?, logical: LogicalType?, leaf: SchemaNode
  ) throws -> JSONValue {
    if type == .int96 {
      guard raw.count == 12 else { throw ParquetError("an INT96 value is not 12 bytes") }
      let nanos = Int64(bitPattern: raw.loadUnaligned(as: UInt64.self).littleEndian)
      let julian = Int64(raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian)
      let days = julian - 2_440_588
      return .string(date(days) + "T" + time(nanos, .nanos))
    }
    switch logical {
    case .string, .enumeration:
      guard let text = String(validating: raw, as: UTF8.self) else {
        throw ParquetError("a STRING value is not UTF-8")
      }
      return .string(text)
    case .json:
      do {
        return try JSONText.parse(Array(raw), name: leaf.path.joined(separator: "."))
      } catch let error as GeoPipeError {
        throw ParquetError("a JSON value does not parse: \(error.message)")
      }
    case .decimal(let scale, _):
      guard raw.count <= 16 else { throw ParquetError("a DECIMAL of more than 16 bytes") }
      var unscaled: Int128 = raw.first.map { $0 & 0x80 != 0 ? -1 : 0 } ?? 0
      for byte in raw { unscaled = unscaled << 8 | Int128(byte) }
      return decimal(unscaled, scale: Int(scale))
    case .uuid where raw.count == 16:
      let hex = raw.map { String(format: "%02x", $0) }
      return .string(
        [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]]
          .map { $0.joined() }.joined(separator: "-"))
    case .float16 where raw.count == 2:
      let value = half(UInt16(raw[0]) | UInt16(raw[1]) << 8)
      return value.isFinite ? .double(value) : .null
    default:
      return .string(Data(raw).base64EncodedString())
    }
  }

  /// The exact decimal text of `unscaled`·10^-scale: an integer when the scale is 0, else a
  /// number kept as its digits.
  static func decimal(_ unscaled: Int128, scale: Int) -> JSONValue {
    if scale <= 0 {
      if scale == 0, let small = Int64(exactly: unscaled) { return .integer(small) }
      var digits = String(unscaled)
      if scale < 0, unscaled != 0 { digits += String(repeating: "0", count: -scale) }
      return .bigInteger(digits)
    }
    let negative = unscaled < 0
    var digits = String(unscaled.magnitude)
    if digits.count <= scale {
      digits = String(repeating: "0", count: scale - digits.count + 1) + digits
    }
    let point = digits.index(digits.endIndex, offsetBy: -scale)
    return .bigNumber(
      (negative ? "-" : "") + digits[..<point] + "." + digits[point...])
  }

  /// `YYYY-MM-DD` for days since 1970-01-01 (proleptic Gregorian; Howard Hinnant's
  /// civil_from_days).
  static func date(_ days: Int64) -> String {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    let y = year < 0 ? "-" + pad(-year, 4) : pad(year, 4)
    return "\(y)-\(pad(month, 2))-\(pad(day, 2))"
  }

  /// `HH:MM:SS[.fff…]` for a time of day in `unit`s.
  static func time(_ value: Int64, _ unit: TimeUnit) -> String {
    let (perSecond, digits): (Int64, Int) =
      switch unit {
      case .millis: (1000, 3)
      case .micros: (1_000_000, 6)
      case .nanos: (1_000_000_000, 9)
      }
    let seconds = value / perSecond
    let fraction = value % perSecond
    var text = "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
    if fraction != 0 { text += "." + pad(fraction, digits) }
    return text
  }

  /// ISO 8601 for a timestamp in `unit`s since the epoch; `Z` when it is UTC.
  static func timestamp(_ value: Int64, _ unit: TimeUnit, utc: Bool) -> String {
    let perDay: Int64 =
      switch unit {
      case .millis: 86_400_000
      case .micros: 86_400_000_000
      case .nanos: 86_400_000_000_000
      }
    var days = value / perDay
    var rest = value % perDay
    if rest < 0 {
      days -= 1
      rest += perDay
    }
    return date(days) + "T" + time(rest, unit) + (utc ? "Z" : "")
  }

  private static func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }

  /// An IEEE 754 half-precision value.
  private static func half(_ bits: UInt16) -> Double {
    let sign: Double = bits & 0x8000 != 0 ? -1 : 1
    let exponent = Int(bits >> 10 & 0x1F)
    let mantissa = Double(bits & 0x3FF)
    switch exponent {
    case 0: return sign * mantissa * 0x1p-24
    case 31: return mantissa == 0 ? sign * .infinity : .nan
    default:
      return sign * (1 + mantissa / 1024)
        * Double(sign: .plus, exponent: exponent - 15, significand: 1)
    }
  }
}
