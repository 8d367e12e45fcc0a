import GeoPipeCore

/// Number scanning: the RFC 8259 §6 grammar, integers kept exact, floats by Eisel–Lemire.
extension JSONScanner {
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
