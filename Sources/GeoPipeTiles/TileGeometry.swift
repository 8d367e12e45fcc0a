/// A feature's geometry in world units (`[0, 1]`, y down), the shape vector tiles keep.
///
/// `parts` are flat x, y runs: the points of a (multi)point in one part, one part per line,
/// or one per ring with `ringCounts` giving how many rings each polygon has (exterior first).
struct WorldGeometry: Sendable {
  enum Kind: UInt8, Sendable {
    case point = 1
    case line = 2
    case polygon = 3
  }

  var kind: Kind
  var parts: [[Double]]
  var ringCounts: [Int] = []
  var minX = Double.infinity
  var minY = Double.infinity
  var maxX = -Double.infinity
  var maxY = -Double.infinity

  init(kind: Kind, parts: [[Double]], ringCounts: [Int] = []) {
    self.kind = kind
    self.parts = parts
    self.ringCounts = ringCounts
    for part in parts {
      var k = 0
      while k + 1 < part.count {
        minX = min(minX, part[k])
        maxX = max(maxX, part[k])
        minY = min(minY, part[k + 1])
        maxY = max(maxY, part[k + 1])
        k += 2
      }
    }
  }
}

/// Turns world geometry into one tile's MVT geometry commands (MVT 2.1 §4.3): moved into the
/// tile's coordinates, clipped to the tile plus a buffer, simplified, rounded to integers.
enum TileGeometryEncoder {
  /// The command integers of `geometry` in tile (z, x, y) with `extent` units across, or nil
  /// when nothing of it is left in the tile.
  static func encode(
    _ geometry: WorldGeometry, z: Int, x: Int, y: Int, extent: Int, buffer: Double,
    tolerance: Double
  ) -> [UInt32]? {
    let scale = Double(extent) * Double(1 << z)
    let ox = Double(x) * Double(extent)
    let oy = Double(y) * Double(extent)
    let low = -buffer
    let high = Double(extent) + buffer
    func local(_ part: [Double]) -> [Double] {
      var out = [Double](repeating: 0, count: part.count)
      var k = 0
      while k + 1 < part.count {
        out[k] = part[k] * scale - ox
        out[k + 1] = part[k + 1] * scale - oy
        k += 2
      }
      return out
    }
    var commands = CommandWriter()
    switch geometry.kind {
    case .point:
      var points: [Int32] = []
      for part in geometry.parts {
        let p = local(part)
        var k = 0
        while k + 1 < p.count {
          if p[k] >= low && p[k] < high && p[k + 1] >= low && p[k + 1] < high {
            points.append(Int32(p[k].rounded()))
            points.append(Int32(p[k + 1].rounded()))
          }
          k += 2
        }
      }
      guard !points.isEmpty else { return nil }
      commands.moveTo(points)
    case .line:
      for part in geometry.parts {
        for piece in clipLine(local(part), low: low, high: high) {
          let simple = simplify(piece, tolerance: tolerance)
          commands.line(quantize(simple))
        }
      }
    case .polygon:
      var index = 0
      for count in geometry.ringCounts {
        var exteriorKept = false
        for r in 0..<count {
          let ring = clipRing(local(geometry.parts[index + r]), low: low, high: high)
          var q = quantize(simplify(ring, tolerance: tolerance, closed: true))
          let area = signedArea(q)
          if area == 0 || (r > 0 && !exteriorKept) { continue }
          // MVT: exterior rings have positive area in tile coordinates (y down), holes negative.
          if (r == 0) != (area > 0) { q = reversed(q) }
          if r == 0 { exteriorKept = true }
          commands.ring(q)
        }
        index += count
      }
    }
    return commands.values.isEmpty ? nil : commands.values
  }

  // MARK: Clipping

