import Foundation

/// A static 2-D index of points for box and radius queries: a port of kdbush 4.x.
///
/// Points are stored as `Float` (kdbush's `Float32Array` option, which supercluster uses) and
/// kd-sorted in place: each node's median splits the items by x, then y, in turn, down to
/// leaves of `nodeSize` items. The sort (Floyd–Rivest selection) and the query traversals
/// follow kdbush exactly, so results come back in the same order as kdbush returns them.
public struct KDBush: Sendable {
  /// Leaf size.
  public let nodeSize: Int
  /// Item numbers (the order of `add`) in kd-sorted order.
  public private(set) var ids: [UInt32]
  /// x, y pairs in kd-sorted order.
  public private(set) var coords: [Float]

  /// Creates an index of the given points, numbered in order from 0.
  public init(xs: some Collection<Double>, ys: some Collection<Double>, nodeSize: Int = 64) {
    var coords: [Float] = []
    coords.reserveCapacity(xs.count * 2)
    for (x, y) in zip(xs, ys) {
      coords.append(Float(x))
      coords.append(Float(y))
    }
    self.init(coordinates: coords, nodeSize: nodeSize)
  }

  /// Creates an index of points given as x, y pairs (`Float`, as kdbush's `Float32Array`),
  /// numbered in order from 0.
  public init(coordinates: [Float], nodeSize: Int = 64) {
    self.nodeSize = min(max(nodeSize, 2), 65535)
    let count = coordinates.count / 2
    var coords = coordinates
    var ids = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
      for k in 0..<count { buffer[k] = UInt32(k) }
      initialized = count
    }
    let leaf = self.nodeSize
    ids.withUnsafeMutableBufferPointer { ids in
      coords.withUnsafeMutableBufferPointer { coords in
        var sorter = Sorter(ids: ids, coords: coords, nodeSize: leaf)
        sorter.sort(left: 0, right: count - 1, axis: 0)
      }
    }
    self.ids = ids
    self.coords = coords
  }

  /// The number of items.
  public var count: Int { ids.count }

  /// Each item's place in the order `within` and `range` report items: `ranks[id]`.
  ///
  /// Both queries walk the tree depth first, reporting a node's median before its children,
  /// the upper child before the lower one and a leaf's items in storage order, and skip only
  /// subtrees that hold no match. Any query's results therefore come sorted by these ranks.
  public func traversalRanks() -> [UInt32] {
    var ranks = [UInt32](repeating: 0, count: ids.count)
    guard !ids.isEmpty else { return ranks }
    ids.withUnsafeBufferPointer { ids in
      ranks.withUnsafeMutableBufferPointer { ranks in
        var next: UInt32 = 0
        var stack: [(left: Int, right: Int)] = [(0, ids.count - 1)]
        while let (left, right) = stack.popLast() {
          if right - left <= nodeSize {
            if left <= right {
              for i in left...right {
                ranks[Int(ids[i])] = next
                next += 1
              }
            }
            continue
          }
          let m = (left + right) >> 1
          ranks[Int(ids[m])] = next
          next += 1
          stack.append((left, m - 1))
          stack.append((m + 1, right))
        }
      }
    }
    return ranks
  }

  /// The items inside the box (edges included), in kdbush's order.
  public func range(minX: Double, minY: Double, maxX: Double, maxY: Double) -> [Int] {
    var result: [Int] = []
    range(minX: minX, minY: minY, maxX: maxX, maxY: maxY) { result.append($0) }
    return result
  }

  /// Calls `visit` with each item inside the box, in kdbush's order.
  @inlinable
  public func range(
    minX: Double, minY: Double, maxX: Double, maxY: Double, _ visit: (Int) -> Void
  ) {
    ids.withUnsafeBufferPointer { ids in
      rangePositions(minX: minX, minY: minY, maxX: maxX, maxY: maxY) { visit(Int(ids[$0])) }
    }
  }

  /// Calls `visit` with the storage position (an index into `ids`) of each item inside the box,
  /// in kdbush's order.
  @inlinable
  public func rangePositions(
    minX: Double, minY: Double, maxX: Double, maxY: Double, _ visit: (Int) -> Void
  ) {
    ids.withUnsafeBufferPointer { ids in
      coords.withUnsafeBufferPointer { coords in
        var stack: [Int] = [0, ids.count - 1, 0]
        while !stack.isEmpty {
          let axis = stack.removeLast()
          let right = stack.removeLast()
          let left = stack.removeLast()
          if right - left <= nodeSize {
            if left <= right {
              for i in left...right {
                let x = Double(coords[2 * i])
                let y = Double(coords[2 * i + 1])
                if x >= minX && x <= maxX && y >= minY && y <= maxY { visit(i) }
              }
            }
            continue
          }
          let m = (left + right) >> 1
          let x = Double(coords[2 * m])
          let y = Double(coords[2 * m + 1])
          if x >= minX && x <= maxX && y >= minY && y <= maxY { visit(m) }
          if axis == 0 ? minX <= x : minY <= y {
            stack.append(left)
            stack.append(m - 1)
            stack.append(1 - axis)
          }
          if axis == 0 ? maxX >= x : maxY >= y {
            stack.append(m + 1)
            stack.append(right)
            stack.append(1 - axis)
          }
        }
      }
    }
  }

  /// The items within distance `r` of (qx, qy) (edge included), in kdbush's order.
  public func within(x qx: Double, y qy: Double, radius r: Double) -> [Int] {
    var result: [Int] = []
    within(x: qx, y: qy, radius: r) { result.append($0) }
    return result
  }

  /// Calls `visit` with each item within distance `r` of (qx, qy), in kdbush's order.
  @inlinable
  public func within(x qx: Double, y qy: Double, radius r: Double, _ visit: (Int) -> Void) {
    let r2 = r * r
    ids.withUnsafeBufferPointer { ids in
      coords.withUnsafeBufferPointer { coords in
        var stack: [Int] = [0, ids.count - 1, 0]
        stack.reserveCapacity(96)
        while !stack.isEmpty {
          let axis = stack.removeLast()
          let right = stack.removeLast()
          let left = stack.removeLast()
          if right - left <= nodeSize {
            if left <= right {
              for i in left...right {
                let dx = Double(coords[2 * i]) - qx
                let dy = Double(coords[2 * i + 1]) - qy
                if dx * dx + dy * dy <= r2 { visit(Int(ids[i])) }
              }
            }
            continue
          }
          let m = (left + right) >> 1
          let x = Double(coords[2 * m])
          let y = Double(coords[2 * m + 1])
          let dx = x - qx
          let dy = y - qy
          if dx * dx + dy * dy <= r2 { visit(Int(ids[m])) }
          if axis == 0 ? qx - r <= x : qy - r <= y {
            stack.append(left)
            stack.append(m - 1)
            stack.append(1 - axis)
          }
          if axis == 0 ? qx + r >= x : qy + r >= y {
            stack.append(m + 1)
            stack.append(right)
            stack.append(1 - axis)
          }
        }
      }
    }
  }
}

