import GeoPipeCore

/// String scanning: quotes, escapes (RFC 8259 §7) and UTF-8 validation.
extension JSONScanner {
  /// Scans a string at the current index (which must be a quote) and returns its bytes'
  /// range when it has no escapes; `nil` range means the slow path decoded it into `decoded`.
  @inline(__always)
  mutating func scanString(decoded: inout String) throws -> Range<Int>? {
    // Most keys and many values are short ASCII: look for the closing quote in the next eight
    // bytes before calling the general scanner.
    let first = i + 1
    if first + 8 <= end {
      let word = ByteScanning.word(base, first)
      let length = ByteScanning.containsStringSpecial(word).trailingZeroBitCount >> 3
      if length < 8 && base[first + length] == 0x22
        && word & ((1 << UInt64(8 * length)) &- 1) & 0x8080_8080_8080_8080 == 0
      {
        i = first + length + 1
        return first..<(first + length)
      }
    }
    return try scanAnyString(decoded: &decoded)
  }

  /// `scanString(decoded:)` for strings of any length and content.
  private mutating func scanAnyString(decoded: inout String) throws -> Range<Int>? {
    let open = i
    i += 1
    // Eight bytes at a time up to the first quote, backslash or control character; the lowest
    // flagged byte of a word is exact (the flags of higher bytes may not be).
    var wide: UInt64 = 0
    while i + 8 <= end {
      let word = ByteScanning.word(base, i)
      let special = ByteScanning.containsStringSpecial(word)
      if special != 0 {
        let before = special.trailingZeroBitCount & ~7
        wide |= word & ((1 << UInt64(before)) &- 1)
        i += before >> 3
        break
      }
      wide |= word
      i += 8
    }
    var high: UInt8 = wide & 0x8080_8080_8080_8080 != 0 ? 0x80 : 0
    while i < end {
      let c = base[i]
      if c == 0x22 {
        let range = (open + 1)..<i
        i += 1
        if high >= 0x80 {
          let bytes = UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
          guard ByteScanning.isValidUTF8(bytes) else {
            throw ScanError("invalid UTF-8 in a string", at: firstInvalidUTF8(in: range))
          }
          decoded = String(decoding: bytes, as: UTF8.self)
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
    out.reserveCapacity(64)
    while true {
      // Copy the plain bytes up to the next quote, backslash or control character at once.
      let run = i
      while i < end && base[i] != 0x22 && base[i] != 0x5C && base[i] >= 0x20 { i += 1 }
      out.append(contentsOf: UnsafeBufferPointer(start: base + run, count: i - run))
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
    return try out.withUnsafeBufferPointer { bytes in
      guard ByteScanning.isValidUTF8(bytes) else {
        throw ScanError("invalid UTF-8 in a string", at: firstInvalidUTF8(in: (open + 1)..<i))
      }
      return String(decoding: bytes, as: UTF8.self)
    }
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
}
