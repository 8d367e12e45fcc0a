/// The side of a directed segment a point lies on, decided exactly.
///
/// The sign of the determinant `(b - a) × (c - a)` is first computed in floating point with
/// Shewchuk's error bound (ccwerrboundA, "Adaptive Precision Floating-Point Arithmetic and
/// Fast Robust Geometric Predicates", 1997); when the result is too close to zero to trust,
/// the determinant is expanded into six products, each split exactly into two doubles with
/// a fused multiply-add, and their sum is formed as a nonoverlapping expansion whose largest
/// component gives the sign. No rounding can flip the answer (barring overflow or underflow
/// of the products, far outside longitudes and latitudes).
public enum Orientation: Int8, Sendable {
  /// `c` lies to the right of `a`→`b` (clockwise).
  case clockwise = -1
  /// `a`, `b` and `c` lie on one line.
  case collinear = 0
  /// `c` lies to the left of `a`→`b` (counterclockwise).
  case counterclockwise = 1

  /// The orientation of `c` relative to the segment from `a` to `b`.
  @inline(__always)
  public static func of(
    _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
  ) -> Orientation {
    let left = (bx - ax) * (cy - ay)
    let right = (by - ay) * (cx - ax)
    let det = left - right
    let bound = errorBound * (abs(left) + abs(right))
    if det > bound { return .counterclockwise }
    if -det > bound { return .clockwise }
    return exact(ax, ay, bx, by, cx, cy)
  }

  /// (3 + 16ε)ε with ε = 2⁻⁵³: Shewchuk's ccwerrboundA.
  private static let errorBound = (3.0 + 16.0 * 0x1p-53) * 0x1p-53

  /// The exact sign of bx·cy − bx·ay − ax·cy − by·cx + by·ax + ay·cx (the determinant with
  /// its ax·ay terms cancelled).
  private static func exact(
    _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
  ) -> Orientation {
    var expansion = Expansion()
    expansion.addProduct(bx, cy)
    expansion.addProduct(-bx, ay)
    expansion.addProduct(-ax, cy)
    expansion.addProduct(-by, cx)
    expansion.addProduct(by, ax)
    expansion.addProduct(ay, cx)
    let sign = expansion.sign
    return sign > 0 ? .counterclockwise : sign < 0 ? .clockwise : .collinear
  }
}

/// A sum of doubles held exactly as a nonoverlapping expansion (Shewchuk's Grow-Expansion):
/// components in increasing magnitude, so the last nonzero one has the sum's sign.
private struct Expansion {
  /// Twelve components are enough: each of six products adds two.
  private var components:
    (
      Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double,
      Double, Double
    ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
  private var count = 0

  /// Adds `a·b`, split exactly into the rounded product and its error.
  mutating func addProduct(_ a: Double, _ b: Double) {
    let product = a * b
    let error = (-product).addingProduct(a, b)
    add(error)
    add(product)
  }

  /// Adds `value` exactly (Grow-Expansion, zero components dropped).
  mutating func add(_ value: Double) {
    withUnsafeMutableBytes(of: &components) { raw in
      let e = raw.bindMemory(to: Double.self)
      var q = value
      var kept = 0
      for i in 0..<count {
        let (sum, error) = Self.twoSum(q, e[i])
        q = sum
        if error != 0 {
          e[kept] = error
          kept += 1
        }
      }
      if q != 0 {
        e[kept] = q
        kept += 1
      }
      count = kept
    }
  }

  /// The sign of the sum: that of its largest component.
  var sign: Int {
    guard count > 0 else { return 0 }
    return withUnsafeBytes(of: components) { raw in
      let last = raw.load(
        fromByteOffset: (count - 1) * MemoryLayout<Double>.stride, as: Double.self)
      return last > 0 ? 1 : last < 0 ? -1 : 0
    }
  }

  /// Knuth's TwoSum: `a + b` exactly as a rounded sum and its error.
  @inline(__always)
  private static func twoSum(_ a: Double, _ b: Double) -> (Double, Double) {
    let sum = a + b
    let bVirtual = sum - a
    let aVirtual = sum - bVirtual
    return (sum, (a - aVirtual) + (b - bVirtual))
  }
}
