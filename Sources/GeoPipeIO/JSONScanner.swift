import GeoPipeCore

/// Thrown when a record runs past the end of the window and more input may follow.
struct NeedMoreInput: Error {}

/// A syntax or structure error at a byte index in the window.
struct ScanError: Error {
  var message: String
  var index: Int
  /// True when the JSON itself was well formed up to here, so the value can be skipped.
  var isStructural: Bool

  init(_ message: String, at index: Int, structural: Bool = false) {
    self.message = message
    self.index = index
    isStructural = structural
  }
}

/// A byte-level JSON scanner over one window of input (RFC 8259).
///
/// It allocates nothing for punctuation, keys it recognises or numbers, and reports errors
/// by byte index so the caller can turn them into lines and columns.
struct JSONScanner {
  let base: UnsafePointer<UInt8>
  let end: Int
  /// True when no bytes follow `end`: running out is then an error, not a reason to refill.
  let isFinal: Bool
  var i: Int
  let maxDepth: Int
  let keys: KeyCache?

  init(
    base: UnsafePointer<UInt8>, end: Int, isFinal: Bool, at index: Int, maxDepth: Int = 512,
    keys: KeyCache? = nil
  ) {
    self.base = base
    self.end = end
    self.isFinal = isFinal
    i = index
    self.maxDepth = maxDepth
    self.keys = keys
  }

  // MARK: Tokens

  /// The error to throw on running out of bytes.
  func ranOut() -> Error {
    isFinal ? ScanError("unexpected end of input", at: end) : NeedMoreInput()
  }

  @inline(__always)
  mutating func skipWhitespace() {
    while i < end {
      let c = base[i]
      guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
      i += 1
    }
  }

  /// Skips whitespace and RS characters (the separators of RFC 8142 sequences).
  @inline(__always)
  mutating func skipSeparators() {
    while i < end {
      let c = base[i]
      guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x1E else { return }
      i += 1
    }
  }

  /// The next non-whitespace byte, not consumed.
  @inline(__always)
  mutating func peek() throws -> UInt8 {
    skipWhitespace()
    guard i < end else { throw ranOut() }
    return base[i]
  }

  /// Consumes `byte` after optional whitespace, or throws naming what was expected.
  @inline(__always)
  mutating func expect(_ byte: UInt8, _ expected: @autoclosure () -> String) throws {
    let c = try peek()
    guard c == byte else { throw unexpected(expected()) }
    i += 1
  }

  /// An error saying what was found at the current index instead of `expected`.
  func unexpected(_ expected: String) -> ScanError {
    ScanError("expected \(expected), found \(describeByte(at: i))", at: i)
  }

  func describeByte(at index: Int) -> String {
    guard index < end else { return "end of input" }
    let c = base[index]
    switch c {
    case 0x21...0x7E: return "'\(Character(Unicode.Scalar(c)))'"
    case 0x1E: return "a record separator (RS)"
    case 0x00: return "a NUL byte"
    default: return c < 0x80 ? "byte 0x\(String(c, radix: 16, uppercase: true))" : "non-ASCII text"
    }
  }

  // MARK: Strings

  /// Scans a string at the current index (which must be a quote) and returns its bytes'
  /// range when it has no escapes; `nil` range means the slow path decoded it into `decoded`.
  mutating func scanString(decoded: inout String) throws -> Range<Int>? {
    let open = i
    i += 1
    var high: UInt8 = 0
    // Eight bytes at a time while none is a quote, a backslash or a control character.
    var wide: UInt64 = 0
    while i + 8 <= end {
      let word = ByteScanning.word(base, i)
      if ByteScanning.containsStringSpecial(word) != 0 { break }
      wide |= word
      i += 8
    }
    if wide & 0x8080_8080_8080_8080 != 0 { high = 0x80 }
    while i < end {
      let c = base[i]
      if c == 0x22 {
        let range = (open + 1)..<i
        i += 1
        if high >= 0x80 {
          guard
            let text = String(
              validating: UnsafeBufferPointer(start: base + range.lowerBound, count: range.count),
              as: UTF8.self)
          else { throw ScanError("invalid UTF-8 in a string", at: firstInvalidUTF8(in: range)) }
          decoded = text
          return nil
        }
        return range
      }
      if c == 0x5C {
        i = open
        decoded = try decodeEscapedString()
        return nil
      }
      if c < 0x20 {
        throw ScanError(
          "control character (byte 0x\(String(c, radix: 16))) in a string: escape it", at: i)
      }
      high |= c
      i += 1
    }
    throw unterminated(at: open)
  }

