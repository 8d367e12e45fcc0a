import GeoPipeCore

/// Douglas–Peucker simplification that keeps topology: lines and rings of one geometry never
/// come to cross themselves or each other, and rings keep at least four positions.
///
/// This is the algorithm of JTS's `TopologyPreservingSimplifier` (Martin Davis; Eclipse
/// Distribution License), which GEOS 3.11 ports as `GEOSTopologyPreserveSimplify_r`, written
/// so that it keeps exactly the vertices GEOS 3.11 keeps: the same section order, distance
/// arithmetic, minimum-size rule, "interior intersection" test and orientation predicate
/// (a floating-point filter, then double-double arithmetic). Two things differ and neither
/// changes a result: a section already too far from its chord is not tested for
/// intersections (GEOS tests it and throws the answer away), and segments are found through a
/// uniform grid instead of a quadtree (the test asks whether *any* segment intersects, so the
/// order in which candidates come does not matter).
///
/// Sections are processed in depth-first order with an explicit stack, so no input is too
/// long or too winding for the thread's stack.
public enum TopologyPreservingSimplifier {
  /// The simplified geometry, or nil when a coordinate is not finite (GEOS refuses those).
  ///
  /// `tolerance` is in the coordinates' own units and must not be negative. Points and
  /// positions beyond x and y (z, m) pass through unchanged.
  public static func simplify(_ geometry: Geometry, tolerance: Double) -> Geometry? {
    var lines = LineSet()
    lines.collect(geometry)
    guard lines.allFinite else { return nil }
    guard !lines.starts.isEmpty else { return geometry }
    var simplifier = SectionSimplifier(lines: lines, tolerance: tolerance)
    simplifier.run()
    var next = 0
    return rebuild(geometry, kept: simplifier.kept, next: &next)
  }

  /// The geometry with each line or ring replaced by its kept positions, in collection order.
  private static func rebuild(_ geometry: Geometry, kept: [[Int]], next: inout Int) -> Geometry {
    func line(_ coordinates: CoordinateArray) -> CoordinateArray {
      defer { next += 1 }
      let indices = kept[next]
      guard indices.count != coordinates.count else { return coordinates }
      var out = CoordinateArray(dimension: coordinates.dimension)
      out.reserveCapacity(indices.count)
      for k in indices { out.append(coordinates[k]) }
      return out
    }
    switch geometry {
    case .point, .multiPoint: return geometry
    case .lineString(let c): return .lineString(line(c))
    case .multiLineString(let lines): return .multiLineString(lines.map { line($0) })
    case .polygon(let rings): return .polygon(rings.map { line($0) })
    case .multiPolygon(let polygons): return .multiPolygon(polygons.map { $0.map { line($0) } })
    case .geometryCollection(let members):
      return .geometryCollection(members.map { rebuild($0, kept: kept, next: &next) })
    }
  }
}

/// Every line and ring of a geometry in GEOS's component order (a polygon's shell, then its
/// holes), their x and y in one flat run.
private struct LineSet {
  var xs: [Double] = []
  var ys: [Double] = []
  /// Where each line's first position is in `xs`/`ys`; a line's positions run to the next
  /// line's start.
  var starts: [Int] = []
  /// The fewest positions each line keeps: 4 for a closed line, 2 for an open one.
  var minimumSizes: [Int] = []
  var allFinite = true

  func end(of line: Int) -> Int { line + 1 < starts.count ? starts[line + 1] : xs.count }

  mutating func collect(_ geometry: Geometry) {
    switch geometry {
    case .point, .multiPoint: break
    case .lineString(let c): add(c)
    case .multiLineString(let lines), .polygon(let lines): for line in lines { add(line) }
    case .multiPolygon(let polygons): for rings in polygons { for ring in rings { add(ring) } }
    case .geometryCollection(let members): for member in members { collect(member) }
    }
  }

  private mutating func add(_ line: CoordinateArray) {
    starts.append(xs.count)
    line.forEachXY { x, y in
      xs.append(x)
      ys.append(y)
      if !x.isFinite || !y.isFinite { allFinite = false }
    }
    let n = line.count
    let closed =
      n > 0 && xs[xs.count - n] == xs[xs.count - 1] && ys[ys.count - n] == ys[ys.count - 1]
    minimumSizes.append(closed ? 4 : 2)
  }
}

/// The simplification of all lines of one geometry against shared segment indexes.
private struct SectionSimplifier {
  let lines: LineSet
  let tolerance: Double
  /// Kept position indices of each line, relative to the line's start.
  var kept: [[Int]] = []
  /// Input segments (named by the global index of their first position) still in the input
  /// index: those not replaced by a flattened section.
  var removed: [Bool]
  var grid: SegmentGrid

