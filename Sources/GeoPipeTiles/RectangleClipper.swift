import GeoPipeCore

/// Clips polygons to an axis-aligned box so that the result is exactly the polygon's part
/// inside the box, as simple rings: each ring is cut into the chains that lie inside the box,
/// and the chains are joined again along the box's edges (Weiler–Atherton, specialised to a
/// rectangle as GEOS's `RectangleIntersection` is).
///
/// Sutherland–Hodgman, clipping a ring against one edge after another, encloses the right
/// region but joins the parts of a concave ring by zero-width runs along the box's edges; such
/// rings are invalid, and GEOS's rectangle clip, handed them at the tile's last cut, answered
/// with the complement (a ring around the tile's corners enclosing the sea, not the country).
///
/// Rings are flat x, y runs, closed or not; results come without their closing point,
/// exteriors with positive shoelace area and holes with negative, whatever the input's
/// winding. For a valid polygon the result is valid.
enum RectangleClipper {
  /// The parts of `polygons` (each a list of rings, exterior first) inside `box`.
  static func clip(_ polygons: [[[Double]]], to box: BBox) -> [[[Double]]] {
    var inside = true
    for ring in polygons.lazy.compactMap(\.first) {
      var k = 0
      while inside && k + 1 < ring.count {
        inside = box.contains(x: ring[k], y: ring[k + 1])
        k += 2
      }
    }
    // A part of a piece that lies wholly inside the box is kept as it is.
    if inside { return polygons }
    return polygons.flatMap { clip($0[...], to: box) }
  }

  /// The parts of `polygon` (rings, exterior first) inside `box`, each a list of rings.
  static func clip(_ polygon: ArraySlice<[Double]>, to box: BBox) -> [[[Double]]] {
    guard !polygon.isEmpty else { return [] }
    let frame = Frame(box)
    var chains: [Chain] = []
    var insideHoles: [[Double]] = []
    var exteriorInside: [Double]?
    var exteriorCoversBox = false
    for (index, raw) in polygon.enumerated() {
      let isExterior = index == 0
      guard var ring = Self.openRing(raw) else {
        if isExterior { return [] }
        continue
      }
      let area = Self.signedArea(ring)
      if area == 0 {
        if isExterior { return [] }
        continue
      }
      if (area > 0) != isExterior { ring = TileGeometryEncoder.reversed(ring) }
      switch frame.cut(ring, into: &chains) {
      case .inside:
        if isExterior { exteriorInside = ring } else { insideHoles.append(ring) }
      case .outside(let coversBox):
        // A hole around the whole box leaves nothing of the polygon in it.
        if coversBox && !isExterior { return [] }
        if isExterior {
          if !coversBox { return [] }
          exteriorCoversBox = true
        }
      case .crossing:
        break
      }
    }
    var exteriors: [[Double]]
    if !chains.isEmpty {
      exteriors = frame.join(chains)
    } else if let ring = exteriorInside {
      exteriors = [ring]
    } else if exteriorCoversBox {
      exteriors = [frame.boxRing]
    } else {
      exteriors = []
    }
    var polygons = exteriors.map { [$0] }
    for hole in insideHoles {
      if polygons.count == 1 {
        polygons[0].append(hole)
        continue
      }
      if let k = polygons.firstIndex(where: { Self.ring($0[0], contains: hole) }) {
        polygons[k].append(hole)
      }
    }
    return polygons
  }

  // MARK: Rings

  /// The ring without a repeated closing point or repeated neighbours; nil below three points.
  static func openRing(_ ring: [Double]) -> [Double]? {
    var out: [Double] = []
    out.reserveCapacity(ring.count)
    var k = 0
    while k + 1 < ring.count {
      let n = out.count
      if n < 2 || out[n - 2] != ring[k] || out[n - 1] != ring[k + 1] {
        out.append(ring[k])
        out.append(ring[k + 1])
      }
      k += 2
    }
    while out.count >= 4, out[0] == out[out.count - 2], out[1] == out[out.count - 1] {
      out.removeLast(2)
    }
    return out.count >= 6 ? out : nil
  }

  /// Twice the signed area (shoelace), measured from the first point to keep products small.
  static func signedArea(_ ring: [Double]) -> Double {
    let n = ring.count / 2
    guard n >= 3 else { return 0 }
    let ox = ring[0]
    let oy = ring[1]
    var sum = 0.0
    for i in 1..<(n - 1) {
      let ax = ring[2 * i] - ox
      let ay = ring[2 * i + 1] - oy
      let bx = ring[2 * i + 2] - ox
      let by = ring[2 * i + 3] - oy
      sum += ax * by - bx * ay
    }
    return sum
  }

