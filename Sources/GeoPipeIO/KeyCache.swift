#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Remembers recently seen object keys, so that the keys every feature repeats ("name",
/// "population") are turned into strings once rather than once per feature.
final class KeyCache {
  // Unsafe storage: arrays in a class would pay for dynamic exclusivity checks on each access.
  private let bytes = UnsafeMutablePointer<[UInt8]>.allocate(capacity: 256)
  private let strings = UnsafeMutablePointer<String>.allocate(capacity: 256)

  init() {
    bytes.initialize(repeating: [], count: 256)
    strings.initialize(repeating: "", count: 256)
  }

  deinit {
    bytes.deinitialize(count: 256)
    bytes.deallocate()
    strings.deinitialize(count: 256)
    strings.deallocate()
  }

  /// The string for the ASCII bytes `base[range]`.
  func string(_ base: UnsafePointer<UInt8>, _ range: Range<Int>) -> String {
    let n = range.count
    let p = base + range.lowerBound
    guard n > 0 && n <= 48 else {
      return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }
    let slot = (Int(p[0]) &* 31 &+ Int(p[n - 1]) &* 7 &+ Int(p[n >> 1]) &+ n) & 255
    let hit = bytes[slot].withUnsafeBufferPointer { cached in
      guard cached.count == n, let base = cached.baseAddress else { return false }
      return memcmp(base, p, n) == 0
    }
    if hit { return strings[slot] }
    let buffer = UnsafeBufferPointer(start: p, count: n)
    let string = String(decoding: buffer, as: UTF8.self)
    bytes[slot] = Array(buffer)
    strings[slot] = string
    return string
  }
}