  init(lines: LineSet, tolerance: Double) {
    self.lines = lines
    self.tolerance = tolerance
    removed = [Bool](repeating: false, count: lines.xs.count)
    grid = SegmentGrid(lines: lines)
  }

  mutating func run() {
    kept.reserveCapacity(lines.starts.count)
    for line in lines.starts.indices {
      kept.append(simplify(line: line))
    }
  }

  /// GEOS's `simplifySection(0, n - 1, 0)` for one line, depth first.
  private mutating func simplify(line: Int) -> [Int] {
    let start = lines.starts[line]
    let count = lines.end(of: line) - start
    // Not a line (GEOS does not accept these); kept as it is.
    guard count > 1 else { return Array(0..<count) }
    let minimumSize = lines.minimumSizes[line]
    // Result segments as (first, last) local indices; their count decides the result size.
    var resultStarts: [Int] = []
    var resultEnd = 0
    var stack: [(i: Int, j: Int, depth: Int)] = [(0, count - 1, 0)]
    while let section = stack.popLast() {
      let (i, j) = (section.i, section.j)
      let depth = section.depth + 1
      if i + 1 == j {
        resultStarts.append(i)
        resultEnd = j
        continue
      }
      var valid = true
      let resultSize = resultStarts.isEmpty ? 0 : resultStarts.count + 1
      if resultSize < minimumSize && depth + 1 < minimumSize { valid = false }
      let (furthest, distance) = Planar.furthestPoint(
        xs: lines.xs, ys: lines.ys, from: start + i, to: start + j)
      if distance > tolerance { valid = false }
      if valid && hasBadIntersection(from: start + i, to: start + j) { valid = false }
      if valid {
        for k in (start + i)..<(start + j) { removed[k] = true }
        grid.addOutput(
          lines.xs[start + i], lines.ys[start + i], lines.xs[start + j], lines.ys[start + j])
        resultStarts.append(i)
        resultEnd = j
        continue
      }
      let f = furthest - start
      stack.append((f, j, depth))
      stack.append((i, f, depth))
    }
    if resultStarts.isEmpty { return [] }
    resultStarts.append(resultEnd)
    return resultStarts
  }

  /// Whether the chord from global position `i` to `j` has an interior intersection with a
  /// flattened chord already kept, or with an input segment outside the section it replaces.
  private mutating func hasBadIntersection(from i: Int, to j: Int) -> Bool {
    let ax = lines.xs[i]
    let ay = lines.ys[i]
    let bx = lines.xs[j]
    let by = lines.ys[j]
    let xs = lines.xs
    let ys = lines.ys
    let removed = self.removed
    return grid.anySegment(
      nearX: ax, ay, bx, by,
      output: { px, py, qx, qy in
        Planar.hasInteriorIntersection(px, py, qx, qy, ax, ay, bx, by)
      },
      input: { s in
        guard !removed[s], s < i || s >= j else { return false }
        return Planar.hasInteriorIntersection(xs[s], ys[s], xs[s + 1], ys[s + 1], ax, ay, bx, by)
      })
  }
}

/// A uniform grid over a geometry's segments: the input segments (fixed, in compressed rows)
/// and the flattened chords added as simplification goes on (linked lists per cell).
private struct SegmentGrid {
  private let minX: Double
  private let minY: Double
  private let inverseCell: Double
  private let columns: Int
  private let rows: Int
  private var inputStart: [Int32]
  private var inputItems: [Int32]
  private var outputHead: [Int32]
  private var outputNext: [Int32] = []
  /// The chord each list node names (parallel to `outputNext`).
  private var outputIDs: [Int32] = []
  private var outputCoordinates: [Double] = []
  /// Query stamps, so that a segment in several cells is tested once per query.
  private var inputStamp: [UInt32]
  private var outputStamp: [UInt32] = []
  private var query: UInt32 = 0