  /// Whether the point lies inside the ring: 1 inside, -1 outside, 0 on its boundary
  /// (crossing number, with the boundary tested exactly).
  static func locate(x: Double, y: Double, in ring: [Double]) -> Int {
    let n = ring.count / 2
    var inside = false
    for i in 0..<n {
      let j = (i + n - 1) % n
      let xi = ring[2 * i]
      let yi = ring[2 * i + 1]
      let xj = ring[2 * j]
      let yj = ring[2 * j + 1]
      let cross = (xj - xi) * (y - yi) - (yj - yi) * (x - xi)
      if cross == 0 && min(xi, xj) <= x && x <= max(xi, xj) && min(yi, yj) <= y
        && y <= max(yi, yj)
      {
        return 0
      }
      if (yi > y) != (yj > y) {
        let xCross = xi + (y - yi) * (xj - xi) / (yj - yi)
        if x < xCross { inside.toggle() }
      }
    }
    return inside ? 1 : -1
  }

  /// Whether `inner` (a ring that does not cross `outer`) lies inside `outer`: decided by the
  /// first of its points not on `outer`.
  static func ring(_ outer: [Double], contains inner: [Double]) -> Bool {
    var k = 0
    while k + 1 < inner.count {
      let place = locate(x: inner[k], y: inner[k + 1], in: outer)
      if place != 0 { return place > 0 }
      k += 2
    }
    return true
  }
}

/// A ring's run inside the box, from the point where it enters to the point where it leaves,
/// both on the box's edge.
struct Chain {
  var points: [Double]
  /// Where the chain enters and leaves, as distances along the box's edge (``Frame/position``).
  var entry: Double
  var exit: Double
}

/// How a ring lies against the box.
enum RingPlacement {
  /// Every point in the box (edges included): the ring is kept whole.
  case inside
  /// Nothing of it inside the box; `coversBox` when it goes round the box.
  case outside(coversBox: Bool)
  /// It enters the box: its chains were added.
  case crossing
}

/// The box, and positions along its edge counted anticlockwise (in x-right, y-up terms) from
/// the (west, south) corner, so that walking on from where a ring leaves keeps the box's
/// inside on the left, as it is for every ring of a polygon wound exteriors positive.
struct Frame {
  let box: BBox
  let width: Double
  let height: Double

  /// The corners in the order of their positions along the edge.
  let corners: [(position: Double, x: Double, y: Double)]

  init(_ box: BBox) {
    self.box = box
    width = box.east - box.west
    height = box.north - box.south
    corners = [
      (0, box.west, box.south), (width, box.east, box.south),
      (width + height, box.east, box.north), (2 * width + height, box.west, box.north),
    ]
  }

  var perimeter: Double { 2 * (width + height) }

  /// The box as a ring, wound positive.
  var boxRing: [Double] {
    [box.west, box.south, box.east, box.south, box.east, box.north, box.west, box.north]
  }

  /// The distance along the edge of a point that lies on it.
  func position(x: Double, y: Double) -> Double {
    if y == box.south { return x - box.west }
    if x == box.east { return width + (y - box.south) }
    if y == box.north { return width + height + (box.east - x) }
    return 2 * width + height + (box.north - y)
  }

  /// Whether the point lies in the box, edges included.
  func contains(_ x: Double, _ y: Double) -> Bool {
    x >= box.west && x <= box.east && y >= box.south && y <= box.north
  }

  /// The point at `t` along a segment, put exactly onto the box's nearest edge when it is a
  /// crossing (0 < t < 1), since positions along the edge are read from exact coordinates.
  func point(
    _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, at t: Double
  ) -> (Double, Double) {
    if t <= 0 { return (x0, y0) }
    if t >= 1 { return (x1, y1) }
    var x = min(max(x0 + (x1 - x0) * t, box.west), box.east)
    var y = min(max(y0 + (y1 - y0) * t, box.south), box.north)
    let west = x - box.west
    let east = box.east - x
    let south = y - box.south
    let north = box.north - y
    if min(west, east) <= min(south, north) {
      x = west <= east ? box.west : box.east
    } else {
      y = south <= north ? box.south : box.north
    }
    return (x, y)
  }

