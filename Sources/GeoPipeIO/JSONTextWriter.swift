import GeoPipeCore

/// Appends JSON text to a byte buffer: strings escaped per RFC 8259 §7, numbers in their
/// shortest round-trip form.
public struct JSONTextWriter {
  /// The text written so far.
  public var bytes: [UInt8] = []

  /// Creates an empty writer.
  public init() {}

  /// Appends ASCII text as it is.
  @inline(__always)
  public mutating func raw(_ text: StaticString) {
    append(UnsafeRawPointer(text.utf8Start), count: text.utf8CodeUnitCount)
  }

  /// Appends `count` bytes from `start`.
  @inline(__always)
  private mutating func append(_ start: UnsafeRawPointer, count: Int) {
    bytes.appendBytes(UnsafeRawBufferPointer(start: start, count: count))
  }

  /// Appends a quoted, escaped string.
  public mutating func writeString(_ string: String) {
    bytes.append(0x22)
    // A native string's bytes are read in place; others are made contiguous first.
    if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) == nil {
      var text = string
      text.withUTF8 { appendEscaped($0) }
    }
    bytes.append(0x22)
  }

  /// Appends UTF-8 text with the characters JSON strings cannot hold escaped.
  private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
    guard let base = utf8.baseAddress else { return }
    var runStart = 0
    var k = 0
    while k < utf8.count {
      // Eight bytes at a time while none needs escaping.
      while k + 8 <= utf8.count,
        ByteScanning.containsStringSpecial(ByteScanning.word(base, k)) == 0
      {
        k += 8
      }
      guard k < utf8.count else { break }
      let c = base[k]
      k += 1
      guard c < 0x20 || c == 0x22 || c == 0x5C else { continue }
      append(base + runStart, count: k - 1 - runStart)
      runStart = k
      switch c {
      case 0x22: raw("\\\"")
      case 0x5C: raw("\\\\")
      case 0x0A: raw("\\n")
      case 0x0D: raw("\\r")
      case 0x09: raw("\\t")
      case 0x08: raw("\\b")
      case 0x0C: raw("\\f")
      default:
        raw("\\u00")
        bytes.append(hexDigit(c >> 4))
        bytes.append(hexDigit(c & 0xF))
      }
    }
    append(base + runStart, count: utf8.count - runStart)
  }

  private func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x61 + value - 10 }

  /// Appends an integer.
  public mutating func writeInteger(_ value: Int64) {
    if value >= 0 && value < 10 {
      bytes.append(0x30 + UInt8(value))
      return
    }
    var magnitude = value.magnitude
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var count = 0
    withUnsafeMutableBytes(of: &digits) { scratch in
      while magnitude > 0 {
        scratch[23 - count] = 0x30 + UInt8(magnitude % 10)
        magnitude /= 10
        count += 1
      }
      if value < 0 { bytes.append(0x2D) }
      if let base = scratch.baseAddress { append(base + (24 - count), count: count) }
    }
  }

  /// Appends a double as a JSON float: shortest round-trip digits, always with a fraction or
  /// an exponent so it reads back as a float (`1.0`, `-0.0`, `1e-05`).
  public mutating func writeFloat(_ value: Double) {
    if !writeShortDecimal(value, wholeSuffix: true) {
      bytes.append(contentsOf: value.description.utf8)
    }
  }

  /// Appends a coordinate: shortest round-trip digits, with a whole number written without
  /// `.0` (`12`, `-0`); `precision` rounds to that many decimals first.
  @inline(__always)
  public mutating func writeCoordinate(_ value: Double, precision: Int? = nil) {
    var v = value
    if let precision {
      let scale = powersOfTen[min(max(precision, 0), 17)]
      let rounded = (v * scale).rounded() / scale
      if rounded.isFinite { v = rounded }
    }
    if writeShortDecimal(v, wholeSuffix: false) { return }
    let text = v.description
    if text.hasSuffix(".0") {
      bytes.append(contentsOf: text.utf8.dropLast(2))
    } else {
      bytes.append(contentsOf: text.utf8)
    }
  }

  /// Writes `value` in plain decimal notation with the fewest fraction digits that read back
  /// to exactly the same double, when `value` is in the range where that is also how
  /// `Double.description` writes it (1e-4 ≤ |value| < 2^53); returns false otherwise.
  ///
  /// Trying 0, 1, 2, … decimals is exact: for an integer m < 2^53 and k ≤ 17, `m / 10^k` is
  /// a single correctly rounded division, so it equals `value` exactly when the decimal
  /// m·10^-k reads back as `value`.
  @inline(__always)
  private mutating func writeShortDecimal(_ value: Double, wholeSuffix: Bool) -> Bool {
    let magnitude = value.magnitude
    guard magnitude >= 1e-4 && magnitude < 9_007_199_254_740_992 else { return false }
    // The most decimals that keep the scaled value an exact integer (below 2^53).
    var high = 17
    while high > 0 && magnitude * powersOfTen[high] >= 9_007_199_254_740_992 { high -= 1 }
    guard exactly(magnitude, decimals: high) != nil else { return false }
    // Fewer decimals that still round-trip: the property is monotonic, so bisect.
    var low = 0
    while low < high {
      let middle = (low + high) / 2
      if exactly(magnitude, decimals: middle) != nil { high = middle } else { low = middle + 1 }
    }
    guard let digits = exactly(magnitude, decimals: high) else { return false }
    writeDecimal(
      digits, fractionDigits: high, negative: value < 0, wholeSuffix: high == 0 && wholeSuffix)
    return true
  }

  /// The integer m with m / 10^decimals == magnitude exactly, if there is one.
  @inline(__always)
  private func exactly(_ magnitude: Double, decimals: Int) -> UInt64? {
    let scale = powersOfTen[decimals]
    let scaled = nearestInteger(magnitude * scale)
    guard scaled < 9_007_199_254_740_992, scaled / scale == magnitude else { return nil }
    return UInt64(scaled)
  }

  /// `x.rounded()` for a non-negative `x` (halfway cases away from zero), without a call
  /// into libm: adding and taking away 2^52 rounds to an integer (ties to even), which a tie
  /// then moves up; from 2^52 on every double is an integer.
  @inline(__always)
  private func nearestInteger(_ x: Double) -> Double {
    let twoToThe52 = 4_503_599_627_370_496.0
    guard x < twoToThe52 else { return x }
    let even = (x + twoToThe52) - twoToThe52
    return x - even == 0.5 ? even + 1 : even
  }

  /// Writes `digits` with a decimal point `fractionDigits` from the right (`1234`, 2 → 12.34;
  /// `5`, 3 → 0.005), a minus sign before when `negative` and `.0` after when `wholeSuffix`,
  /// in one append.
  private mutating func writeDecimal(
    _ digits: UInt64, fractionDigits: Int, negative: Bool, wholeSuffix: Bool
  ) {
    var scratch: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &scratch) { buffer in
      var end = 40
      if wholeSuffix {
        buffer[38] = 0x2E
        buffer[39] = 0x30
        end = 38
      }
      var n = digits
      var position = end
      var written = 0
      repeat {
        if written == fractionDigits && written > 0 {
          position -= 1
          buffer[position] = 0x2E
        }
        position -= 1
        buffer[position] = 0x30 + UInt8(n % 10)
        n /= 10
        written += 1
      } while n > 0 || written <= fractionDigits
      if negative {
        position -= 1
        buffer[position] = 0x2D
      }
      if let base = buffer.baseAddress { append(base + position, count: 40 - position) }
    }
  }

  /// Appends any JSON value.
  public mutating func writeValue(_ value: JSONValue) {
    switch value {
    case .null: raw("null")
    case .bool(let b): if b { raw("true") } else { raw("false") }
    case .integer(let n): writeInteger(n)
    case .bigInteger(let text), .bigNumber(let text): bytes.append(contentsOf: text.utf8)
    case .double(let d):
      if d.isFinite { writeFloat(d) } else { raw("null") }
    case .string(let s): writeString(s)
    case .array(let items):
      bytes.append(0x5B)
      for (k, item) in items.enumerated() {
        if k > 0 { bytes.append(0x2C) }
        writeValue(item)
      }
      bytes.append(0x5D)
    case .object(let object): writeObject(object)
    }
  }

  /// Appends an object's members in order.
  public mutating func writeObject(_ object: JSONObject) {
    bytes.append(0x7B)
    var first = true
    for member in object.members {
      if !first { bytes.append(0x2C) }
      first = false
      writeString(member.key)
      bytes.append(0x3A)
      writeValue(member.value)
    }
    bytes.append(0x7D)
  }
}

private let powersOfTen: [Double] = (0...17).map { k in
  var value = 1.0
  for _ in 0..<k { value *= 10 }
  return value
}
