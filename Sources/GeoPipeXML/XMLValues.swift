import GeoPipeCore
import GeoPipeIO

/// Number and coordinate helpers shared by the GPX and KML readers.
enum XMLValues {
  /// The number in `bytes` after XML whitespace is trimmed, or nil.
  static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    guard var start = bytes.baseAddress else { return nil }
    var end = start + bytes.count
    while start < end && isSpace(start.pointee) { start += 1 }
    while end > start && isSpace((end - 1).pointee) { end -= 1 }
    guard end > start else { return nil }
    return LenientDecimal.parse(UnsafeBufferPointer(start: start, count: end - start))
  }

  /// The number in `text`, or nil.
  static func number(_ text: [UInt8]) -> Double? {
    text.withUnsafeBufferPointer { number($0) }
  }

  /// A number as JSON: an integer when the text is one (`2`), else a double (`2.5`, `2.0`).
  static func typedNumber(_ text: String) -> JSONValue? {
    let bytes = Array(text.utf8)
    guard let value = number(bytes) else { return nil }
    let digits = bytes.filter { !isSpace($0) }
    if !digits.isEmpty, digits.count <= 18,
      digits.enumerated().allSatisfy({
        ($0.element >= 0x30 && $0.element <= 0x39) || ($0.offset == 0 && $0.element == 0x2D)
      }), let integer = Int64(String(decoding: digits, as: UTF8.self))
    {
      return .integer(integer)
    }
    return .double(value)
  }

  /// Throws unless `x`/`y` are a longitude and latitude in range (when `check` is set).
  static func checkRange(
    x: Double, y: Double, check: Bool, stream: XMLStream
  ) throws {
    guard x.isFinite, y.isFinite else {
      throw stream.error("a coordinate is not a finite number", problem: .nonFiniteCoordinate)
    }
    guard check else { return }
    if x < -180 || x > 180 {
      throw stream.error(
        "longitude \(x) is out of range [-180, 180] (use --crs if these are not WGS84 degrees)",
        problem: .coordinateOutOfRange)
    }
    if y < -90 || y > 90 {
      throw stream.error(
        "latitude \(y) is out of range [-90, 90] (use --crs if these are not WGS84 degrees)",
        problem: .coordinateOutOfRange)
    }
  }

  /// XML whitespace.
  static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// `text` without leading and trailing XML whitespace.
  static func trimmed(_ text: String) -> String {
    let bytes = text.utf8
    guard let first = bytes.first, let last = bytes.last, isSpace(first) || isSpace(last) else {
      return text
    }
    guard let start = bytes.firstIndex(where: { !isSpace($0) }),
      let end = bytes.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(decoding: bytes[start...end], as: UTF8.self)
  }
}