  /// The pieces of a line inside the square `[low, high]²` (Liang–Barsky per segment).
  static func clipLine(_ line: [Double], low: Double, high: Double) -> [[Double]] {
    var pieces: [[Double]] = []
    var current: [Double] = []
    var k = 0
    while k + 3 < line.count {
      let (x0, y0, x1, y1) = (line[k], line[k + 1], line[k + 2], line[k + 3])
      k += 2
      guard let (t0, t1) = clipSegment(x0, y0, x1, y1, low: low, high: high) else {
        if !current.isEmpty {
          pieces.append(current)
          current = []
        }
        continue
      }
      let ax = x0 + (x1 - x0) * t0
      let ay = y0 + (y1 - y0) * t0
      let bx = x0 + (x1 - x0) * t1
      let by = y0 + (y1 - y0) * t1
      if current.isEmpty || t0 > 0 {
        if !current.isEmpty { pieces.append(current) }
        current = [ax, ay]
      }
      current.append(bx)
      current.append(by)
      if t1 < 1 {
        pieces.append(current)
        current = []
      }
    }
    if line.count == 2, line[0] >= low, line[0] <= high, line[1] >= low, line[1] <= high {
      current = line
    }
    if !current.isEmpty { pieces.append(current) }
    return pieces
  }

  /// The parameters of the part of a segment inside the square, or nil when none is.
  static func clipSegment(
    _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, low: Double, high: Double
  ) -> (Double, Double)? {
    var t0 = 0.0
    var t1 = 1.0
    let dx = x1 - x0
    let dy = y1 - y0
    for (p, q) in [(-dx, x0 - low), (dx, high - x0), (-dy, y0 - low), (dy, high - y0)] {
      if p == 0 {
        if q < 0 { return nil }
      } else {
        let r = q / p
        if p < 0 {
          if r > t1 { return nil }
          t0 = max(t0, r)
        } else {
          if r < t0 { return nil }
          t1 = min(t1, r)
        }
      }
    }
    return (t0, t1)
  }

  /// A ring clipped to the square `[low, high]²` (Sutherland–Hodgman), without its closing
  /// point.
  static func clipRing(_ ring: [Double], low: Double, high: Double) -> [Double] {
    var points = ring
    if points.count >= 4, points[0] == points[points.count - 2],
      points[1] == points[points.count - 1]
    {
      points.removeLast(2)
    }
    // Edges: x >= low, x <= high, y >= low, y <= high.
    for edge in 0..<4 {
      guard points.count >= 2 else { break }
      let axis = edge / 2
      let isLow = edge % 2 == 0
      let bound = isLow ? low : high
      func inside(_ k: Int) -> Bool {
        isLow ? points[k + axis] >= bound : points[k + axis] <= bound
      }
      var out: [Double] = []
      out.reserveCapacity(points.count + 8)
      let n = points.count / 2
      for i in 0..<n {
        let a = ((i + n - 1) % n) * 2
        let b = i * 2
        let ain = inside(a)
        let bin = inside(b)
        if ain != bin {
          let t = (bound - points[a + axis]) / (points[b + axis] - points[a + axis])
          let ix = points[a] + (points[b] - points[a]) * t
          let iy = points[a + 1] + (points[b + 1] - points[a + 1]) * t
          out.append(axis == 0 ? bound : ix)
          out.append(axis == 1 ? bound : iy)
        }
        if bin {
          out.append(points[b])
          out.append(points[b + 1])
        }
      }
      points = out
    }
    return points
  }

  // MARK: Simplification and rounding

  /// Douglas–Peucker with a tolerance in tile units; `closed` keeps a ring's shape.
  static func simplify(_ line: [Double], tolerance: Double, closed: Bool = false) -> [Double] {
    let n = line.count / 2
    guard tolerance > 0, n > (closed ? 4 : 2) else { return line }
    var keep = [Bool](repeating: false, count: n)
    keep[0] = true
    keep[n - 1] = true
    if closed { keep[n / 2] = true }
    var stack: [(Int, Int)] = closed ? [(0, n / 2), (n / 2, n - 1)] : [(0, n - 1)]
    let squared = tolerance * tolerance
    while let (first, last) = stack.popLast() {
      guard last > first + 1 else { continue }
      var farthest = 0.0
      var index = first
      for i in (first + 1)..<last {
        let d = segmentDistanceSquared(
          line[2 * i], line[2 * i + 1], line[2 * first], line[2 * first + 1], line[2 * last],
          line[2 * last + 1])
        if d > farthest {
          farthest = d
          index = i
        }
      }
      if farthest > squared {
        keep[index] = true
        stack.append((first, index))
        stack.append((index, last))
      }
    }
    var out: [Double] = []
    for i in 0..<n where keep[i] {
      out.append(line[2 * i])
      out.append(line[2 * i + 1])
    }
    return out
  }

