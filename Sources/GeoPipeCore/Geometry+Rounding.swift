extension Geometry {
  /// Rounds every x and y to `decimals` decimal places (0 to 17), as the writers' `--precision`
  /// does; z and m are kept.
  public mutating func round(toDecimals decimals: Int) {
    var scale = 1.0
    for _ in 0..<max(0, min(decimals, 17)) { scale *= 10 }
    transformXY { x, y in
      x = (x * scale).rounded() / scale
      y = (y * scale).rounded() / scale
    }
  }
}