  /// Adds the ring's chains (runs inside the box with some length off the edge) and says how
  /// the ring lies.
  func cut(_ ring: [Double], into chains: inout [Chain]) -> RingPlacement {
    let n = ring.count / 2
    // Start from a point outside, so that every chain starts where the ring enters.
    var start = -1
    for i in 0..<n where !contains(ring[2 * i], ring[2 * i + 1]) {
      start = i
      break
    }
    guard start >= 0 else { return .inside }
    var current: [Double] = []
    var found = false
    for step in 0..<n {
      let a = (start + step) % n
      let b = (a + 1) % n
      let x0 = ring[2 * a]
      let y0 = ring[2 * a + 1]
      let x1 = ring[2 * b]
      let y1 = ring[2 * b + 1]
      guard let (t0, t1) = box.segmentParameters(x0: x0, y0: y0, x1: x1, y1: y1) else {
        continue
      }
      if current.isEmpty {
        let (ex, ey) = point(x0, y0, x1, y1, at: t0)
        current = [ex, ey]
      }
      let (qx, qy) = point(x0, y0, x1, y1, at: t1)
      if current[current.count - 2] != qx || current[current.count - 1] != qy {
        current.append(qx)
        current.append(qy)
      }
      if t1 < 1 {
        if add(current, to: &chains) { found = true }
        current = []
      }
    }
    if found { return .crossing }
    let cx = (box.west + box.east) / 2
    let cy = (box.south + box.north) / 2
    return .outside(coversBox: RectangleClipper.locate(x: cx, y: cy, in: ring) > 0)
  }

  /// Adds a run as a chain unless it has no length, or runs only along the box's edges (a
  /// ring touching the box from outside).
  private func add(_ run: [Double], to chains: inout [Chain]) -> Bool {
    guard run.count >= 4 else { return false }
    var alongEdge = true
    var k = 0
    while alongEdge && k + 3 < run.count {
      let (x0, y0, x1, y1) = (run[k], run[k + 1], run[k + 2], run[k + 3])
      alongEdge =
        (x0 == box.west && x1 == box.west) || (x0 == box.east && x1 == box.east)
        || (y0 == box.south && y1 == box.south) || (y0 == box.north && y1 == box.north)
      k += 2
    }
    if alongEdge { return false }
    chains.append(
      Chain(
        points: run, entry: position(x: run[0], y: run[1]),
        exit: position(x: run[run.count - 2], y: run[run.count - 1])))
    return true
  }

  /// Joins chains into rings: from where a chain leaves, along the edge anticlockwise (taking
  /// the corners passed) to the nearest place where a chain enters.
  func join(_ chains: [Chain]) -> [[Double]] {
    let p = perimeter
    let order = chains.indices.sorted { chains[$0].entry < chains[$1].entry }
    let entries = order.map { chains[$0].entry }
    /// The chain entering first at or after `position`, going round.
    func next(after position: Double) -> Int {
      var low = 0
      var high = entries.count
      while low < high {
        let mid = (low + high) / 2
        if entries[mid] < position { low = mid + 1 } else { high = mid }
      }
      return order[low == entries.count ? 0 : low]
    }
    var used = [Bool](repeating: false, count: chains.count)
    var rings: [[Double]] = []
    for first in chains.indices where !used[first] {
      var ring: [Double] = []
      var c = first
      while !used[c] {
        used[c] = true
        ring += chains[c].points
        let exit = chains[c].exit
        let following = next(after: exit)
        appendCorners(from: exit, to: chains[following].entry, perimeter: p, into: &ring)
        c = following
      }
      if let open = RectangleClipper.openRing(ring), RectangleClipper.signedArea(open) > 0 {
        rings.append(open)
      }
    }
    return rings
  }

  /// Adds the corners met going anticlockwise along the edge from `from` to `to`.
  private func appendCorners(
    from: Double, to: Double, perimeter p: Double, into ring: inout [Double]
  ) {
    var distance = to - from
    if distance < 0 { distance += p }
    guard distance > 0 else { return }
    // The first corner after `from`, then on round the box.
    var k = corners.firstIndex { $0.position > from } ?? 0
    for _ in 0..<4 {
      var d = corners[k].position - from
      if d <= 0 { d += p }
      guard d < distance else { return }
      ring.append(corners[k].x)
      ring.append(corners[k].y)
      k = (k + 1) % 4
    }
  }
}
