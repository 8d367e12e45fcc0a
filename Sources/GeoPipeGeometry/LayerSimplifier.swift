import GeoPipeCore

/// Simplification of a whole layer by ranking vertices, as mapshaper does it: every removable
/// vertex gets a threshold (Douglas–Peucker or Visvalingam), then a tolerance or a share of
/// all removable vertices of the layer decides which stay.
///
/// With shared borders, lines and rings are cut into arcs where the features that share an edge
/// change (nodes: a position whose neighbours are not the same wherever it occurs, and the ends
/// of lines). Each arc is simplified once, with its ends fixed, and every ring that runs along
/// it keeps the same vertices, so polygons that met exactly still meet exactly: no gaps and no
/// overlaps open between neighbours. Positions are matched by exact coordinate equality.
///
/// The kept positions are the input's own (z and m included); only x and y decide.
public enum LayerSimplifier {
  /// How many vertices stay.
  public enum Amount: Sendable, Hashable {
    /// Vertices whose threshold is at least this distance stay (Douglas–Peucker: farther than
    /// it; Visvalingam: 0.65 √area, mapshaper's linear equivalent of an effective area).
    case tolerance(Double)
    /// This share (0 to 1) of the layer's removable vertices stays: the ones with the highest
    /// thresholds, ties to the earlier vertex.
    case share(Double)
  }

  /// A coordinate that is not finite, in the geometry at `index`.
  public struct NonFiniteCoordinate: Error, Sendable {
    /// The position of the geometry in the input array.
    public var index: Int
  }

  /// The simplified geometries, in input order; nil where the input was nil or every line and
  /// ring collapsed (a ring with fewer than four positions, or that lost its area).
  ///
  /// - Parameters:
  ///   - keepShapes: puts back the highest-ranked removed vertices of a ring that would
  ///     collapse, so no polygon ring that had an area disappears.
  ///   - sharedBorders: simplifies shared arcs once, so neighbours stay gap-free.
  ///   - project: where x and y are measured for the thresholds (Web Mercator pixels, say);
  ///     the input's x and y when nil.
  public static func simplify(
    _ geometries: [Geometry?], metric: SimplificationMetric, amount: Amount,
    keepShapes: Bool = false, sharedBorders: Bool = false,
    project: ((Double, Double) -> (Double, Double))? = nil
  ) throws(NonFiniteCoordinate) -> [Geometry?] {
    var layer = VertexLayer(sharedBorders: sharedBorders)
    for (index, geometry) in geometries.enumerated() {
      guard let geometry else { continue }
      guard layer.collect(geometry, index: index) else { throw NonFiniteCoordinate(index: index) }
    }
    if let project {
      for k in layer.xs.indices { (layer.xs[k], layer.ys[k]) = project(layer.xs[k], layer.ys[k]) }
    }
    let arcs = sharedBorders ? layer.sharedArcs() : layer.pathArcs()
    var thresholds = [Double](repeating: .infinity, count: layer.xs.count)
    var heap = IndexedMinHeap()
    for arc in arcs {
      VertexThresholds.compute(
        arc, xs: layer.xs, ys: layer.ys, metric: metric, into: &thresholds, heap: &heap)
    }
    var keep = select(thresholds, metric: metric, amount: amount)
    if keepShapes { layer.keepShapes(&keep, thresholds: thresholds) }
    if sharedBorders {
      CrossingRepair.repair(
        arcs: arcs, xs: layer.xs, ys: layer.ys, thresholds: thresholds, keep: &keep)
    }
    var next = 0
    return geometries.map { geometry in
      geometry.flatMap { layer.rebuild($0, keep: keep, next: &next) }
    }
  }

  /// Which vertices stay: every endpoint (infinite threshold), and the removable ones the
  /// amount picks.
  static func select(_ thresholds: [Double], metric: SimplificationMetric, amount: Amount)
    -> [Bool]
  {
    switch amount {
    case .tolerance(let tolerance):
      return thresholds.map { t in
        guard t.isFinite else { return true }
        switch metric {
        case .douglasPeucker: return t > tolerance
        case .visvalingam, .weightedVisvalingam: return 0.65 * t.squareRoot() >= tolerance
        }
      }
    case .share(let share):
      var keep = thresholds.map { !$0.isFinite }
      var removable = thresholds.indices.filter { thresholds[$0].isFinite }
      let count = Int((share * Double(removable.count)).rounded())
      guard count > 0 else { return keep }
      removable.sort { a, b in
        thresholds[a] > thresholds[b] || (thresholds[a] == thresholds[b] && a < b)
      }
      for k in removable.prefix(count) { keep[k] = true }
      return keep
    }
  }
}

