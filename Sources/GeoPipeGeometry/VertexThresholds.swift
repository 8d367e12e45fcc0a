/// How a vertex's importance is measured when simplifying by rank.
public enum SimplificationMetric: Sendable, Hashable {
  /// Douglas–Peucker: the distance at which the vertex is chosen, never more than its parent's.
  case douglasPeucker
  /// Visvalingam–Whyatt: the effective area of the triangle the vertex makes with its
  /// neighbours when it is removed.
  case visvalingam
  /// mapshaper's weighted Visvalingam: the effective area times `1 - weighting × cos θ`, θ the
  /// angle at the vertex, so that sharp spikes go sooner and right angles later (mapshaper's
  /// default method, with a weighting of 0.7).
  case weightedVisvalingam(weighting: Double)
}

/// Removal thresholds of the interior vertices of one arc.
///
/// The larger a vertex's threshold, the longer simplification keeps it. Endpoints are never
/// removed (infinite threshold).
///
/// Thresholds nest: removing every vertex below any threshold gives the arc that the algorithm
/// itself reaches at that point (Visvalingam: a vertex whose area falls below the last removed
/// one's takes that one's instead, as Visvalingam and Whyatt's paper and mapshaper do).
enum VertexThresholds {
  /// Writes the threshold of each interior vertex of the arc `ids` (indices into `xs`/`ys`)
  /// into `thresholds[ids[k]]`.
  static func compute(
    _ ids: [Int32], xs: [Double], ys: [Double], metric: SimplificationMetric,
    into thresholds: inout [Double], heap: inout IndexedMinHeap
  ) {
    guard ids.count > 2 else { return }
    switch metric {
    case .douglasPeucker:
      douglasPeucker(ids, xs: xs, ys: ys, into: &thresholds)
    case .visvalingam:
      visvalingam(ids, xs: xs, ys: ys, weighting: 0, into: &thresholds, heap: &heap)
    case .weightedVisvalingam(let weighting):
      visvalingam(ids, xs: xs, ys: ys, weighting: weighting, into: &thresholds, heap: &heap)
    }
  }

  /// Douglas–Peucker thresholds: each section's furthest vertex (the first of equals, as GEOS
  /// takes it) gets its distance from the chord, capped by the threshold of the vertex that
  /// split the section off, so that "threshold > tolerance" keeps exactly GEOS's vertices.
  private static func douglasPeucker(
    _ ids: [Int32], xs: [Double], ys: [Double], into thresholds: inout [Double]
  ) {
    var stack: [(i: Int, j: Int, cap: Double)] = [(0, ids.count - 1, .infinity)]
    while let (i, j, cap) = stack.popLast() {
      guard i + 1 < j else { continue }
      let a = Int(ids[i])
      let b = Int(ids[j])
      var best = -1.0
      var furthest = i + 1
      for k in (i + 1)..<j {
        let p = Int(ids[k])
        let d = Planar.pointToSegment(xs[p], ys[p], xs[a], ys[a], xs[b], ys[b])
        if d > best {
          best = d
          furthest = k
        }
      }
      let threshold = min(best, cap)
      thresholds[Int(ids[furthest])] = threshold
      stack.append((furthest, j, threshold))
      stack.append((i, furthest, threshold))
    }
  }

