import Foundation

/// Receives the items of a `UnitVectorTree` search.
protocol ChordVisitor {
  /// The squared chord beyond which no item is wanted; it may change as items arrive.
  var limit: Double { get }
  /// Called with the points whose squared chord to the query is at most `limit` when their leaf
  /// is searched (every such point is called, the nearest of a leaf first).
  mutating func visit(_ slot: UnitVectorTree.Slot, squaredChord: Double)
}

/// A static kd-tree of points on the unit sphere, searched by squared chord length.
///
/// Points are kept as `Float` x, y, z (each within 5.2e-8 of the exact unit vector, and half
/// the memory of `Double`, so more of the tree stays in cache) in kd-sorted order: each node
/// splits its items at their median along the axis of widest spread, down to leaves of at most
/// `leafSize` items, and records the largest coordinate left of the split and the smallest right
/// of it, and the bounding box of its items. A search walks down to the leaf on the query's side
/// of each split, remembering the other sides on a stack with their gap on the split axis; it
/// then takes them back in turn, skipping those whose gap or box is beyond the visitor's limit.
/// Nodes are numbered as in a binary heap: the children of node n are 2n + 1 and 2n + 2.
/// Distances are computed in `Double`.
struct UnitVectorTree: Sendable {
  /// A point, the caller's number for it and its latitude and longitude in degrees (kept
  /// beside the point so that the answer's distance needs no other memory).
  struct Slot: Sendable {
    var x: Float
    var y: Float
    var z: Float
    var item: UInt32
    var latitude: Double
    var longitude: Double
  }

  /// An internal node: the axis it splits and the gap between its sides on that axis.
  struct Split: Sendable {
    var leftMax: Float
    var rightMin: Float
    var axis: Int32
  }

  /// The bounding box of a node's points.
  struct Box: Sendable {
    var minX: Float
    var minY: Float
    var minZ: Float
    var maxX: Float
    var maxY: Float
    var maxZ: Float
  }

  /// Items per leaf.
  static let leafSize = 16

  /// Points in kd-sorted order.
  let slots: [Slot]
  /// Each internal node's split.
  let splits: [Split]
  /// Each node's box.
  let boxes: [Box]
  /// The deepest level of the tree (the root is at 0).
  let depth: Int

  /// Builds the tree; searches report each slot's `item`.
  init(_ slots: [Slot]) {
    var depth = 0
    var size = slots.count
    while size > Self.leafSize {
      size -= size / 2
      depth += 1
    }
    var slots = slots
    var splits = [Split](
      repeating: Split(leftMax: 0, rightMin: 0, axis: 0), count: (1 << depth) - 1)
    var boxes = [Box](
      repeating: Box(minX: 0, minY: 0, minZ: 0, maxX: 0, maxY: 0, maxZ: 0),
      count: (2 << depth) - 1)
    slots.withUnsafeMutableBufferPointer { slots in
      splits.withUnsafeMutableBufferPointer { splits in
        boxes.withUnsafeMutableBufferPointer { boxes in
          var builder = Builder(slots: slots, splits: splits, boxes: boxes)
          builder.build(node: 0, low: 0, high: slots.count)
        }
      }
    }
    self.slots = slots
    self.splits = splits
    self.boxes = boxes
    self.depth = depth
  }

  /// Calls the visitor with the items within its limit of the unit vector (x, y, z).
  func search<Visitor: ChordVisitor>(x: Double, y: Double, z: Double, _ visitor: inout Visitor) {
    guard !slots.isEmpty else { return }
    slots.withUnsafeBufferPointer { slots in
      splits.withUnsafeBufferPointer { splits in
        boxes.withUnsafeBufferPointer { boxes in
          // One deferred side per level: the stack lives on the call stack, not the heap.
          withUnsafeTemporaryAllocation(of: Deferred.self, capacity: depth + 1) { stack in
            let walk = Walk(
              slots: slots, splits: splits, boxes: boxes, stack: stack, x: x, y: y, z: z)
            walk.run(count: slots.count, &visitor)
          }
        }
      }
    }
  }
}

/// A side of a split left for later: its node, its items and its gap on the split axis.
private struct Deferred {
  var node: Int
  var low: Int
  var high: Int
  var squaredGap: Double
}

/// One search.
private struct Walk {
  let slots: UnsafeBufferPointer<UnitVectorTree.Slot>
  let splits: UnsafeBufferPointer<UnitVectorTree.Split>
  let boxes: UnsafeBufferPointer<UnitVectorTree.Box>
  let stack: UnsafeMutableBufferPointer<Deferred>
  let x: Double
  let y: Double
  let z: Double

  func run<Visitor: ChordVisitor>(count: Int, _ visitor: inout Visitor) {
    var top = 0
    var node = 0
    var low = 0
    var high = count
    while true {
      while high - low > UnitVectorTree.leafSize {
        let split = splits[node]
        let middle = low + (high - low) / 2
        let value = split.axis == 0 ? x : split.axis == 1 ? y : z
        let pastLeft = value - Double(split.leftMax)
        let beforeRight = Double(split.rightMin) - value
        // Which side is nearer is a coin toss at every level: selects, not branches.
        let left = beforeRight > pastLeft
        let gap = max(0, left ? beforeRight : pastLeft)
        stack[top] = Deferred(
          node: 2 * node + (left ? 2 : 1), low: left ? middle : low, high: left ? high : middle,
          squaredGap: gap * gap)
        top += 1
        node = 2 * node + (left ? 1 : 2)
        if left { high = middle } else { low = middle }
      }
      scan(low: low, high: high, &visitor)
      repeat {
        guard top > 0 else { return }
        top -= 1
        let side = stack[top]
        guard side.squaredGap <= visitor.limit, gap(boxes[side.node]) <= visitor.limit else {
          continue
        }
        node = side.node
        low = side.low
        high = side.high
        break
      } while true
    }
  }

