#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Remembers recently seen object keys, so that the keys every feature repeats ("name",
/// "population") are turned into strings once rather than once per feature.
final class KeyCache {
  private static let slots = 256
  /// Longer keys are not cached.
  private static let longest = 48

  // Unsafe storage: arrays in a class would pay for dynamic exclusivity checks on each access.
  // Slot k holds a key's bytes at `bytes + k * longest`, their count, and the key.
  private let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: slots * longest)
  private let counts = UnsafeMutablePointer<Int>.allocate(capacity: slots)
  private let strings = UnsafeMutablePointer<String>.allocate(capacity: slots)

  init() {
    counts.initialize(repeating: -1, count: Self.slots)
    strings.initialize(repeating: "", count: Self.slots)
  }

  deinit {
    bytes.deallocate()
    counts.deallocate()
    strings.deinitialize(count: Self.slots)
    strings.deallocate()
  }

  /// The string for the ASCII bytes `base[range]`, and the slot that caches it (nil for a key
  /// too long to cache): equal keys always have the same slot.
  func key(_ base: UnsafePointer<UInt8>, _ range: Range<Int>) -> (string: String, slot: Int?) {
    let n = range.count
    let p = base + range.lowerBound
    guard n > 0 && n <= Self.longest else {
      return (String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self), nil)
    }
    let slot = (Int(p[0]) &* 31 &+ Int(p[n - 1]) &* 7 &+ Int(p[n >> 1]) &+ n) & (Self.slots - 1)
    let cached = bytes + slot * Self.longest
    if counts[slot] == n && Self.equal(cached, p, n) { return (strings[slot], slot) }
    let string = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    cached.update(from: p, count: n)
    counts[slot] = n
    strings[slot] = string
    return (string, slot)
  }

  /// Whether the `n` bytes at `a` and `b` are equal; short keys are compared as two overlapping
  /// words, which reads no byte outside either.
  @inline(__always)
  private static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int)
    -> Bool
  {
    let x = UnsafeRawPointer(a)
    let y = UnsafeRawPointer(b)
    switch n {
    case 8...16:
      return x.loadUnaligned(as: UInt64.self) == y.loadUnaligned(as: UInt64.self)
        && x.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
          == y.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
    case 4..<8:
      return x.loadUnaligned(as: UInt32.self) == y.loadUnaligned(as: UInt32.self)
        && x.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
          == y.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
    case 0..<4:
      for k in 0..<n where a[k] != b[k] { return false }
      return true
    default:
      return memcmp(a, b, n) == 0
    }
  }
}
