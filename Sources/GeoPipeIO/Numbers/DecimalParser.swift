#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Decimal-to-binary conversion for number text, correctly rounded (round-half-even).
//
// Three tiers, fastest first:
// 1. Clinger's fast path (Clinger, "How to Read Floating Point Numbers Accurately", 1990):
//    when the mantissa and the power of ten are both exact doubles, one IEEE multiplication or
//    division rounds correctly by itself.
// 2. The Eisel–Lemire algorithm (Lemire, "Number Parsing at a Gigabyte per Second", 2021;
//    the variant in fast_float and Go's strconv): a 64×128-bit multiplication by a truncated
//    power of five, which decides the rounding in all but vanishingly rare cases.
// 3. `strtod`, for mantissas longer than 19 significant digits (which do not fit in a UInt64)
//    and for the rare products Eisel–Lemire cannot decide.

/// Parses the bytes of one number that already matches the JSON number grammar
/// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`) and returns the nearest Double
/// (round-half-even), ±infinity on overflow, ±0 on underflow.
///
/// The caller's tokenizer has already validated the grammar, so this does not report errors;
/// malformed bytes never trap or read outside `bytes` and yield NaN.
@inline(__always)
func parseDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double {
  parseDecimalLenient(bytes) ?? .nan
}

/// Returns nil unless `bytes` is a number in the lenient form CSV cells and WKT use: optional
/// leading '+' or '-', digits with optional '.' (".5" and "5." allowed), optional exponent.
///
/// No whitespace, no "nan"/"inf", no hex.
///
/// The result is the nearest Double (round-half-even), ±infinity on overflow and ±0 on
/// underflow, exactly as `strtod` would return.
func parseDecimalLenient(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
  guard let start = bytes.baseAddress else { return nil }
  let end = start + bytes.count
  var cursor = start

  let isNegative = cursor < end && cursor.pointee == UInt8(ascii: "-")
  if cursor < end && (isNegative || cursor.pointee == UInt8(ascii: "+")) {
    cursor += 1
  }
  let mantissaStart = cursor

  // Accumulate every mantissa digit with wrapping arithmetic; the result is only used when at
  // most 19 of them are significant, and then it is exact (10^19 - 1 < 2^64).
  var mantissa: UInt64 = 0
  while cursor < end {
    let digit = cursor.pointee &- UInt8(ascii: "0")
    guard digit < 10 else { break }
    mantissa = mantissa &* 10 &+ UInt64(digit)
    cursor += 1
  }
  var digitCount = cursor - mantissaStart
  var exponent = 0
  var fractionEnd: UnsafePointer<UInt8>?
  if cursor < end && cursor.pointee == UInt8(ascii: ".") {
    cursor += 1
    let fractionStart = cursor
    while cursor < end {
      let digit = cursor.pointee &- UInt8(ascii: "0")
      guard digit < 10 else { break }
      mantissa = mantissa &* 10 &+ UInt64(digit)
      cursor += 1
    }
    exponent = fractionStart - cursor
    digitCount -= exponent
    fractionEnd = cursor
  }
  guard digitCount > 0 else { return nil }

  if cursor < end && (cursor.pointee | 0x20) == UInt8(ascii: "e") {
    cursor += 1
    var exponentIsNegative = false
    if cursor < end {
      exponentIsNegative = cursor.pointee == UInt8(ascii: "-")
      if exponentIsNegative || cursor.pointee == UInt8(ascii: "+") { cursor += 1 }
    }
    let exponentStart = cursor
    var explicitExponent = 0
    while cursor < end {
      let digit = cursor.pointee &- UInt8(ascii: "0")
      guard digit < 10 else { break }
      // Saturate instead of overflowing: any exponent beyond 2^59 exceeds every possible digit
      // count by far, so the result is already decided as ±0 or ±infinity.
      if explicitExponent < 1 << 59 {
        explicitExponent = explicitExponent * 10 + Int(digit)
      }
      cursor += 1
    }
    guard cursor > exponentStart else { return nil }
    exponent += exponentIsNegative ? -explicitExponent : explicitExponent
  }
  guard cursor == end else { return nil }

  if digitCount > 19 {
    // Leading zeros ("0.000123") are not significant; only when the rest is still too long
    // does the mantissa not fit in 64 bits.
    var scan = mantissaStart
    while scan < end && (scan.pointee == UInt8(ascii: "0") || scan.pointee == UInt8(ascii: ".")) {
      if scan.pointee == UInt8(ascii: "0") { digitCount -= 1 }
      scan += 1
    }
    // Nor are the zeros that end a fraction ("23135.510000000000000", as dBASE pads numbers).
    if digitCount > 19, let fractionEnd {
      var trailing = 0
      while (fractionEnd - trailing - 1).pointee == UInt8(ascii: "0") { trailing += 1 }
      if digitCount - trailing <= 19 {
        mantissa = 0
        var digit = mantissaStart
        while digit < fractionEnd - trailing {
          if digit.pointee != UInt8(ascii: ".") {
            mantissa = mantissa * 10 + UInt64(digit.pointee &- UInt8(ascii: "0"))
          }
          digit += 1
        }
        exponent += trailing
        digitCount -= trailing
      }
    }
    if digitCount > 19 { return parseWithStrtod(bytes) }
  }

  return decimalValue(mantissa: mantissa, exponent: exponent, isNegative: isNegative, text: bytes)
}

