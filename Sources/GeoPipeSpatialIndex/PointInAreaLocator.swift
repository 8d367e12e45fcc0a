/// Where a point lies relative to an area.
public enum AreaLocation: Sendable, Equatable {
  /// Inside, off the boundary.
  case interior
  /// On an edge or a vertex of a ring.
  case boundary
  /// Outside.
  case exterior
}

/// Locates points in a polygon or multipolygon given as rings: the same answers as GEOS's
/// `IndexedPointInAreaLocator` (the test behind a prepared polygon's `contains` and
/// `intersects` of a point), with its ray-crossing rules and an exact orientation test.
///
/// A ray from the point towards +x crosses the rings' edges; an odd count of crossings over
/// all rings means the interior (GEOS's `RayCrossingCounter`: an upward edge includes its
/// start and excludes its end, a downward edge the reverse, horizontal edges never count;
/// a point on an edge or a vertex is on the boundary). The edges are kept in horizontal bands
/// so that a lookup tests only those whose span of y holds the point's. A grid over the box
/// answers most points without a ray: a cell that no edge's box meets holds no boundary point,
/// so all of it lies on the side of its centre, found once when the locator is made (a point
/// is answered from its cell only when it lies within the cell's bounds as computed, so
/// rounding never puts it in the wrong cell). Immutable: lookups may run concurrently.
public struct PointInAreaLocator: Sendable {
  /// The bounding box of the rings.
  public let bounds: BoxTree.Box
  /// Edges as x1, y1, x2, y2.
  private let edges: [Double]
  /// For band `k`, its edges are `bandEdges[bandStarts[k]..<bandStarts[k + 1]]`.
  private let bandStarts: [Int32]
  private let bandEdges: [Int32]
  private let bandHeight: Double
  /// The grid's cells, row by row, set once in `init`.
  ///
  /// `columns` × `rows` cells of `cellWidth` × `cellHeight` from the box's corner, each
  /// `mixed` (an edge's box meets it), `inside` or `outside`.
  private var cells: [UInt8] = []
  private var columns = 0
  private var rows = 0
  private var cellWidth = 1.0
  private var cellHeight = 1.0
  private static let mixed: UInt8 = 0
  private static let inside: UInt8 = 1
  private static let outside: UInt8 = 2

