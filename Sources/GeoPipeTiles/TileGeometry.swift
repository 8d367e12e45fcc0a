import GeoPipeCore

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
/// tile's coordinates, clipped, simplified, rounded to integers; polygons made valid
/// (§4.3.4.4).
enum TileGeometryEncoder {
  /// The command integers of `geometry` in tile (z, x, y) with `extent` units across, or nil
  /// when nothing of it is left in the tile.
  ///
  /// Lines and polygons come as pieces cut with a wider buffer (``TileClipper``) and are
  /// clipped here to the tile plus `buffer`, polygons so that they stay valid; points
  /// are kept when they lie in the tile or its buffer, also across the antimeridian.
  static func encode(
    _ geometry: WorldGeometry, z: Int, x: Int, y: Int, extent: Int, buffer: Double,
    tolerance: Double, repairer: PolygonRepairer
  ) throws -> [UInt32]? {
    let tile = BBox(
      west: -buffer, south: -buffer, east: Double(extent) + buffer,
      north: Double(extent) + buffer)
    let scale = Double(extent) * Double(1 << z)
    let ox = Double(x) * Double(extent)
    let oy = Double(y) * Double(extent)
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
        var k = 0
        while k + 1 < part.count {
          appendPoint(
            x: part[k], y: part[k + 1], z: z, tileX: x, tileY: y, extent: extent, buffer: buffer,
            to: &points)
          k += 2
        }
      }
      guard !points.isEmpty else { return nil }
      commands.moveTo(points)
    case .line:
      for part in geometry.parts {
        for piece in TileClipper.clipLine(local(part), to: tile) {
          commands.line(quantize(simplify(piece, tolerance: tolerance)))
        }
      }
    case .polygon:
      var polygons: [[[Double]]] = []
      var index = 0
      for count in geometry.ringCounts {
        polygons.append((index..<index + count).map { local(geometry.parts[$0]) })
        index += count
      }
      let clipped = RectangleClipper.clip(polygons, to: tile)
      let simplified = clipped.map { $0.map { simplify($0, tolerance: tolerance, closed: true) } }
      var rounded: [[[Int32]]] = []
      for polygon in simplified {
        var rings: [[Int32]] = []
        for (r, ring) in polygon.enumerated() {
          let q = quantize(ring)
          if signedArea(q) == 0 || (r > 0 && rings.isEmpty) { continue }
          rings.append(q)
        }
        if !rings.isEmpty { rounded.append(rings) }
      }
      rounded = repairer.repaired(rounded, simplified: simplified)
      for polygon in rounded {
        for (r, ring) in polygon.enumerated() { commands.ring(oriented(ring, exterior: r == 0)) }
      }
    }
    return commands.values.isEmpty ? nil : commands.values
  }

  /// The commands of a polygon that covers the whole tile and its buffer.
  static func box(extent: Int, buffer: Int) -> [UInt32] {
    let low = Int32(-buffer)
    let high = Int32(extent + buffer)
    var commands = CommandWriter()
    commands.ring([low, low, high, low, high, high, low, high])
    return commands.values
  }

  /// Adds the tile coordinates of a point (in world units) if it lies in the tile (z, x, y)
  /// or its buffer; also the copies one world to the east and west, so that a point near the
  /// antimeridian shows in the buffers of the tiles on the other side, as tippecanoe does.
  static func appendPoint(
    x px: Double, y py: Double, z: Int, tileX: Int, tileY: Int, extent: Int, buffer: Double,
    to points: inout [Int32]
  ) {
    let span = Double(extent) * Double(1 << z)
    let e = Double(extent)
    let ly = py * span - Double(tileY) * e
    guard ly >= -buffer, ly < e + buffer else { return }
    let lx = px * span - Double(tileX) * e
    // The point itself, then its copies a world east and a world west.
    for copy in 0..<3 {
      let shifted = copy == 0 ? lx : copy == 1 ? lx + span : lx - span
      guard shifted >= -buffer && shifted < e + buffer else { continue }
      points.append(Int32(shifted.rounded()))
      points.append(Int32(ly.rounded()))
    }
  }

  /// A ring wound as MVT wants it: exteriors with positive area in tile coordinates (y down,
  /// so clockwise on screen), holes negative.
  static func oriented(_ ring: [Int32], exterior: Bool) -> [Int32] {
    (signedArea(ring) > 0) == exterior ? ring : reversed(ring)
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

  /// A flat x, y run with its points in the opposite order.
  static func reversed<Number>(_ ring: [Number]) -> [Number] {
    var out: [Number] = []
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
