/// Eight-bytes-at-a-time tests ("SIMD within a register") for the scanners and writers.
///
/// Each returns a word whose high bit is set in some byte exactly when the tested property holds
/// for some byte (the classic "has zero byte" test): zero means no byte matches, so a loop can
/// step over eight bytes at once.
enum ByteScanning {
  private static let ones: UInt64 = 0x0101_0101_0101_0101
  private static let highs: UInt64 = 0x8080_8080_8080_8080

  /// Nonzero when some byte of `word` equals `byte`.
  @inline(__always)
  static func contains(_ word: UInt64, _ byte: UInt8) -> UInt64 {
    let x = word ^ (ones &* UInt64(byte))
    return (x &- ones) & ~x & highs
  }

  /// Nonzero when some byte of `word` is below 0x20 (a control character).
  @inline(__always)
  static func containsControl(_ word: UInt64) -> UInt64 {
    (word &- ones &* 0x20) & ~word & highs
  }

  /// Nonzero when some byte is a quote, a backslash or a control character: the bytes that
  /// end or interrupt the plain part of a JSON string.
  @inline(__always)
  static func containsStringSpecial(_ word: UInt64) -> UInt64 {
    contains(word, 0x22) | contains(word, 0x5C) | containsControl(word)
  }

  /// How many of the bytes of `word`, from the lowest, are ASCII digits before the first that is
  /// not (8 when all are).
  ///
  /// A byte is flagged when adding 0x46 or subtracting 0x30 sets its high bit (fast_float's
  /// eight-digit test); no carry or borrow reaches the lowest flagged byte from below, so it is
  /// exact.
  @inline(__always)
  static func leadingDigitCount(_ word: UInt64) -> Int {
    let flagged = ((word &+ 0x4646_4646_4646_4646) | (word &- 0x3030_3030_3030_3030)) & highs
    return flagged.trailingZeroBitCount >> 3
  }

  /// 10^k for k < 8.
  static let powersOfTen: [UInt64] = [1, 10, 100, 1000, 10000, 100_000, 1_000_000, 10_000_000]

  /// The value of eight ASCII digits loaded from memory, the first in the lowest byte
  /// (fast_float's `parse_eight_digits_unrolled`: pairs, then fours, then all eight).
  @inline(__always)
  static func eightDigitsValue(_ word: UInt64) -> UInt64 {
    var value = word &- 0x3030_3030_3030_3030
    value = value &* 10 &+ (value >> 8)
    let pairs: UInt64 = 0x0000_00FF_0000_00FF
    let high = (value & pairs) &* 0x000F_4240_0000_0064  // × 100 and × 1000000
    let low = ((value >> 16) & pairs) &* 0x0000_2710_0000_0001  // × 1 and × 10000
    return (high &+ low) >> 32
  }