  /// Indexes rings given as flat x, y pairs.
  ///
  /// A ring may be closed or not (its first point closes it). Rings with fewer than three
  /// points bound nothing and are left out.
  public init(rings: [[Double]]) {
    var edges: [Double] = []
    var minX = Double.infinity
    var minY = Double.infinity
    var maxX = -Double.infinity
    var maxY = -Double.infinity
    for ring in rings where ring.count >= 6 {
      let n = ring.count / 2
      for k in 0..<n {
        let x1 = ring[2 * k]
        let y1 = ring[2 * k + 1]
        let j = (k + 1) % n
        let x2 = ring[2 * j]
        let y2 = ring[2 * j + 1]
        minX = min(minX, x1)
        maxX = max(maxX, x1)
        minY = min(minY, y1)
        maxY = max(maxY, y1)
        if x1 == x2 && y1 == y2 { continue }
        edges.append(contentsOf: [x1, y1, x2, y2])
      }
    }
    self.edges = edges
    let edgeCount = edges.count / 4
    guard edgeCount > 0, minY.isFinite, maxY.isFinite else {
      bounds = BoxTree.Box(minX: 0, minY: 0, maxX: -1, maxY: -1)
      bandStarts = [0, 0]
      bandEdges = []
      bandHeight = 1
      return
    }
    bounds = BoxTree.Box(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
    // About four edges a band on average keeps lookups short and the index small.
    let bandCount = max(1, min(edgeCount / 4, 1 << 20))
    let height = (maxY - minY) / Double(bandCount)
    let bandHeight = height > 0 ? height : 1
    self.bandHeight = bandHeight
    func band(_ y: Double) -> Int {
      min(bandCount - 1, max(0, Int((y - minY) / bandHeight)))
    }
    var counts = [Int32](repeating: 0, count: bandCount + 1)
    for e in 0..<edgeCount {
      let y1 = edges[4 * e + 1]
      let y2 = edges[4 * e + 3]
      for k in band(min(y1, y2))...band(max(y1, y2)) { counts[k + 1] += 1 }
    }
    for k in 0..<bandCount { counts[k + 1] += counts[k] }
    var next = counts
    var members = [Int32](repeating: 0, count: Int(counts[bandCount]))
    for e in 0..<edgeCount {
      let y1 = edges[4 * e + 1]
      let y2 = edges[4 * e + 3]
      for k in band(min(y1, y2))...band(max(y1, y2)) {
        members[Int(next[k])] = Int32(e)
        next[k] += 1
      }
    }
    bandStarts = counts
    bandEdges = members
    makeGrid(edgeCount: edgeCount)
  }

  /// Classifies the grid's cells (about two for every edge).
  private mutating func makeGrid(edgeCount: Int) {
    let width = bounds.maxX - bounds.minX
    let height = bounds.maxY - bounds.minY
    guard width > 0, height > 0 else { return }
    let target = Double(max(1, min(edgeCount * 2, 1 << 22)))
    columns = max(1, min(8192, Int((target * width / height).squareRoot())))
    rows = max(1, min(8192, Int(target / Double(columns))))
    cellWidth = width / Double(columns)
    cellHeight = height / Double(rows)
    var grid = [UInt8](repeating: Self.outside, count: columns * rows)
    // A cell is mixed when an edge's box meets it; one cell more on each side makes up for
    // rounding in the cell indices.
    for e in 0..<(edges.count / 4) {
      let x1 = edges[4 * e]
      let y1 = edges[4 * e + 1]
      let x2 = edges[4 * e + 2]
      let y2 = edges[4 * e + 3]
      let i0 = max(0, column(of: min(x1, x2)) - 1)
      let i1 = min(columns - 1, column(of: max(x1, x2)) + 1)
      let j0 = max(0, row(of: min(y1, y2)) - 1)
      let j1 = min(rows - 1, row(of: max(y1, y2)) + 1)
      for j in j0...j1 {
        for i in i0...i1 { grid[j * columns + i] = Self.mixed }
      }
    }
    // Neighbouring cells in a row that no edge meets share their closed common side, which
    // holds no boundary point: the whole run lies on one side, found by one ray.
    for j in 0..<rows {
      var i = 0
      while i < columns {
        guard grid[j * columns + i] != Self.mixed else {
          i += 1
          continue
        }
        var end = i + 1
        while end < columns && grid[j * columns + end] != Self.mixed { end += 1 }
        let x = (cellMinX(i) + cellMinX(i + 1)) / 2
        let y = (cellMinY(j) + cellMinY(j + 1)) / 2
        let state: UInt8
        switch cast(x: x, y: y) {
        case .interior: state = Self.inside
        case .exterior: state = Self.outside
        case .boundary: state = Self.mixed
        }
        for k in i..<end { grid[j * columns + k] = state }
        i = end
      }
    }
    cells = grid
  }

  private func column(of x: Double) -> Int {
    min(columns - 1, max(0, Int((x - bounds.minX) / cellWidth)))
  }

  private func row(of y: Double) -> Int {
    min(rows - 1, max(0, Int((y - bounds.minY) / cellHeight)))
  }

  private func cellMinX(_ i: Int) -> Double { bounds.minX + Double(i) * cellWidth }

  private func cellMinY(_ j: Int) -> Double { bounds.minY + Double(j) * cellHeight }

  /// Where the point (x, y) lies.
  public func locate(x: Double, y: Double) -> AreaLocation {
    guard x >= bounds.minX, x <= bounds.maxX, y >= bounds.minY, y <= bounds.maxY else {
      return .exterior
    }
    if !cells.isEmpty {
      let i = column(of: x)
      let j = row(of: y)
      let state = cells[j * columns + i]
      if state != Self.mixed, x >= cellMinX(i), x <= cellMinX(i + 1), y >= cellMinY(j),
        y <= cellMinY(j + 1)
      {
        return state == Self.inside ? .interior : .exterior
      }
    }
    return cast(x: x, y: y)
  }

  /// Where the point lies, by counting the edges a ray towards +x crosses.
  private func cast(x: Double, y: Double) -> AreaLocation {
    let bandCount = bandStarts.count - 1
    let k = min(bandCount - 1, max(0, Int((y - bounds.minY) / bandHeight)))
    var crossings = 0
    for slot in Int(bandStarts[k])..<Int(bandStarts[k + 1]) {
      let e = Int(bandEdges[slot]) * 4
      let x1 = edges[e]
      let y1 = edges[e + 1]
      let x2 = edges[e + 2]
      let y2 = edges[e + 3]
      // Entirely left of the point: the ray cannot cross it.
      if x1 < x && x2 < x { continue }
      if x == x2 && y == y2 { return .boundary }
      if y1 == y && y2 == y {
        if x >= min(x1, x2) && x <= max(x1, x2) { return .boundary }
        continue
      }
      guard (y1 > y && y2 <= y) || (y2 > y && y1 <= y) else { continue }
      var side = Orientation.of(x1, y1, x2, y2, x, y).rawValue
      if side == 0 { return .boundary }
      if y2 < y1 { side = -side }
      if side > 0 { crossings += 1 }
    }
    return crossings % 2 == 1 ? .interior : .exterior
  }
}