  init(lines: LineSet) {
    var minX = Double.infinity
    var minY = Double.infinity
    var maxX = -Double.infinity
    var maxY = -Double.infinity
    for k in lines.xs.indices {
      minX = min(minX, lines.xs[k])
      maxX = max(maxX, lines.xs[k])
      minY = min(minY, lines.ys[k])
      maxY = max(maxY, lines.ys[k])
    }
    // About one cell per segment, square cells.
    let segments = max(1, lines.xs.count - lines.starts.count)
    let width = max(maxX - minX, 0)
    let height = max(maxY - minY, 0)
    var cell = max(width, height) / Double(min(segments, 4096))
    if width > 0 && height > 0 {
      cell = max((width * height / Double(segments)).squareRoot(), max(width, height) / 4096)
    }
    if !(cell > 0) || !cell.isFinite { cell = 1 }
    self.minX = minX
    self.minY = minY
    inverseCell = 1 / cell
    let columns = min(4096, Int(width / cell) + 1)
    let rows = min(4096, Int(height / cell) + 1)
    self.columns = columns
    self.rows = rows
    let cells = columns * rows

    // Input segments in compressed rows: count, prefix sums, fill.
    var counts = [Int32](repeating: 0, count: cells + 1)
    let xs = lines.xs
    let ys = lines.ys
    var ranges: [(Int, Int, Int, Int)] = []
    func forEachSegment(_ body: (Int) -> Void) {
      for line in lines.starts.indices {
        let end = lines.end(of: line)
        var s = lines.starts[line]
        while s + 1 < end {
          body(s)
          s += 1
        }
      }
    }
    var order: [Int32] = []
    forEachSegment { s in
      let r = Self.range(xs[s], ys[s], xs[s + 1], ys[s + 1], minX, minY, 1 / cell, columns, rows)
      ranges.append(r)
      order.append(Int32(s))
      for row in r.2...r.3 {
        for column in r.0...r.1 { counts[row * columns + column + 1] += 1 }
      }
    }
    for c in 0..<cells { counts[c + 1] += counts[c] }
    var fill = counts
    var items = [Int32](repeating: 0, count: Int(counts[cells]))
    for (n, r) in ranges.enumerated() {
      for row in r.2...r.3 {
        for column in r.0...r.1 {
          let c = row * columns + column
          items[Int(fill[c])] = order[n]
          fill[c] += 1
        }
      }
    }
    inputStart = counts
    inputItems = items
    outputHead = [Int32](repeating: -1, count: cells)
    inputStamp = [UInt32](repeating: 0, count: lines.xs.count)
  }

  /// The cells (first column, last column, first row, last row) a segment's box touches.
  private static func range(
    _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ minX: Double, _ minY: Double,
    _ inverseCell: Double, _ columns: Int, _ rows: Int
  ) -> (Int, Int, Int, Int) {
    func index(_ v: Double, _ origin: Double, _ limit: Int) -> Int {
      let t = (v - origin) * inverseCell
      return t <= 0 ? 0 : t >= Double(limit - 1) ? limit - 1 : Int(t)
    }
    return (
      index(min(ax, bx), minX, columns), index(max(ax, bx), minX, columns),
      index(min(ay, by), minY, rows), index(max(ay, by), minY, rows)
    )
  }

  mutating func addOutput(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) {
    let id = Int32(outputStamp.count)
    outputCoordinates.append(ax)
    outputCoordinates.append(ay)
    outputCoordinates.append(bx)
    outputCoordinates.append(by)
    outputStamp.append(0)
    let r = Self.range(ax, ay, bx, by, minX, minY, inverseCell, columns, rows)
    for row in r.2...r.3 {
      for column in r.0...r.1 {
        let c = row * columns + column
        outputNext.append(outputHead[c])
        outputIDs.append(id)
        outputHead[c] = Int32(outputNext.count - 1)
      }
    }
  }

  /// Whether `output` (given a chord's endpoints) or `input` (given a segment's index) holds
  /// for any segment whose cells the box of a–b touches.
  mutating func anySegment(
    nearX ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
    output: (Double, Double, Double, Double) -> Bool, input: (Int) -> Bool
  ) -> Bool {
    query &+= 1
    if query == 0 {
      for k in inputStamp.indices { inputStamp[k] = 0 }
      for k in outputStamp.indices { outputStamp[k] = 0 }
      query = 1
    }
    let r = Self.range(ax, ay, bx, by, minX, minY, inverseCell, columns, rows)
    for row in r.2...r.3 {
      for column in r.0...r.1 {
        let c = row * columns + column
        var node = outputHead[c]
        while node >= 0 {
          let id = Int(outputIDs[Int(node)])
          if outputStamp[id] != query {
            outputStamp[id] = query
            let o = 4 * id
            if output(
              outputCoordinates[o], outputCoordinates[o + 1], outputCoordinates[o + 2],
              outputCoordinates[o + 3])
            {
              return true
            }
          }
          node = outputNext[Int(node)]
        }
        for n in Int(inputStart[c])..<Int(inputStart[c + 1]) {
          let s = Int(inputItems[n])
          if inputStamp[s] != query {
            inputStamp[s] = query
            if input(s) { return true }
          }
        }
      }
    }
    return false
  }
}

