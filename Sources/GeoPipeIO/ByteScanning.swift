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