  /// Visvalingam–Whyatt with a min-heap of effective areas (ties go to the earlier vertex).
  private static func visvalingam(
    _ ids: [Int32], xs: [Double], ys: [Double], weighting: Double,
    into thresholds: inout [Double], heap: inout IndexedMinHeap
  ) {
    let n = ids.count
    var previous = [Int32](repeating: 0, count: n)
    var next = [Int32](repeating: 0, count: n)
    func metric(_ a: Int, _ b: Int, _ c: Int) -> Double {
      let p = Int(ids[a])
      let q = Int(ids[b])
      let r = Int(ids[c])
      let area = effectiveArea(xs[p], ys[p], xs[q], ys[q], xs[r], ys[r])
      guard weighting != 0 else { return area }
      return area * (1 - weighting * cosine(xs[p], ys[p], xs[q], ys[q], xs[r], ys[r]))
    }
    heap.reset(count: n)
    for k in 0..<n {
      previous[k] = Int32(k - 1)
      next[k] = Int32(k + 1)
      if k > 0 && k < n - 1 { heap.insert(k, metric(k - 1, k, k + 1)) }
    }
    var floor = -Double.infinity
    while let (k, value) = heap.popMin() {
      floor = max(floor, value)
      thresholds[Int(ids[k])] = floor
      let before = Int(previous[k])
      let after = Int(next[k])
      next[before] = Int32(after)
      previous[after] = Int32(before)
      if before > 0 { heap.update(before, metric(Int(previous[before]), before, after)) }
      if after < n - 1 { heap.update(after, metric(before, after, Int(next[after]))) }
    }
  }

  /// Half the absolute cross product: the area of triangle a, b, c.
  static func effectiveArea(
    _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
  ) -> Double {
    abs((bx - ax) * (cy - ay) - (cx - ax) * (by - ay)) / 2
  }

  /// The cosine of the angle at b between b→a and b→c (0 when either side has no length),
  /// clamped to [-1, 1].
  static func cosine(
    _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
  ) -> Double {
    let lengths =
      ((ax - bx) * (ax - bx) + (ay - by) * (ay - by)).squareRoot()
      * ((cx - bx) * (cx - bx) + (cy - by) * (cy - by)).squareRoot()
    guard lengths > 0 else { return 0 }
    let c = ((ax - bx) * (cx - bx) + (ay - by) * (cy - by)) / lengths
    return min(1, max(-1, c))
  }
}

/// A binary min-heap of the items 0..<count keyed by a value, whose values can change in place
/// (Visvalingam's neighbours); ties go to the smaller item.
struct IndexedMinHeap {
  private var items: [Int32] = []
  private var values: [Double] = []
  /// Where each item sits in `items`, -1 when it is not in the heap.
  private var slots: [Int32] = []

  /// Empties the heap for items 0..<count.
  mutating func reset(count: Int) {
    items.removeAll(keepingCapacity: true)
    if values.count < count {
      values = [Double](repeating: 0, count: count)
      slots = [Int32](repeating: -1, count: count)
    } else {
      for k in 0..<count { slots[k] = -1 }
    }
  }

  mutating func insert(_ item: Int, _ value: Double) {
    values[item] = value
    items.append(Int32(item))
    slots[item] = Int32(items.count - 1)
    siftUp(items.count - 1)
  }

  /// Changes an item's value; nothing if it has left the heap.
  mutating func update(_ item: Int, _ value: Double) {
    let slot = Int(slots[item])
    guard slot >= 0 else { return }
    values[item] = value
    siftUp(slot)
    siftDown(Int(slots[item]))
  }

  mutating func popMin() -> (Int, Double)? {
    guard let first = items.first else { return nil }
    let item = Int(first)
    let last = items.removeLast()
    slots[item] = -1
    if !items.isEmpty {
      items[0] = last
      slots[Int(last)] = 0
      siftDown(0)
    }
    return (item, values[item])
  }

  private func less(_ a: Int32, _ b: Int32) -> Bool {
    let va = values[Int(a)]
    let vb = values[Int(b)]
    return va < vb || (va == vb && a < b)
  }

  private mutating func swapAt(_ i: Int, _ j: Int) {
    items.swapAt(i, j)
    slots[Int(items[i])] = Int32(i)
    slots[Int(items[j])] = Int32(j)
  }

  private mutating func siftUp(_ start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard less(items[child], items[parent]) else { return }
      swapAt(child, parent)
      child = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < items.count else { return }
      var smallest = left
      if left + 1 < items.count && less(items[left + 1], items[left]) { smallest = left + 1 }
      guard less(items[smallest], items[parent]) else { return }
      swapAt(smallest, parent)
      parent = smallest
    }
  }
}