  /// Rounds to integers and drops repeated points.
  static func quantize(_ line: [Double]) -> [Int32] {
    var out: [Int32] = []
    out.reserveCapacity(line.count)
    var k = 0
    while k + 1 < line.count {
      let x = Int32(line[k].rounded())
      let y = Int32(line[k + 1].rounded())
      if out.count < 2 || out[out.count - 2] != x || out[out.count - 1] != y {
        out.append(x)
        out.append(y)
      }
      k += 2
    }
    return out
  }

  /// Twice the signed area (shoelace), positive for clockwise rings on screen (y down).
  static func signedArea(_ ring: [Int32]) -> Int64 {
    let n = ring.count / 2
    guard n >= 3 else { return 0 }
    var sum: Int64 = 0
    for i in 0..<n {
      let j = (i + 1) % n
      sum +=
        Int64(ring[2 * i]) * Int64(ring[2 * j + 1]) - Int64(ring[2 * j]) * Int64(ring[2 * i + 1])
    }
    return sum
  }

  static func reversed(_ ring: [Int32]) -> [Int32] {
    var out: [Int32] = []
    out.reserveCapacity(ring.count)
    var k = ring.count - 2
    while k >= 0 {
      out.append(ring[k])
      out.append(ring[k + 1])
      k -= 2
    }
    return out
  }

  static func segmentDistanceSquared(
    _ px: Double, _ py: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double
  ) -> Double {
    var x = ax
    var y = ay
    let dx = bx - ax
    let dy = by - ay
    if dx != 0 || dy != 0 {
      let t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
      if t > 1 {
        x = bx
        y = by
      } else if t > 0 {
        x += dx * t
        y += dy * t
      }
    }
    return (px - x) * (px - x) + (py - y) * (py - y)
  }
}

/// MVT geometry commands (§4.3.1): MoveTo 1, LineTo 2, ClosePath 7, with zigzag deltas from a
/// cursor that carries across parts.
struct CommandWriter {
  var values: [UInt32] = []
  private var cx: Int32 = 0
  private var cy: Int32 = 0

  static func command(_ id: UInt32, _ count: Int) -> UInt32 { id & 7 | UInt32(count) << 3 }

  private mutating func delta(_ x: Int32, _ y: Int32) {
    values.append(ProtobufWriter.zigzag(x &- cx))
    values.append(ProtobufWriter.zigzag(y &- cy))
    cx = x
    cy = y
  }

  /// One MoveTo with every point (a point or multipoint feature).
  mutating func moveTo(_ points: [Int32]) {
    values.append(Self.command(1, points.count / 2))
    var k = 0
    while k + 1 < points.count {
      delta(points[k], points[k + 1])
      k += 2
    }
  }

  /// A line of at least two distinct points.
  mutating func line(_ points: [Int32]) {
    guard points.count >= 4 else { return }
    values.append(Self.command(1, 1))
    delta(points[0], points[1])
    values.append(Self.command(2, points.count / 2 - 1))
    var k = 2
    while k + 1 < points.count {
      delta(points[k], points[k + 1])
      k += 2
    }
  }

  /// A ring of at least three points, without its closing point.
  mutating func ring(_ points: [Int32]) {
    var ring = points
    if ring.count >= 4, ring[0] == ring[ring.count - 2], ring[1] == ring[ring.count - 1] {
      ring.removeLast(2)
    }
    guard ring.count >= 6 else { return }
    line(ring)
    values.append(Self.command(7, 1))
  }
}