/// The positions of a layer's lines and rings: x and y per vertex, and which vertex each
/// position of each path is.
///
/// Without shared borders every position is its own vertex (a ring's closing position is its
/// first); with them every distinct x, y is one vertex, wherever it occurs.
private struct VertexLayer {
  let sharedBorders: Bool
  var xs: [Double] = []
  var ys: [Double] = []
  /// Each path's vertex per position, in collection order (a polygon's shell, then its holes).
  var paths: [[Int32]] = []
  /// Whether each path is a polygon ring.
  var isRing: [Bool] = []
  private var vertexOf: [XY: Int32] = [:]

  private struct XY: Hashable {
    var x: Double
    var y: Double
  }

  init(sharedBorders: Bool) { self.sharedBorders = sharedBorders }

  /// Adds every line and ring of the geometry; false if a coordinate is not finite.
  mutating func collect(_ geometry: Geometry, index: Int) -> Bool {
    switch geometry {
    case .point, .multiPoint: return true
    case .lineString(let line): return add(line, ring: false)
    case .multiLineString(let lines): return lines.allSatisfy { add($0, ring: false) }
    case .polygon(let rings): return rings.allSatisfy { add($0, ring: true) }
    case .multiPolygon(let polygons):
      return polygons.allSatisfy { $0.allSatisfy { add($0, ring: true) } }
    case .geometryCollection(let members):
      return members.allSatisfy { collect($0, index: index) }
    }
  }

  private mutating func add(_ line: CoordinateArray, ring: Bool) -> Bool {
    var ids: [Int32] = []
    ids.reserveCapacity(line.count)
    var finite = true
    let closes = ring && line.count > 1 && line[0] == line[line.count - 1]
    var k = 0
    line.forEachXY { x, y in
      defer { k += 1 }
      if !x.isFinite || !y.isFinite { finite = false }
      if closes && k == line.count - 1 {
        ids.append(ids[0])
      } else if sharedBorders {
        let key = XY(x: x, y: y)
        if let id = vertexOf[key] {
          ids.append(id)
        } else {
          let id = Int32(xs.count)
          vertexOf[key] = id
          xs.append(x)
          ys.append(y)
          ids.append(id)
        }
      } else {
        ids.append(Int32(xs.count))
        xs.append(x)
        ys.append(y)
      }
    }
    paths.append(ids)
    isRing.append(closes)
    return finite
  }

  /// Each path as one arc with fixed ends (a ring's first position).
  func pathArcs() -> [[Int32]] { paths }

  /// The layer's arcs, each once: paths cut at nodes (with shared borders, the crossing repair
  /// also looks at arcs of one segment).
  func sharedArcs() -> [[Int32]] {
    // A path as its cycle (rings, without the closing position) or sequence, without repeats
    // of a position next to itself.
    func sequence(_ p: Int) -> [Int32] {
      var ids = paths[p]
      if isRing[p] { ids.removeLast() }
      var out: [Int32] = []
      out.reserveCapacity(ids.count)
      for id in ids where out.last != id { out.append(id) }
      if isRing[p], out.count > 1, out.first == out.last { out.removeLast() }
      return out
    }
    let sequences = paths.indices.map(sequence)
    // A vertex is a node when its neighbours differ between two of its occurrences, or it
    // ends a line.
    var neighbours = [(Int32, Int32)](repeating: (-1, -1), count: xs.count)
    var isNode = [Bool](repeating: false, count: xs.count)
    for (p, ids) in sequences.enumerated() {
      let n = ids.count
      for k in 0..<n {
        let id = Int(ids[k])
        let before: Int32
        let after: Int32
        if isRing[p] {
          before = ids[(k + n - 1) % n]
          after = ids[(k + 1) % n]
        } else if k == 0 || k == n - 1 {
          isNode[id] = true
          continue
        } else {
          before = ids[k - 1]
          after = ids[k + 1]
        }
        let pair = before < after ? (before, after) : (after, before)
        if neighbours[id].0 < 0 {
          neighbours[id] = pair
        } else if neighbours[id] != pair {
          isNode[id] = true
        }
      }
    }
    // A ring with no node is an arc of its own, from its lowest position (so that the same
    // ring in two features starts at the same place).
    for (p, ids) in sequences.enumerated() where isRing[p] && !ids.isEmpty {
      guard !ids.contains(where: { isNode[Int($0)] }) else { continue }
      let lowest = ids.min { a, b in
        xs[Int(a)] < xs[Int(b)] || (xs[Int(a)] == xs[Int(b)] && ys[Int(a)] < ys[Int(b)])
      }
      if let lowest { isNode[Int(lowest)] = true }
    }
    // Cut at nodes. An arc's interior vertices are in no other arc, so one that is already
    // done is recognised by its first interior vertex, or by its ends if it has none.
    var done = [Bool](repeating: false, count: xs.count)
    var segments = Set<Int64>()
    var arcs: [[Int32]] = []
    func add(_ arc: [Int32]) {
      if arc.count == 2 {
        let (a, b) = (Int64(min(arc[0], arc[1])), Int64(max(arc[0], arc[1])))
        if segments.insert(a << 32 | b).inserted { arcs.append(arc) }
        return
      }
      guard !done[Int(arc[1])] else { return }
      for id in arc.dropFirst().dropLast() { done[Int(id)] = true }
      arcs.append(arc)
    }
    for (p, ids) in sequences.enumerated() where ids.count > 1 {
      let n = ids.count
      if isRing[p] {
        guard let first = ids.firstIndex(where: { isNode[Int($0)] }) else { continue }
        var arc: [Int32] = [ids[first]]
        for step in 1...n {
          let id = ids[(first + step) % n]
          arc.append(id)
          if isNode[Int(id)] {
            add(arc)
            arc = [id]
          }
        }
      } else {
        var arc: [Int32] = [ids[0]]
        for id in ids.dropFirst() {
          arc.append(id)
          if isNode[Int(id)] {
            add(arc)
            arc = [id]
          }
        }
      }
    }
    return arcs
  }