  /// Whether `bytes` is well-formed UTF-8 (the Unicode Standard's table 3-7: no overlong forms,
  /// no surrogates, nothing above U+10FFFF).
  static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let end = bytes.count
    var k = 0
    while k < end {
      // ASCII eight bytes at a time.
      if k + 8 <= end && word(base, k) & highs == 0 {
        k += 8
        continue
      }
      let lead = base[k]
      if lead < 0x80 {
        k += 1
        continue
      }
      // The range of the second byte depends on the lead byte; later bytes are 80…BF.
      let length: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0:
        length = 3
        low = 0xA0
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED:
        length = 3
        high = 0x9F
      case 0xF0:
        length = 4
        low = 0x90
      case 0xF1...0xF3: length = 4
      case 0xF4:
        length = 4
        high = 0x8F
      default: return false
      }
      guard k + length <= end, base[k + 1] >= low && base[k + 1] <= high else { return false }
      for j in 2..<length where base[k + j] & 0xC0 != 0x80 { return false }
      k += length
    }
    return true
  }

  /// Loads eight bytes from `base + offset`.
  @inline(__always)
  static func word(_ base: UnsafePointer<UInt8>, _ offset: Int) -> UInt64 {
    UnsafeRawPointer(base).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
  }

  /// One bit per byte of `word` (bit k for byte k) where the byte equals `byte`, with no false
  /// positives (carries never cross bytes).
  @inline(__always)
  static func mask(_ word: UInt64, equalTo byte: UInt8) -> UInt64 {
    let x = word ^ (ones &* UInt64(byte))
    let t = ((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x
    return (((~t & highs) >> 7) &* 0x0102_0408_1020_4080) >> 56
  }

  /// Bit masks of the quotes, the brackets (`{`, `}`, `[`, `]`) and the backslashes among the 64
  /// bytes at `base + offset`: bit k stands for byte k.
  ///
  /// Sixteen bytes are compared at once; each comparison's 0x00/0xFF bytes are gathered into bits
  /// by one multiplication per eight bytes.
  @inline(__always)
  static func structure(_ base: UnsafePointer<UInt8>, _ offset: Int)
    -> (quotes: UInt64, brackets: UInt64, backslashes: UInt64)
  {
    let raw = UnsafeRawPointer(base) + offset
    var quotes: UInt64 = 0
    var brackets: UInt64 = 0
    var backslashes: UInt64 = 0
    var anyBackslash = SIMDMask<SIMD16<Int8>>(repeating: false)
    for k in 0..<4 {
      let bytes = raw.loadUnaligned(fromByteOffset: 16 * k, as: SIMD16<UInt8>.self)
      let folded = bytes | SIMD16(repeating: 0x20)  // '[' → '{', ']' → '}'
      let shift = UInt64(16 * k)
      quotes |= bits(bytes .== SIMD16(repeating: 0x22)) << shift
      brackets |=
        bits((folded .== SIMD16(repeating: 0x7B)) .| (folded .== SIMD16(repeating: 0x7D))) << shift
      anyBackslash .|= bytes .== SIMD16(repeating: 0x5C)
    }
    let (low, high) = unsafeBitCast(anyBackslash, to: (UInt64, UInt64).self)
    if low | high != 0 {
      for k in 0..<4 {
        let bytes = raw.loadUnaligned(fromByteOffset: 16 * k, as: SIMD16<UInt8>.self)
        backslashes |= bits(bytes .== SIMD16(repeating: 0x5C)) << UInt64(16 * k)
      }
    }
    return (quotes, brackets, backslashes)
  }

  /// One bit per lane of a comparison's result (bit k for lane k).
  @inline(__always)
  private static func bits(_ mask: SIMDMask<SIMD16<Int8>>) -> UInt64 {
    let (low, high) = unsafeBitCast(mask, to: (UInt64, UInt64).self)
    // Each 0xFF byte keeps one distinct bit, and the multiplication adds the eight bytes up
    // into the top byte.
    let lanes: UInt64 = 0x8040_2010_0804_0201
    let lowBits = ((low & lanes) &* ones) >> 56
    let highBits = ((high & lanes) &* ones) >> 56
    return lowBits | highBits << 8
  }

  /// The bytes that a backslash escapes, given the backslashes of a 64-byte block; `carry` says
  /// whether the block's first byte is escaped and is updated for the next block.
  ///
  /// A run of backslashes escapes every second one and, if its length is odd, the byte after it
  /// (the method of simdjson: Langdale and Lemire, "Parsing Gigabytes of JSON per Second", 2019).
  @inline(__always)
  static func escaped(_ backslashes: UInt64, carry: inout UInt64) -> UInt64 {
    let even: UInt64 = 0x5555_5555_5555_5555
    let backslashes = backslashes & ~carry
    let followsEscape = backslashes << 1 | carry
    let oddStarts = backslashes & ~even & ~followsEscape
    let (sum, overflow) = oddStarts.addingReportingOverflow(backslashes)
    carry = overflow ? 1 : 0
    return (even ^ (sum << 1)) & followsEscape
  }

  /// Each bit set from a set bit of `x` up to (not including) the next one: the bytes inside
  /// strings, given the quote positions (a carry-less prefix sum).
  @inline(__always)
  static func prefixXor(_ x: UInt64) -> UInt64 {
    var y = x
    y ^= y << 1
    y ^= y << 2
    y ^= y << 4
    y ^= y << 8
    y ^= y << 16
    y ^= y << 32
    return y
  }
}