  /// The error for a string that runs to the end of the window.
  func unterminated(at open: Int) -> Error {
    isFinal ? ScanError("unterminated string: add the closing '\"'", at: open) : NeedMoreInput()
  }

  /// The index of the first byte in `range` that is not part of valid UTF-8.
  func firstInvalidUTF8(in range: Range<Int>) -> Int {
    var k = range.lowerBound
    while k < range.upperBound {
      let c = base[k]
      let length: Int
      switch c {
      case 0..<0x80: length = 1
      case 0xC2...0xDF: length = 2
      case 0xE0...0xEF: length = 3
      case 0xF0...0xF4: length = 4
      default: return k
      }
      guard k + length <= range.upperBound else { return k }
      let sequence = UnsafeBufferPointer(start: base + k, count: length)
      if String(validating: sequence, as: UTF8.self) == nil { return k }
      k += length
    }
    return range.lowerBound
  }

  /// Parses a string value at the current index.
  mutating func parseString() throws -> String {
    var decoded = ""
    if let range = try scanString(decoded: &decoded) {
      return String(
        decoding: UnsafeBufferPointer(start: base + range.lowerBound, count: range.count),
        as: UTF8.self)
    }
    return decoded
  }

  private mutating func decodeEscapedString() throws -> String {
    let open = i
    i += 1
    var out: [UInt8] = []
    out.reserveCapacity(32)
    while true {
      guard i < end else { throw unterminated(at: open) }
      let c = base[i]
      if c == 0x22 {
        i += 1
        break
      }
      if c < 0x20 {
        throw ScanError(
          "control character (byte 0x\(String(c, radix: 16))) in a string: escape it", at: i)
      }
      if c != 0x5C {
        out.append(c)
        i += 1
        continue
      }
      guard i + 1 < end else { throw ranOut() }
      let e = base[i + 1]
      switch e {
      case 0x22, 0x5C, 0x2F: out.append(e)
      case 0x62: out.append(0x08)
      case 0x66: out.append(0x0C)
      case 0x6E: out.append(0x0A)
      case 0x72: out.append(0x0D)
      case 0x74: out.append(0x09)
      case 0x75:
        var scalar = try hex4(at: i + 2)
        var consumed = 6
        if scalar >= 0xD800 && scalar < 0xDC00 {
          // A high surrogate must pair with a following \uDC00–\uDFFF escape.
          if i + 7 < end, base[i + 6] == 0x5C, base[i + 7] == 0x75 {
            let low = try hex4(at: i + 8)
            if low >= 0xDC00 && low < 0xE000 {
              scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
              consumed = 12
            } else {
              scalar = 0xFFFD
            }
          } else if i + 7 >= end && !isFinal {
            throw NeedMoreInput()
          } else {
            scalar = 0xFFFD
          }
        } else if scalar >= 0xDC00 && scalar < 0xE000 {
          scalar = 0xFFFD
        }
        appendUTF8(scalar, to: &out)
        i += consumed
        continue
      default:
        let shown = e >= 0x21 && e <= 0x7E ? String(Character(Unicode.Scalar(e))) : "?"
        throw ScanError("invalid escape '\\\(shown)' in a string", at: i)
      }
      i += 2
    }
    guard let text = String(validating: out, as: UTF8.self) else {
      throw ScanError("invalid UTF-8 in a string", at: firstInvalidUTF8(in: (open + 1)..<i))
    }
    return text
  }

  private func hex4(at index: Int) throws -> UInt32 {
    guard index + 4 <= end else { throw ranOut() }
    var value: UInt32 = 0
    for k in 0..<4 {
      let c = base[index + k]
      let digit: UInt8
      switch c {
      case 0x30...0x39: digit = c - 0x30
      case 0x41...0x46: digit = c - 0x41 + 10
      case 0x61...0x66: digit = c - 0x61 + 10
      default: throw ScanError("invalid \\u escape: expected four hex digits", at: index - 2)
      }
      value = value << 4 | UInt32(digit)
    }
    return value
  }