  /// Visits a leaf's items within the limit, the nearest first.
  func scan<Visitor: ChordVisitor>(low: Int, high: Int, _ visitor: inout Visitor) {
    // The nearest and the second nearest, without branches.
    var nearest = Double.infinity
    var second = Double.infinity
    var nearestIndex = low
    for i in low..<high {
      let chord = squaredChord(slots[i])
      second = min(second, max(nearest, chord))
      let closer = chord < nearest
      nearestIndex = closer ? i : nearestIndex
      nearest = closer ? chord : nearest
    }
    guard nearest <= visitor.limit else { return }
    visitor.visit(slots[nearestIndex], squaredChord: nearest)
    guard second <= visitor.limit else { return }
    for i in low..<high where i != nearestIndex {
      let chord = squaredChord(slots[i])
      if chord <= visitor.limit { visitor.visit(slots[i], squaredChord: chord) }
    }
  }

  @inline(__always)
  func squaredChord(_ slot: UnitVectorTree.Slot) -> Double {
    let dx = Double(slot.x) - x
    let dy = Double(slot.y) - y
    let dz = Double(slot.z) - z
    return dx * dx + dy * dy + dz * dz
  }

  /// The squared distance from the query to a box (0 inside it).
  @inline(__always)
  func gap(_ box: UnitVectorTree.Box) -> Double {
    // At most one of the two differences is positive on each axis.
    let dx = positivePart(Double(box.minX) - x) + positivePart(x - Double(box.maxX))
    let dy = positivePart(Double(box.minY) - y) + positivePart(y - Double(box.maxY))
    let dz = positivePart(Double(box.minZ) - z) + positivePart(z - Double(box.maxZ))
    return dx * dx + dy * dy + dz * dz
  }
}

@inline(__always)
private func positivePart(_ value: Double) -> Double { value > 0 ? value : 0 }

/// The kd-sort: median selection on the widest axis, node by node, recording splits and boxes.
private struct Builder {
  let slots: UnsafeMutableBufferPointer<UnitVectorTree.Slot>
  let splits: UnsafeMutableBufferPointer<UnitVectorTree.Split>
  let boxes: UnsafeMutableBufferPointer<UnitVectorTree.Box>

  mutating func build(node: Int, low: Int, high: Int) {
    var lower = SIMD3<Float>(repeating: .infinity)
    var upper = SIMD3<Float>(repeating: -.infinity)
    for i in low..<high {
      let point = SIMD3(slots[i].x, slots[i].y, slots[i].z)
      lower = pointwiseMin(lower, point)
      upper = pointwiseMax(upper, point)
    }
    boxes[node] = UnitVectorTree.Box(
      minX: lower.x, minY: lower.y, minZ: lower.z, maxX: upper.x, maxY: upper.y, maxZ: upper.z)
    if high - low <= UnitVectorTree.leafSize { return }
    let spread = upper - lower
    let axis =
      spread.x >= spread.y ? (spread.x >= spread.z ? 0 : 2) : (spread.y >= spread.z ? 1 : 2)
    let middle = low + (high - low) / 2
    select(middle, low: low, high: high - 1, axis: axis)
    var leftMax = -Float.infinity
    for i in low..<middle { leftMax = max(leftMax, coordinate(i, axis)) }
    splits[node] = UnitVectorTree.Split(
      leftMax: leftMax, rightMin: coordinate(middle, axis), axis: Int32(axis))
    build(node: 2 * node + 1, low: low, high: middle)
    build(node: 2 * node + 2, low: middle, high: high)
  }

  /// Orders slots low...high so that the k-th is in place on `axis`, smaller ones before it
  /// and larger ones after (Floyd–Rivest selection, as kdbush does it).
  func select(_ k: Int, low: Int, high: Int, axis: Int) {
    var low = low
    var high = high
    while high > low {
      if high - low > 600 {
        let n = Double(high - low + 1)
        let m = Double(k - low + 1)
        let z = log(n)
        let s = 0.5 * exp(2 * z / 3)
        let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * (m - n / 2 < 0 ? -1 : 1)
        let sampleLow = max(low, Int((Double(k) - m * s / n + sd).rounded(.down)))
        let sampleHigh = min(high, Int((Double(k) + (n - m) * s / n + sd).rounded(.down)))
        select(k, low: sampleLow, high: sampleHigh, axis: axis)
      }
      let pivot = coordinate(k, axis)
      var i = low
      var j = high
      slots.swapAt(low, k)
      if coordinate(high, axis) > pivot { slots.swapAt(low, high) }
      while i < j {
        slots.swapAt(i, j)
        i += 1
        j -= 1
        while coordinate(i, axis) < pivot { i += 1 }
        while coordinate(j, axis) > pivot { j -= 1 }
      }
      if coordinate(low, axis) == pivot {
        slots.swapAt(low, j)
      } else {
        j += 1
        slots.swapAt(j, high)
      }
      if j <= k { low = j + 1 }
      if k <= j { high = j - 1 }
    }
  }

  func coordinate(_ i: Int, _ axis: Int) -> Float {
    switch axis {
    case 0: slots[i].x
    case 1: slots[i].y
    default: slots[i].z
    }
  }
}