/// Returns the Double nearest to ±`mantissa` × 10^`exponent`, for a mantissa of at most 19
/// significant digits read from `text`, which `strtod` parses in the rare cases the fast paths
/// cannot decide.
@inline(__always)
func decimalValue(
  mantissa: UInt64, exponent: Int, isNegative: Bool, text: UnsafeBufferPointer<UInt8>
) -> Double {
  guard let magnitude = binaryValue(mantissa: mantissa, exponent: exponent) else {
    return parseWithStrtod(text)
  }
  return isNegative ? -magnitude : magnitude
}

/// Powers of ten that are exactly representable as a Double (5^22 < 2^53).
private let exactPowersOfTen: [Double] = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// Returns the Double nearest to `mantissa` × 10^`exponent`, or nil if the Eisel–Lemire
/// product is too close to a rounding boundary to decide.
///
/// `mantissa` must be exact (at most 19 significant decimal digits).
@inline(__always)
private func binaryValue(mantissa: UInt64, exponent: Int) -> Double? {
  // Clinger's fast path: both operands are exact doubles, so the single rounding of the IEEE
  // operation is the correct rounding of the decimal value.
  if exponent >= -22 && exponent <= 22 && mantissa <= 1 << 53 {
    let value = Double(mantissa)
    return exponent < 0
      ? value / exactPowersOfTen[-exponent] : value * exactPowersOfTen[exponent]
  }
  // Mantissas are below 10^19, so anything under 10^-342 is below half the smallest subnormal
  // and anything from 10^309 on overflows.
  if mantissa == 0 || exponent < powersOfFiveSmallestExponent { return 0 }
  if exponent > powersOfFiveLargestExponent { return .infinity }
  return eiselLemire(mantissa: mantissa, exponent: exponent).map(Double.init(bitPattern:))
}

/// Returns the bit pattern of the positive Double nearest to `mantissa` × 10^`exponent`, or
/// nil when the truncated product cannot decide the rounding.
///
/// This is the Eisel–Lemire algorithm as described by Lemire, "Number Parsing at a Gigabyte per
/// Second" (Software: Practice and Experience, 2021), following fast_float's `compute_float`.
/// Requires `mantissa != 0` and `exponent` within the range of `powersOfFive128`.
@inline(__always)
private func eiselLemire(mantissa: UInt64, exponent: Int) -> UInt64? {
  let leadingZeros = mantissa.leadingZeroBitCount
  let normalized = mantissa << UInt64(leadingZeros)
  let index = 2 * (exponent - powersOfFiveSmallestExponent)

  // Multiplying by the high half of the power alone falls short by less than one unit of
  // `high`. Unless the 9 bits of `high` below the 55 the result needs (53, a rounding bit and a
  // possible leading zero) are all ones, that shortfall cannot carry into them, so the low half
  // of the power is only needed then.
  var (high, low) = normalized.multipliedFullWidth(by: powersOfFive128[index])
  if high & 0x1FF == 0x1FF {
    let secondHigh = normalized.multipliedFullWidth(by: powersOfFive128[index + 1]).high
    let (sum, carried) = low.addingReportingOverflow(secondHigh)
    low = sum
    if carried { high &+= 1 }
    // Still all ones: the truncated 128-bit power could still be short enough to matter. For
    // -27 <= q <= 55 the table entry is exact (q >= 0) or an exact enough reciprocal (q < 0),
    // so only outside that range is the product undecidable.
    if low == .max && (exponent < -27 || exponent > 55) { return nil }
  }

  let upperBit = Int(high >> 63)
  let shift = UInt64(upperBit + 9)
  var significand = high >> shift
  // floor(q × log2(10)) + 63 via the fixed-point constant 217706 / 2^16 ≈ log2(10); valid for
  // |q| < 1500. Adding the bias 1023 gives the biased binary exponent.
  var biasedExponent = ((217_706 * exponent) >> 16) + 63 + upperBit - leadingZeros + 1023

  if biasedExponent <= 0 {
    // Subnormal: shift down to the fixed exponent, then round. No 19-digit decimal lies exactly
    // halfway between two subnormals, so rounding half up here is still correct.
    let subnormalShift = 1 - biasedExponent
    if subnormalShift >= 64 { return 0 }
    significand >>= UInt64(subnormalShift)
    significand += significand & 1
    significand >>= 1
    // If rounding carried into bit 52, this is exactly the smallest normal's bit pattern.
    return significand
  }

  // An exact tie (`low` and the dropped bits all zero) can only arise when 5^q is exact, i.e.
  // for small |q|; then round half to even by clearing the bit that would round up.
  if low <= 1 && exponent >= -4 && exponent <= 23 && significand & 3 == 1
    && significand << shift == high
  {
    significand &= ~1
  }
  significand += significand & 1
  significand >>= 1
  if significand >= 1 << 53 {
    // Rounding carried into a new bit: the significand becomes 1.0 × 2^(e + 1).
    significand = 1 << 52
    biasedExponent += 1
  }
  if biasedExponent >= 0x7FF { return Double.infinity.bitPattern }
  return UInt64(biasedExponent) << 52 | significand & ((1 << 52) - 1)
}

/// Parses `bytes` with the C library, for inputs the fast paths cannot decide.
///
/// Copies to a NUL-terminated temporary buffer since `bytes` is not NUL-terminated. Numbers use
/// '.' and this process never calls `setlocale`, so the "C" locale's `strtod` applies.
@inline(never)
private func parseWithStrtod(_ bytes: UnsafeBufferPointer<UInt8>) -> Double {
  withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
    UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(bytes))
    buffer[bytes.count] = 0
    // The capacity is at least 1, so `baseAddress` is never nil.
    guard let terminated = buffer.baseAddress else { return .nan }
    return strtod(terminated, nil)
  }
}
