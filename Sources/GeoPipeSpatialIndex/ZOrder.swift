/// Orders points along a Z-order (Morton) curve, so that points near each other in the plane
/// are mostly near each other in the order: a layout that keeps later lookups of nearby points
/// in the same memory.
public enum ZOrder {
  /// The positions of the points, sorted by their place on a Z-order curve through the box
  /// that holds them (a 65,536 × 65,536 grid); points in the same grid cell keep their order.
  public static func order(xs: [Float], ys: [Float]) -> [UInt32] {
    precondition(xs.count == ys.count)
    guard !xs.isEmpty else { return [] }
    var minX = Float.infinity
    var maxX = -Float.infinity
    var minY = Float.infinity
    var maxY = -Float.infinity
    for (x, y) in zip(xs, ys) where x.isFinite && y.isFinite {
      minX = min(minX, x)
      maxX = max(maxX, x)
      minY = min(minY, y)
      maxY = max(maxY, y)
    }
    guard minX <= maxX, minY <= maxY else { return (0..<xs.count).map { UInt32($0) } }
    let scaleX = maxX > minX ? 65535 / (Double(maxX) - Double(minX)) : 0
    let scaleY = maxY > minY ? 65535 / (Double(maxY) - Double(minY)) : 0
    var keys = [UInt64](repeating: 0, count: xs.count)
    for i in xs.indices {
      let x = Double(xs[i]) - Double(minX)
      let y = Double(ys[i]) - Double(minY)
      // NaN and infinities land in cell 0: where they go does not matter, only that they go.
      let cx = x.isFinite ? UInt64(min(max(x * scaleX, 0), 65535)) : 0
      let cy = y.isFinite ? UInt64(min(max(y * scaleY, 0), 65535)) : 0
      keys[i] = spread(cx) | spread(cy) << 1
    }
    return FixedRadiusNeighbours.radixSort(keys: &keys, keyBits: 32)
  }

  /// The 16 low bits of `v` moved to the even bit positions.
  private static func spread(_ v: UInt64) -> UInt64 {
    var v = v & 0xFFFF
    v = (v | v << 8) & 0x00FF_00FF
    v = (v | v << 4) & 0x0F0F_0F0F
    v = (v | v << 2) & 0x3333_3333
    v = (v | v << 1) & 0x5555_5555
    return v
  }
}