/// Planar predicates as GEOS 3.11 computes them.
public enum Planar {
  /// Distance from p to the segment a–b (GEOS `Distance::pointToSegment`).
  static func pointToSegment(
    _ px: Double, _ py: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double
  ) -> Double {
    if ax == bx && ay == by { return hypot(px - ax, py - ay) }
    let len2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay)
    let r = ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / len2
    if r <= 0 { return hypot(px - ax, py - ay) }
    if r >= 1 { return hypot(px - bx, py - by) }
    let s = ((ay - py) * (bx - ax) - (ax - px) * (by - ay)) / len2
    return abs(s) * len2.squareRoot()
  }

  /// The position strictly between `i` and `j` furthest from the chord i–j (the first of
  /// equals, as GEOS's Douglas–Peucker and topology-preserving simplifiers take it), and its
  /// distance; `i` and -1 when there is none.
  static func furthestPoint(xs: [Double], ys: [Double], from i: Int, to j: Int) -> (Int, Double) {
    var best = -1.0
    var index = i
    var k = i + 1
    while k < j {
      let d = pointToSegment(xs[k], ys[k], xs[i], ys[i], xs[j], ys[j])
      if d > best {
        best = d
        index = k
      }
      k += 1
    }
    return (index, best)
  }

  /// GEOS's `Coordinate::distance`: the square root of the summed squares (not `hypot`).
  private static func hypot(_ dx: Double, _ dy: Double) -> Double {
    (dx * dx + dy * dy).squareRoot()
  }

  /// Whether segments p1–p2 and q1–q2 meet at a point interior to either (GEOS's
  /// `LineIntersector::computeIntersection` then `isInteriorIntersection()`): touching only at
  /// a shared endpoint is not interior; crossing, touching an interior point, or overlapping
  /// is.
  static func hasInteriorIntersection(
    _ p1x: Double, _ p1y: Double, _ p2x: Double, _ p2y: Double,
    _ q1x: Double, _ q1y: Double, _ q2x: Double, _ q2y: Double
  ) -> Bool {
    // Envelopes (closed intervals).
    if min(p1x, p2x) > max(q1x, q2x) || max(p1x, p2x) < min(q1x, q2x) { return false }
    if min(p1y, p2y) > max(q1y, q2y) || max(p1y, p2y) < min(q1y, q2y) { return false }
    let pq1 = orientation(p1x, p1y, p2x, p2y, q1x, q1y)
    let pq2 = orientation(p1x, p1y, p2x, p2y, q2x, q2y)
    if (pq1 > 0 && pq2 > 0) || (pq1 < 0 && pq2 < 0) { return false }
    let qp1 = orientation(q1x, q1y, q2x, q2y, p1x, p1y)
    let qp2 = orientation(q1x, q1y, q2x, q2y, p2x, p2y)
    if (qp1 > 0 && qp2 > 0) || (qp1 < 0 && qp2 < 0) { return false }
    let p1q1 = p1x == q1x && p1y == q1y
    let p1q2 = p1x == q2x && p1y == q2y
    let p2q1 = p2x == q1x && p2y == q1y
    let p2q2 = p2x == q2x && p2y == q2y
    if pq1 == 0 && pq2 == 0 && qp1 == 0 && qp2 == 0 {
      return collinearIsInterior(
        p1x, p1y, p2x, p2y, q1x, q1y, q2x, q2y, p1q1: p1q1, p1q2: p1q2, p2q1: p2q1, p2q2: p2q2)
    }
    if pq1 == 0 || pq2 == 0 || qp1 == 0 || qp2 == 0 {
      // The intersection is an endpoint; interior unless it is an endpoint of both.
      return !(p1q1 || p1q2 || p2q1 || p2q2)
    }
    // A proper crossing: interior to both.
    return true
  }

  /// GEOS's `computeCollinearIntersection` followed by the interior test: the intersection
  /// points are endpoints; any that is not an endpoint of both segments is interior.
  private static func collinearIsInterior(
    _ p1x: Double, _ p1y: Double, _ p2x: Double, _ p2y: Double,
    _ q1x: Double, _ q1y: Double, _ q2x: Double, _ q2y: Double,
    p1q1: Bool, p1q2: Bool, p2q1: Bool, p2q2: Bool
  ) -> Bool {
    func within(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ x: Double, _ y: Double)
      -> Bool
    {
      x >= min(ax, bx) && x <= max(ax, bx) && y >= min(ay, by) && y <= max(ay, by)
    }
    let q1inP = within(p1x, p1y, p2x, p2y, q1x, q1y)
    let q2inP = within(p1x, p1y, p2x, p2y, q2x, q2y)
    let p1inQ = within(q1x, q1y, q2x, q2y, p1x, p1y)
    let p2inQ = within(q1x, q1y, q2x, q2y, p2x, p2y)
    // Whether q1, q2, p1, p2 is an endpoint of both segments.
    let q1Both = p1q1 || p2q1
    let q2Both = p1q2 || p2q2
    let p1Both = p1q1 || p1q2
    let p2Both = p2q1 || p2q2
    if q1inP && q2inP { return !(q1Both && q2Both) }
    if p1inQ && p2inQ { return !(p1Both && p2Both) }
    if q1inP && p1inQ { return p1q1 && !q2inP && !p2inQ ? !q1Both : !(q1Both && p1Both) }
    if q1inP && p2inQ { return p2q1 && !q2inP && !p1inQ ? !q1Both : !(q1Both && p2Both) }
    if q2inP && p1inQ { return p1q2 && !q1inP && !p2inQ ? !q2Both : !(q2Both && p1Both) }
    if q2inP && p2inQ { return p2q2 && !q1inP && !p1inQ ? !q2Both : !(q2Both && p2Both) }
    return false
  }

  /// The side of q relative to the directed line p1–p2: 1 left, -1 right, 0 on it
  /// (GEOS's `CGAlgorithmsDD::orientationIndex`: a floating-point filter, then double-double).
  public static func orientation(
    _ p1x: Double, _ p1y: Double, _ p2x: Double, _ p2y: Double, _ qx: Double, _ qy: Double
  ) -> Int {
    let detLeft = (p1x - qx) * (p2y - qy)
    let detRight = (p1y - qy) * (p2x - qx)
    let det = detLeft - detRight
    let detSum: Double
    if detLeft > 0 {
      if detRight <= 0 { return sign(det) }
      detSum = detLeft + detRight
    } else if detLeft < 0 {
      if detRight >= 0 { return sign(det) }
      detSum = -detLeft - detRight
    } else {
      return sign(det)
    }
    let errorBound = 1e-15 * detSum
    if det >= errorBound || -det >= errorBound { return sign(det) }
    let dx1 = DoubleDouble(p2x) + DoubleDouble(-p1x)
    let dy1 = DoubleDouble(p2y) + DoubleDouble(-p1y)
    let dx2 = DoubleDouble(qx) + DoubleDouble(-p2x)
    let dy2 = DoubleDouble(qy) + DoubleDouble(-p2y)
    let d = dx1 * dy2 - dy1 * dx2
    if d.hi < 0 || (d.hi == 0 && d.lo < 0) { return -1 }
    if d.hi > 0 || (d.hi == 0 && d.lo > 0) { return 1 }
    return 0
  }

  private static func sign(_ x: Double) -> Int { x < 0 ? -1 : x > 0 ? 1 : 0 }
}