  /// Puts back removed vertices of every polygon ring that would collapse, highest threshold
  /// first, until it has three distinct positions and an area (as far as the input ring does).
  func keepShapes(_ keep: inout [Bool], thresholds: [Double]) {
    for (p, ids) in paths.enumerated() where isRing[p] {
      let cycle = ids.dropLast()
      guard isCollapsed(cycle, keep) else { continue }
      var candidates = Array(Set(cycle.filter { !keep[Int($0)] }))
      candidates.sort { a, b in
        let ta = thresholds[Int(a)]
        let tb = thresholds[Int(b)]
        return ta > tb || (ta == tb && a < b)
      }
      for id in candidates {
        keep[Int(id)] = true
        if !isCollapsed(cycle, keep) { break }
      }
    }
  }

  /// Whether a ring's kept positions have fewer than three distinct vertices or no area.
  private func isCollapsed(_ cycle: ArraySlice<Int32>, _ keep: [Bool]) -> Bool {
    var kept: [Int32] = []
    for id in cycle where keep[Int(id)] && kept.last != id { kept.append(id) }
    if kept.count > 1 && kept.first == kept.last { kept.removeLast() }
    guard Set(kept).count >= 3 else { return true }
    var area = 0.0
    for k in kept.indices {
      let a = Int(kept[k])
      let b = Int(kept[(k + 1) % kept.count])
      area += xs[a] * ys[b] - xs[b] * ys[a]
    }
    return area == 0
  }

  /// The geometry with each path's kept positions, nil if nothing is left; `next` counts paths
  /// in collection order.
  func rebuild(_ geometry: Geometry, keep: [Bool], next: inout Int) -> Geometry? {
    func line(_ coordinates: CoordinateArray) -> CoordinateArray {
      defer { next += 1 }
      let ids = paths[next]
      var out = CoordinateArray(dimension: coordinates.dimension)
      for k in coordinates.indices where keep[Int(ids[k])] { out.append(coordinates[k]) }
      return out
    }
    func ring(_ coordinates: CoordinateArray) -> CoordinateArray? {
      guard isRing[next] else { return line(coordinates) }
      defer { next += 1 }
      let ids = paths[next]
      var out = CoordinateArray(dimension: coordinates.dimension)
      for k in 0..<(coordinates.count - 1) where keep[Int(ids[k])] { out.append(coordinates[k]) }
      guard !out.isEmpty else { return nil }
      out.append(out[0])
      if out.count < 4 { return nil }
      if out.count < coordinates.count && out.signedDoubleArea == 0 { return nil }
      return out
    }
    // A polygon whose shell collapsed goes, holes and all; a collapsed hole goes alone.
    func polygon(_ rings: [CoordinateArray]) -> [CoordinateArray]? {
      let simplified = rings.map(ring)
      guard let first = simplified.first else { return [] }
      guard let shell = first else { return nil }
      return [shell] + simplified.dropFirst().compactMap { $0 }
    }
    switch geometry {
    case .point, .multiPoint:
      return geometry
    case .lineString(let c):
      return .lineString(line(c))
    case .multiLineString(let lines):
      return .multiLineString(lines.map(line))
    case .polygon(let rings):
      return polygon(rings).map { .polygon($0) }
    case .multiPolygon(let polygons):
      let kept = polygons.compactMap(polygon)
      return kept.isEmpty ? nil : .multiPolygon(kept)
    case .geometryCollection(let members):
      let kept = members.compactMap { rebuild($0, keep: keep, next: &next) }
      return kept.isEmpty ? nil : .geometryCollection(kept)
    }
  }
}