/// kdbush's kd-sort: Floyd–Rivest selection around each node's median.
private struct Sorter {
  let ids: UnsafeMutableBufferPointer<UInt32>
  let coords: UnsafeMutableBufferPointer<Float>
  let nodeSize: Int

  mutating func sort(left: Int, right: Int, axis: Int) {
    if right - left <= nodeSize { return }
    let m = (left + right) >> 1
    select(k: m, left: left, right: right, axis: axis)
    sort(left: left, right: m - 1, axis: 1 - axis)
    sort(left: m + 1, right: right, axis: 1 - axis)
  }

  /// Orders items so that those in [left, k) are not greater than the k-th on `axis`.
  func select(k: Int, left: Int, right: Int, axis: Int) {
    var left = left
    var right = right
    while right > left {
      if right - left > 600 {
        // The sampling step, with JavaScript's double arithmetic and Math.floor.
        let n = Double(right - left + 1)
        let m = Double(k - left + 1)
        let z = Foundation.log(n)
        let s = 0.5 * Foundation.exp(2 * z / 3)
        let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * (m - n / 2 < 0 ? -1 : 1)
        let newLeft = max(left, Int((Double(k) - m * s / n + sd).rounded(.down)))
        let newRight = min(right, Int((Double(k) + (n - m) * s / n + sd).rounded(.down)))
        select(k: k, left: newLeft, right: newRight, axis: axis)
      }
      let t = coords[2 * k + axis]
      var i = left
      var j = right
      swapItem(left, k)
      if coords[2 * right + axis] > t { swapItem(left, right) }
      while i < j {
        swapItem(i, j)
        i += 1
        j -= 1
        while coords[2 * i + axis] < t { i += 1 }
        while coords[2 * j + axis] > t { j -= 1 }
      }
      if coords[2 * left + axis] == t {
        swapItem(left, j)
      } else {
        j += 1
        swapItem(j, right)
      }
      if j <= k { left = j + 1 }
      if k <= j { right = j - 1 }
    }
  }

  func swapItem(_ i: Int, _ j: Int) {
    ids.swapAt(i, j)
    coords.swapAt(2 * i, 2 * j)
    coords.swapAt(2 * i + 1, 2 * j + 1)
  }
}