  private func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
    switch scalar {
    case 0..<0x80: out.append(UInt8(scalar))
    case 0x80..<0x800:
      out.append(UInt8(0xC0 | scalar >> 6))
      out.append(UInt8(0x80 | scalar & 0x3F))
    case 0x800..<0x10000:
      out.append(UInt8(0xE0 | scalar >> 12))
      out.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
      out.append(UInt8(0x80 | scalar & 0x3F))
    default:
      out.append(UInt8(0xF0 | scalar >> 18))
      out.append(UInt8(0x80 | (scalar >> 12) & 0x3F))
      out.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
      out.append(UInt8(0x80 | scalar & 0x3F))
    }
  }

  // MARK: Numbers

  /// Scans a number token; returns its byte range and whether it is an integer literal.
  @inline(__always)
  mutating func scanNumber() throws -> (range: Range<Int>, isInteger: Bool) {
    let start = i
    if i < end && base[i] == 0x2D { i += 1 }
    guard i < end else { throw ranOut() }
    let first = base[i]
    if first == 0x30 {
      i += 1
      if i < end, base[i] >= 0x30 && base[i] <= 0x39 {
        throw ScanError("numbers cannot have leading zeros", at: start)
      }
    } else if first >= 0x31 && first <= 0x39 {
      i += 1
      while i < end && base[i] >= 0x30 && base[i] <= 0x39 { i += 1 }
    } else {
      throw ScanError("invalid number: expected a digit, found \(describeByte(at: i))", at: i)
    }
    var isInteger = true
    if i < end && base[i] == 0x2E {
      isInteger = false
      i += 1
      let digits = i
      while i < end && base[i] >= 0x30 && base[i] <= 0x39 { i += 1 }
      if i == digits {
        if i == end { throw ranOut() }
        throw ScanError("invalid number: expected a digit after '.'", at: i)
      }
    }
    if i < end && (base[i] == 0x65 || base[i] == 0x45) {
      isInteger = false
      i += 1
      if i < end && (base[i] == 0x2B || base[i] == 0x2D) { i += 1 }
      let digits = i
      while i < end && base[i] >= 0x30 && base[i] <= 0x39 { i += 1 }
      if i == digits {
        if i == end { throw ranOut() }
        throw ScanError("invalid number: expected a digit in the exponent", at: i)
      }
    }
    // A number that touches the end of the window may continue in the next bytes.
    if i == end && !isFinal { throw NeedMoreInput() }
    return (start..<i, isInteger)
  }

  /// Parses a number as a Double.
  @inline(__always)
  mutating func parseDouble() throws -> (value: Double, start: Int) {
    let (range, _) = try scanNumber()
    let value = parseDecimal(
      UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
    return (value, range.lowerBound)
  }

  /// Parses a number as a JSON value that keeps its kind.
  mutating func parseNumberValue() throws -> JSONValue {
    let (range, isInteger) = try scanNumber()
    let bytes = UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
    if isInteger {
      if let value = parseInt64(bytes) { return .integer(value) }
      return .bigInteger(String(decoding: bytes, as: UTF8.self))
    }
    let value = parseDecimal(bytes)
    guard value.isFinite else {
      throw ScanError(
        "number \(String(decoding: bytes, as: UTF8.self)) is too large for a double",
        at: range.lowerBound, structural: true)
    }
    return .double(value)
  }

  /// An integer literal as Int64, or nil when it does not fit (or is `-0`, which keeps its
  /// spelling as a big integer so that it round-trips).
  private func parseInt64(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    var k = 0
    let negative = bytes[0] == 0x2D
    if negative { k = 1 }
    let digitCount = bytes.count - k
    guard digitCount <= 19 else { return nil }
    var magnitude: UInt64 = 0
    while k < bytes.count {
      magnitude = magnitude &* 10 &+ UInt64(bytes[k] &- 0x30)
      k += 1
    }
    if digitCount == 19 && magnitude < 1_000_000_000_000_000_000 { return nil }  // wrapped
    if negative {
      if magnitude == 0 { return nil }
      guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
      return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
    }
    guard magnitude <= UInt64(Int64.max) else { return nil }
    return Int64(magnitude)
  }

  // MARK: Values

  /// Parses any JSON value.
  mutating func parseValue(depth: Int = 0) throws -> JSONValue {
    let c = try peek()
    switch c {
    case 0x22: return .string(try parseString())
    case 0x7B: return .object(try parseObject(depth: depth + 1))
    case 0x5B: return .array(try parseArray(depth: depth + 1))
    case 0x74: try literal("true"); return .bool(true)
    case 0x66: try literal("false"); return .bool(false)
    case 0x6E: try literal("null"); return .null
    case 0x2D, 0x30...0x39: return try parseNumberValue()
    default: throw unexpected("a JSON value")
    }
  }

  /// Parses an object, rejecting duplicate keys.
  mutating func parseObject(depth: Int) throws -> JSONObject {
    guard depth <= maxDepth else { throw ScanError("nesting deeper than \(maxDepth) levels", at: i) }
    try expect(0x7B, "'{'")
    var object = JSONObject()
    object.reserveCapacity(8)
    if try peek() == 0x7D {
      i += 1
      return object
    }
    while true {
      guard try peek() == 0x22 else { throw unexpected("a string key") }
      let keyIndex = i
      var key = ""
      if let raw = try scanString(decoded: &key) {
        key =
          keys?.string(base, raw)
          ?? String(
            decoding: UnsafeBufferPointer(start: base + raw.lowerBound, count: raw.count),
            as: UTF8.self)
      }
      try expect(0x3A, "':' after an object key")
      let value = try parseValue(depth: depth)
      try Self.checkDuplicate(key, in: object, at: keyIndex)
      object.appendUnchecked(key, value)
      let c = try peek()
      i += 1
      if c == 0x7D { return object }
      guard c == 0x2C else {
        i -= 1
        throw unexpected("',' or '}' after an object member")
      }
    }
  }

  static func checkDuplicate(_ key: String, in object: JSONObject, at index: Int) throws {
    if object.members.contains(where: { $0.key == key }) {
      throw ScanError("duplicate key \"\(key)\" in an object", at: index, structural: true)
    }
  }

  /// Parses an array.
  mutating func parseArray(depth: Int) throws -> [JSONValue] {
    guard depth <= maxDepth else { throw ScanError("nesting deeper than \(maxDepth) levels", at: i) }
    try expect(0x5B, "'['")
    var array: [JSONValue] = []
    if try peek() == 0x5D {
      i += 1
      return array
    }
    while true {
      array.append(try parseValue(depth: depth))
      let c = try peek()
      i += 1
      if c == 0x5D { return array }
      guard c == 0x2C else {
        i -= 1
        throw unexpected("',' or ']' after an array element")
      }
    }
  }

  /// Skips one value, checking its syntax only (used to step over a rejected feature).
  mutating func skipValue(depth: Int = 0) throws {
    guard depth <= maxDepth else { throw ScanError("nesting deeper than \(maxDepth) levels", at: i) }
    let c = try peek()
    switch c {
    case 0x22:
      var ignored = ""
      _ = try scanString(decoded: &ignored)
    case 0x7B, 0x5B:
      let close: UInt8 = c == 0x7B ? 0x7D : 0x5D
      i += 1
      if try peek() == close {
        i += 1
        return
      }
      while true {
        if c == 0x7B {
          guard try peek() == 0x22 else { throw unexpected("a string key") }
          var ignored = ""
          _ = try scanString(decoded: &ignored)
          try expect(0x3A, "':' after an object key")
        }
        try skipValue(depth: depth + 1)
        let next = try peek()
        i += 1
        if next == close { return }
        guard next == 0x2C else {
          i -= 1
          throw unexpected(
            c == 0x7B ? "',' or '}' after an object member" : "',' or ']' after an array element")
        }
      }
    case 0x74: try literal("true")
    case 0x66: try literal("false")
    case 0x6E: try literal("null")
    case 0x2D, 0x30...0x39: _ = try scanNumber()
    default: throw unexpected("a JSON value")
    }
  }

  private mutating func literal(_ word: StaticString) throws {
    let count = word.utf8CodeUnitCount
    let bytes = word.utf8Start
    for k in 0..<count {
      guard i + k < end else { throw ranOut() }
      guard base[i + k] == bytes[k] else {
        throw ScanError("invalid literal: expected '\(word)'", at: i)
      }
    }
    i += count
  }

  /// Whether the bytes at `range` spell `word` exactly.
  @inline(__always)
  func matches(_ range: Range<Int>, _ word: StaticString) -> Bool {
    let count = word.utf8CodeUnitCount
    guard range.count == count else { return false }
    let bytes = word.utf8Start
    for k in 0..<count where base[range.lowerBound + k] != bytes[k] { return false }
    return true
  }
}
