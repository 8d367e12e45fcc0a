import GeoPipeCore

/// A number token and what its digits say, gathered while its grammar is checked.
struct NumberToken {
  var range: Range<Int>
  var isNegative: Bool
  /// True for an integer literal (no fraction, no exponent).
  var isInteger: Bool
  /// The digits without the point, accumulated with wrapping arithmetic: exact when
  /// `digitCount` is at most 19.
  var mantissa: UInt64
  var digitCount: Int
  /// The power of ten that scales `mantissa`.
  var exponent: Int
}

/// Number scanning: the RFC 8259 §6 grammar, integers kept exact, floats by Eisel–Lemire.
extension JSONScanner {
  /// Scans a number token, accumulating its digits in the same pass.
  @inline(__always)
  mutating func scanNumber() throws -> NumberToken {
    let start = i
    let isNegative = i < end && base[i] == 0x2D
    if isNegative { i += 1 }
    guard i < end else { throw ranOut() }
    var mantissa: UInt64 = 0
    let first = base[i]
    if first == 0x30 {
      i += 1
      if i < end, base[i] >= 0x30 && base[i] <= 0x39 {
        throw ScanError("numbers cannot have leading zeros", at: start)
      }
    } else if first >= 0x31 && first <= 0x39 {
      accumulateDigits(into: &mantissa)
    } else {
      throw ScanError("invalid number: expected a digit, found \(describeByte(at: i))", at: i)
    }
    var digitCount = i - start - (isNegative ? 1 : 0)
    var exponent = 0
    var isInteger = true
    if i < end && base[i] == 0x2E {
      isInteger = false
      i += 1
      let digits = i
      accumulateDigits(into: &mantissa)
      if i == digits {
        if i == end { throw ranOut() }
        throw ScanError("invalid number: expected a digit after '.'", at: i)
      }
      exponent = digits - i
      digitCount += i - digits
    }
    if i < end && base[i] | 0x20 == 0x65 {  // 'e' or 'E'
      isInteger = false
      i += 1
      let negativeExponent = i < end && base[i] == 0x2D
      if i < end && (negativeExponent || base[i] == 0x2B) { i += 1 }
      let digits = i
      var explicit = 0
      while i < end {
        let digit = base[i] &- 0x30
        guard digit < 10 else { break }
        // Saturate: an exponent this large already decides the result as ±0 or ±infinity.
        if explicit < 1 << 59 { explicit = explicit * 10 + Int(digit) }
        i += 1
      }
      if i == digits {
        if i == end { throw ranOut() }
        throw ScanError("invalid number: expected a digit in the exponent", at: i)
      }
      exponent += negativeExponent ? -explicit : explicit
    }
    // A number that touches the end of the window may continue in the next bytes.
    if i == end && !isFinal { throw NeedMoreInput() }
    return NumberToken(
      range: start..<i, isNegative: isNegative, isInteger: isInteger, mantissa: mantissa,
      digitCount: digitCount, exponent: exponent)
  }

  @inline(__always)
  private mutating func accumulateDigits(into mantissa: inout UInt64) {
    // Eight bytes at a time, without a branch per digit.
    while i + 8 <= end {
      let word = ByteScanning.word(base, i)
      let count = ByteScanning.leadingDigitCount(word)
      if count == 8 {
        mantissa = mantissa &* 100_000_000 &+ ByteScanning.eightDigitsValue(word)
        i += 8
        continue
      }
      // Fewer digits: move them to the top bytes and fill the bytes below, which stand for the
      // leading digits, with '0'.
      let padding = UInt64(64 - 8 * count)
      let digits = word << padding | 0x3030_3030_3030_3030 >> UInt64(8 * count)
      mantissa =
        mantissa &* ByteScanning.powersOfTen[count] &+ ByteScanning.eightDigitsValue(digits)
      i += count
      return
    }
    while i < end {
      let digit = base[i] &- 0x30
      guard digit < 10 else { return }
      mantissa = mantissa &* 10 &+ UInt64(digit)
      i += 1
    }
  }

  /// The nearest Double to a scanned number.
  @inline(__always)
  private func doubleValue(_ token: NumberToken) -> Double {
    let text = UnsafeBufferPointer(start: base + token.range.lowerBound, count: token.range.count)
    guard token.digitCount <= 19 else { return parseDecimal(text) }
    return decimalValue(
      mantissa: token.mantissa, exponent: token.exponent, isNegative: token.isNegative, text: text)
  }

  /// Parses a number as a Double.
  @inline(__always)
  mutating func parseDouble() throws -> (value: Double, start: Int) {
    let token = try scanNumber()
    return (doubleValue(token), token.range.lowerBound)
  }

  /// Parses a number as a JSON value that keeps its kind.
  mutating func parseNumberValue() throws -> JSONValue {
    let token = try scanNumber()
    let bytes = UnsafeBufferPointer(start: base + token.range.lowerBound, count: token.range.count)
    if token.isInteger {
      // Up to 18 digits the mantissa is exact and fits; `-0` keeps its spelling (see parseInt64).
      if token.digitCount <= 18 && (token.mantissa != 0 || !token.isNegative) {
        let magnitude = Int64(token.mantissa)
        return .integer(token.isNegative ? -magnitude : magnitude)
      }
      if let value = parseInt64(bytes) { return .integer(value) }
      return .bigInteger(String(decoding: bytes, as: UTF8.self))
    }
    let value = doubleValue(token)
    guard value.isFinite else { return .bigNumber(String(decoding: bytes, as: UTF8.self)) }
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
}
