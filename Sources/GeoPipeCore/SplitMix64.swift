/// SplitMix64 (Steele, Lea and Flood, 2014), a small seeded random number generator.
///
/// It gives the same numbers on every platform and run, for reproducible samples, tests and
/// benchmarks; it is not for anything that must be unpredictable.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose numbers are fixed by `seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform number in [0, 1) from the top 53 bits of the next number.
  public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
