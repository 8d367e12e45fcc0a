import Foundation
import GeoPipeCore
import GeoPipeIO

/// One field of a dBASE table, as its header describes it.
public struct DBaseField: Sendable, Hashable {
  /// The field's name (decoded with the table's code page).
  public var name: String
  /// The type letter: `C` text, `N` numeric, `F` float, `L` logical, `D` date, others read as
  /// text.
  public var type: UInt8
  /// Where the field starts in a record (the deletion flag is byte 0).
  public var offset: Int
  /// Its width in bytes.
  public var width: Int
  /// Digits after the decimal point (N and F).
  public var decimals: Int

  /// Describes a field.
  public init(name: String, type: UInt8, offset: Int, width: Int, decimals: Int) {
    self.name = name
    self.type = type
    self.offset = offset
    self.width = width
    self.decimals = decimals
  }

  /// The type as `geopipe layers` shows it (`N(10,0)`, `C(80)`).
  public var typeDescription: String {
    let letter = String(UnicodeScalar(type))
    switch type {
    case UInt8(ascii: "N"), UInt8(ascii: "F"): return "\(letter)(\(width),\(decimals))"
    default: return "\(letter)(\(width))"
    }
  }
}

/// Turns dBASE records into feature properties, as GDAL reads them.
///
/// `C` text is trimmed of leading and trailing spaces (blank is null); `N` with no decimals is
/// an integer when it fits 64 bits, other numbers are reals (blank or `*` is null); `L` is
/// true for T/t/Y/y, false for F/f/N/n and null for `?` or blank; `D` (YYYYMMDD) becomes
/// "YYYY-MM-DD" (blank or zeros is null); other types are read as text.
public struct DBaseRecordDecoder {
  /// The fields, in table order.
  public let fields: [DBaseField]
  /// The record length, deletion flag included.
  public let recordLength: Int
  private var codePage: CodePage

  /// A decoder for records of `fields`, whose text is in `codePage`; nil when a field lies
  /// outside a record of `recordLength` bytes.
  public init?(fields: [DBaseField], recordLength: Int, codePage: CodePage) {
    for field in fields
    where field.offset < 1 || field.width < 0 || field.offset + field.width > recordLength {
      return nil
    }
    self.fields = fields
    self.recordLength = recordLength
    self.codePage = codePage
  }

  /// The same decoder with a code page of its own, for another thread.
  public func copy() -> DBaseRecordDecoder {
    var decoder = self
    decoder.codePage = codePage.copy()
    return decoder
  }

  /// Whether a record is marked deleted (`*` in its first byte).
  public static func isDeleted(_ record: UnsafeRawBufferPointer) -> Bool {
    record.first == UInt8(ascii: "*")
  }

  /// The properties of one record of `recordLength` bytes; the error names the field.
  public func decode(_ record: UnsafeRawBufferPointer) throws(DBaseValueError) -> JSONObject {
    guard record.count >= recordLength else {
      throw DBaseValueError(
        field: "", message: "the record is \(record.count) bytes, not \(recordLength)")
    }
    var properties = JSONObject()
    properties.reserveCapacity(fields.count)
    for field in fields {
      let bytes = UnsafeRawBufferPointer(
        rebasing: record[field.offset..<(field.offset + field.width)])
      properties.appendUnchecked(field.name, try value(bytes, field))
    }
    return properties
  }

  private func value(_ raw: UnsafeRawBufferPointer, _ field: DBaseField) throws(DBaseValueError)
    -> JSONValue
  {
    // The value ends at the first NUL, as shapelib reads it.
    var end = raw.count
    if let base = raw.baseAddress, let nul = memchr(base, 0, raw.count) {
      end = base.distance(to: UnsafeRawPointer(nul))
    }
    var start = 0
    while start < end && raw[start] == 0x20 { start += 1 }
    while end > start && raw[end - 1] == 0x20 { end -= 1 }
    let text = UnsafeRawBufferPointer(rebasing: raw[start..<end])
    switch field.type {
    case UInt8(ascii: "N"), UInt8(ascii: "F"):
      if text.isEmpty || text[0] == UInt8(ascii: "*") { return .null }
      if field.type == UInt8(ascii: "N") && field.decimals == 0, let n = integer(text) {
        return .integer(n)
      }
      if let number = LenientDecimal.parse(text.assumingMemoryBound(to: UInt8.self)),
        number.isFinite
      {
        return .double(number)
      }
      let string = String(decoding: text, as: UTF8.self)
      guard let number = Double(string), number.isFinite else {
        throw DBaseValueError(field: field.name, message: "'\(string)' is not a number")
      }
      return .double(number)
    case UInt8(ascii: "L"):
      guard let first = text.first else { return .null }
      switch first {
      case UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: "Y"), UInt8(ascii: "y"):
        return .bool(true)
      case UInt8(ascii: "F"), UInt8(ascii: "f"), UInt8(ascii: "N"), UInt8(ascii: "n"):
        return .bool(false)
      case UInt8(ascii: "?"): return .null
      default:
        throw DBaseValueError(
          field: field.name,
          message: "'\(String(decoding: text, as: UTF8.self))' is not a logical value")
      }
    case UInt8(ascii: "D"):
      if text.isEmpty || text.allSatisfy({ $0 == UInt8(ascii: "0") }) { return .null }
      guard text.count == 8, text.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
        throw DBaseValueError(
          field: field.name,
          message: "'\(String(decoding: text, as: UTF8.self))' is not a date (YYYYMMDD)")
      }
      let digits = Array(text)
      var date: [UInt8] = []
      date.reserveCapacity(10)
      date += digits[0..<4]
      date.append(UInt8(ascii: "-"))
      date += digits[4..<6]
      date.append(UInt8(ascii: "-"))
      date += digits[6..<8]
      return .string(String(decoding: date, as: UTF8.self))
    default:
      if text.isEmpty { return .null }
      return .string(codePage.decode(text))
    }
  }

  /// The decimal integer `text` spells, when it fits 64 bits.
  private func integer(_ text: UnsafeRawBufferPointer) -> Int64? {
    var k = 0
    var negative = false
    if text[0] == UInt8(ascii: "-") || text[0] == UInt8(ascii: "+") {
      negative = text[0] == UInt8(ascii: "-")
      k = 1
    }
    guard k < text.count else { return nil }
    var value: Int64 = 0
    while k < text.count {
      let digit = text[k] &- 0x30
      guard digit < 10 else { return nil }
      let (times10, o1) = value.multipliedReportingOverflow(by: 10)
      let (next, o2) =
        negative
        ? times10.subtractingReportingOverflow(Int64(digit))
        : times10.addingReportingOverflow(Int64(digit))
      if o1 || o2 { return nil }
      value = next
      k += 1
    }
    return value
  }
}

/// A dBASE value that cannot be read.
public struct DBaseValueError: Error, Sendable {
  /// The field's name.
  public var field: String
  /// What is wrong.
  public var message: String
}
