/// A run of positions stored in one contiguous array of doubles.
///
/// Lines and rings hold their coordinates here rather than as an array of `Position` values,
/// so a long line is one heap allocation. Every position occupies `dimension` slots; a
/// position that has fewer numbers than the widest one in the run stores NaN for the rest.
public struct CoordinateArray: Hashable, Sendable, RandomAccessCollection {
  /// The interleaved ordinates: x0, y0, [z0, [m0,]] x1, y1, ...
  public private(set) var storage: [Double]
  /// Numbers per position: 2, 3 or 4.
  public private(set) var dimension: Int

  /// Creates an empty run with the given dimension.
  public init(dimension: Int = 2) {
    storage = []
    self.dimension = dimension
  }

  /// Creates a run from interleaved ordinates.
  ///
  /// - Precondition: `storage.count` is a multiple of `dimension`.
  public init(storage: [Double], dimension: Int) {
    self.storage = storage
    self.dimension = dimension
  }

  /// Creates a run from positions.
  public init(_ positions: some Sequence<Position>) {
    self.init()
    for position in positions { append(position) }
  }

  /// The first index.
  public var startIndex: Int { 0 }
  /// The number of positions.
  public var endIndex: Int { storage.count / dimension }

  /// The position at `index`.
  public subscript(index: Int) -> Position {
    get {
      let base = index * dimension
      return Position(
        x: storage[base], y: storage[base + 1],
        z: dimension > 2 ? storage[base + 2] : .nan,
        m: dimension > 3 ? storage[base + 3] : .nan)
    }
    set {
      widen(to: newValue.dimension)
      let base = index * dimension
      storage[base] = newValue.x
      storage[base + 1] = newValue.y
      if dimension > 2 { storage[base + 2] = newValue.z }
      if dimension > 3 { storage[base + 3] = newValue.m }
    }
  }

  /// Appends a position, widening the run if the position has more numbers.
  public mutating func append(_ position: Position) {
    widen(to: position.dimension)
    storage.append(position.x)
    storage.append(position.y)
    if dimension > 2 { storage.append(position.z) }
    if dimension > 3 { storage.append(position.m) }
  }

  /// Reserves room for `count` positions.
  public mutating func reserveCapacity(_ count: Int) {
    storage.reserveCapacity(count * dimension)
  }

  /// Reverses the order of the positions in place.
  public mutating func reverse() {
    var low = 0
    var high = count - 1
    while low < high {
      for k in 0..<dimension {
        storage.swapAt(low * dimension + k, high * dimension + k)
      }
      low += 1
      high -= 1
    }
  }

  /// Calls `body` with the x and y of each position, without building `Position` values.
  @inlinable
  public func forEachXY(_ body: (Double, Double) throws -> Void) rethrows {
    var i = 0
    while i < storage.count {
      try body(storage[i], storage[i + 1])
      i += dimension
    }
  }

  /// Transforms every x/y pair in place (z and m are kept).
  public mutating func transformXY(_ body: (inout Double, inout Double) throws -> Void) rethrows {
    var i = 0
    while i < storage.count {
      var x = storage[i]
      var y = storage[i + 1]
      try body(&x, &y)
      storage[i] = x
      storage[i + 1] = y
      i += dimension
    }
  }

  /// Twice the signed area of the ring (shoelace formula); positive when counter-clockwise.
  public var signedDoubleArea: Double {
    guard count > 2 else { return 0 }
    var sum = 0.0
    let x0 = storage[0]
    let y0 = storage[1]
    var i = dimension
    // Relative to the first vertex, to keep precision for rings far from the origin.
    while i + dimension < storage.count {
      let ax = storage[i] - x0
      let ay = storage[i + 1] - y0
      let bx = storage[i + dimension] - x0
      let by = storage[i + dimension + 1] - y0
      sum += ax * by - bx * ay
      i += dimension
    }
    return sum
  }

  private mutating func widen(to newDimension: Int) {
    guard newDimension > dimension else { return }
    let n = count
    var widened = [Double](repeating: .nan, count: n * newDimension)
    for i in 0..<n {
      for k in 0..<dimension { widened[i * newDimension + k] = storage[i * dimension + k] }
    }
    storage = widened
    dimension = newDimension
  }

  /// Compares bit patterns, so NaN (absent) equals NaN and -0.0 differs from 0.0.
  public static func == (a: CoordinateArray, b: CoordinateArray) -> Bool {
    guard a.dimension == b.dimension, a.storage.count == b.storage.count else { return false }
    for i in a.storage.indices where a.storage[i].bitPattern != b.storage[i].bitPattern {
      return false
    }
    return true
  }

  /// Hashes the bit patterns, consistent with `==`.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(dimension)
    for value in storage { hasher.combine(value.bitPattern) }
  }
}
