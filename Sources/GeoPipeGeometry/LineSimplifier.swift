import GeoPipeCore

/// Douglas–Peucker simplification of lines, keeping exactly the vertices GEOS 3.11's
/// `GEOSSimplify_r` keeps for LineStrings and MultiLineStrings (the same chord-distance
/// arithmetic, first of equally distant vertices, endpoints always kept).
///
/// Polygons are not handled here: GEOS repairs Douglas–Peucker's polygons (a `buffer(0)` of an
/// invalid result), which only GEOS itself reproduces.
public enum LineSimplifier {
  /// The simplified lines, or nil for any geometry that is not a LineString or
  /// MultiLineString, or that has a coordinate that is not finite.
  ///
  /// `tolerance` is in the coordinates' own units. A one-part MultiLineString stays one.
  public static func douglasPeucker(_ geometry: Geometry, tolerance: Double) -> Geometry? {
    switch geometry {
    case .lineString(let line):
      return simplified(line, tolerance).map { .lineString($0) }
    case .multiLineString(let lines):
      var out: [CoordinateArray] = []
      out.reserveCapacity(lines.count)
      for line in lines {
        guard let kept = simplified(line, tolerance) else { return nil }
        if !kept.isEmpty { out.append(kept) }
      }
      return .multiLineString(out)
    default:
      return nil
    }
  }

  /// One line's kept positions (all dimensions), or nil when a coordinate is not finite.
  private static func simplified(_ line: CoordinateArray, _ tolerance: Double) -> CoordinateArray? {
    let n = line.count
    var xs = [Double](repeating: 0, count: n)
    var ys = [Double](repeating: 0, count: n)
    var k = 0
    var finite = true
    line.forEachXY { x, y in
      xs[k] = x
      ys[k] = y
      if !x.isFinite || !y.isFinite { finite = false }
      k += 1
    }
    guard finite else { return nil }
    guard n > 2 else { return line }
    var keep = [Bool](repeating: true, count: n)
    var stack = [(0, n - 1)]
    while let (i, j) = stack.popLast() {
      guard i + 1 < j else { continue }
      let (index, best) = Planar.furthestPoint(xs: xs, ys: ys, from: i, to: j)
      if best <= tolerance {
        for k in (i + 1)..<j { keep[k] = false }
      } else {
        stack.append((index, j))
        stack.append((i, index))
      }
    }
    var out = CoordinateArray(dimension: line.dimension)
    out.reserveCapacity(keep.lazy.filter { $0 }.count)
    for k in 0..<n where keep[k] { out.append(line[k]) }
    return out
  }
}
