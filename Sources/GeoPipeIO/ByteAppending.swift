extension Array where Element == UInt8 {
  /// Appends raw bytes with one copy, growing the storage as appending does; cheaper for
  /// the short runs that writers append by the million than the generic
  /// `append(contentsOf:)`.
  @inlinable @inline(__always)
  public mutating func appendBytes(_ source: UnsafeRawBufferPointer) {
    let count = source.count
    guard count > 0, let start = source.baseAddress else { return }
    append(addingCapacity: count) { span in
      span.withUnsafeMutableBufferPointer { buffer, initialized in
        if let target = buffer.baseAddress {
          UnsafeMutableRawPointer(target).copyMemory(from: start, byteCount: count)
          initialized = count
        }
      }
    }
  }
}