/// Double-double arithmetic as JTS's and GEOS's `DD` does it (Dekker's and Knuth's
/// error-free sums and products, in their exact order of operations).
struct DoubleDouble {
  var hi: Double
  var lo: Double

  init(_ value: Double) {
    hi = value
    lo = 0
  }

  init(hi: Double, lo: Double) {
    self.hi = hi
    self.lo = lo
  }

  static func + (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
    let S = a.hi + b.hi
    let T = a.lo + b.lo
    var e = S - a.hi
    let f = T - a.lo
    var s = S - e
    var t = T - f
    s = (b.hi - e) + (a.hi - s)
    t = (b.lo - f) + (a.lo - t)
    e = s + T
    let H = S + e
    let h = e + (S - H)
    e = t + h
    let zhi = H + e
    return DoubleDouble(hi: zhi, lo: e + (H - zhi))
  }

  static func - (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
    a + DoubleDouble(hi: -b.hi, lo: -b.lo)
  }

  static func * (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
    let split = 134_217_729.0  // 2^27 + 1
    let (yhi, ylo) = (b.hi, b.lo)
    var C = split * a.hi
    var hx = C - a.hi
    var c = split * yhi
    hx = C - hx
    let tx = a.hi - hx
    var hy = c - yhi
    C = a.hi * yhi
    hy = c - hy
    let ty = yhi - hy
    c = ((((hx * hy - C) + hx * ty) + tx * hy) + tx * ty) + (a.hi * ylo + a.lo * yhi)
    let zhi = C + c
    hx = C - zhi
    let zlo = c + hx
    return DoubleDouble(hi: zhi, lo: zlo)
  }
}
