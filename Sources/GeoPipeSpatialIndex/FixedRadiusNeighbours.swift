/// For every item of a set, the other items within a fixed radius: all the radius queries of
/// one set at once, in about linear time.
///
/// Items are bucketed in a grid of cells slightly wider than the radius, the buckets put in
/// row-major order by a radix sort, and each cell's items compared with those of the 3 × 3
/// cells around it, found by pointers that only move forward. This answers the same question as
/// one `KDBush.within` call per item, with the same arithmetic (a query point in `Double`
/// against stored `Float` coordinates, `dx² + dy² <= r²`), so the sets found are identical; the
/// lists come in no particular order.
public struct FixedRadiusNeighbours: Sendable {
  /// `neighbours[starts[i]..<starts[i] + counts[i]]`: the items within the radius of item
  /// `i`, other than `i` itself.
  public private(set) var starts: [UInt32]
  /// The number of neighbours of each item.
  public private(set) var counts: [UInt32]
  /// The neighbour lists, one after another (in grid order, not item order).
  public private(set) var neighbours: [UInt32]

  /// The neighbours of item `i`.
  @inlinable
  public func neighbours(of i: Int) -> ArraySlice<UInt32> {
    let start = Int(starts[i])
    return neighbours[start..<start + Int(counts[i])]
  }

  /// Finds, for each item, the items whose stored point (`pointX`, `pointY`) lies within
  /// `radius` of its query point (`queryX`, `queryY`).
  ///
  /// An item's query point and stored point are the same position, the stored one rounded to
  /// `Float` (as a kd-tree of `Float` coordinates stores it). Returns nil when the coordinates
  /// are not finite or span too many cells for the grid; callers then query a tree instead.
  public init?(
    queryX: UnsafeBufferPointer<Double>, queryY: UnsafeBufferPointer<Double>,
    pointX: UnsafeBufferPointer<Float>, pointY: UnsafeBufferPointer<Float>, radius: Double
  ) {
    let n = queryX.count
    precondition(queryY.count == n && pointX.count == n && pointY.count == n)
    guard n <= Int(UInt32.max) - 1, radius.isFinite, radius > 0 else { return nil }
    starts = [UInt32](repeating: 0, count: n)
    counts = [UInt32](repeating: 0, count: n)
    neighbours = []
    if n == 0 { return }

    // The grid: a stored point is at most `slack` from its query point, so every neighbour of
    // an item lies in the 3 × 3 cells around the cell of its stored point.
    var minX = Double.infinity
    var minY = Double.infinity
    var maxX = -Double.infinity
    var maxY = -Double.infinity
    for i in 0..<n {
      let x = Double(pointX[i])
      let y = Double(pointY[i])
      minX = min(minX, x)
      maxX = max(maxX, x)
      minY = min(minY, y)
      maxY = max(maxY, y)
    }
    guard minX.isFinite, maxX.isFinite, minY.isFinite, maxY.isFinite else { return nil }
    let magnitude = max(1, abs(minX), abs(maxX), abs(minY), abs(maxY))
    let slack = magnitude * 0x1p-23
    let cell = (radius + slack) * (1 + 0x1p-20)
    let scale = 1 / cell
    let columnsD = ((maxX - minX) * scale).rounded(.down) + 1
    let rowsD = ((maxY - minY) * scale).rounded(.down) + 1
    guard columnsD < 0x1p31, rowsD < 0x1p31 else { return nil }
    let columns = UInt64(columnsD)
    let rows = UInt64(rowsD)

    // Cell keys in row-major order (the row in the high bits, the column in the low ones), and
    // the items sorted by them.
    let columnBits = UInt64(64 - (columns - 1).leadingZeroBitCount)
    let rowBits = 64 - (rows - 1).leadingZeroBitCount
    let columnMask: UInt64 = (1 << columnBits) - 1
    var keys = [UInt64](unsafeUninitializedCapacity: n) { keys, count in
      for i in 0..<n {
        let column = min(UInt64(((Double(pointX[i]) - minX) * scale).rounded(.down)), columns - 1)
        let row = min(UInt64(((Double(pointY[i]) - minY) * scale).rounded(.down)), rows - 1)
        keys[i] = row << columnBits | column
      }
      count = n
    }
    let order = Self.radixSort(keys: &keys, keyBits: Int(columnBits) + rowBits)

    // Stored points in sorted order, so that the candidate scans read memory in sequence.
    let sortedX = order.map { pointX[Int($0)] }
    let sortedY = order.map { pointY[Int($0)] }

    let r2 = radius * radius
    var starts = [UInt32](repeating: 0, count: n)
    var counts = [UInt32](repeating: 0, count: n)
    var found: [UInt32] = []
    found.reserveCapacity(n)
    var overflow = false
    keys.withUnsafeBufferPointer { keys in
      order.withUnsafeBufferPointer { order in
        sortedX.withUnsafeBufferPointer { sortedX in
          sortedY.withUnsafeBufferPointer { sortedY in
            starts.withUnsafeMutableBufferPointer { starts in
              counts.withUnsafeMutableBufferPointer { counts in
                // For the rows above, at and below the current cell: where the keys from column
                // - 1 to column + 1 start and end in the sorted keys.
                var low = (0, 0, 0)
                var high = (0, 0, 0)
                func span(
                  _ row: UInt64, _ from: UInt64, _ through: UInt64, _ l: inout Int, _ h: inout Int
                ) {
                  let first = row << columnBits | from
                  let last = row << columnBits | through
                  while l < n && keys[l] < first { l += 1 }
                  if h < l { h = l }
                  while h < n && keys[h] <= last { h += 1 }
                }
                var start = 0
                while start < n && !overflow {
                  let key = keys[start]
                  var end = start + 1
                  while end < n && keys[end] == key { end += 1 }
                  let row = key >> columnBits
                  let column = key & columnMask
                  let from = column == 0 ? 0 : column - 1
                  let through = min(column + 1, columns - 1)
                  if row > 0 {
                    span(row - 1, from, through, &low.0, &high.0)
                  } else {
                    high.0 = low.0
                  }
                  span(row, from, through, &low.1, &high.1)
                  if row + 1 < rows {
                    span(row + 1, from, through, &low.2, &high.2)
                  } else {
                    high.2 = low.2
                  }
                  // A cell alone in its neighbourhood: its items have no neighbours.
                  if high.0 - low.0 + high.1 - low.1 + high.2 - low.2 > 1 {
                    for k in start..<end {
                      let item = order[k]
                      let qx = queryX[Int(item)]
                      let qy = queryY[Int(item)]
                      var count: UInt32 = 0
                      let begin = found.count
                      func scan(_ from: Int, _ to: Int) {
                        for c in from..<to where c != k {
                          let dx = Double(sortedX[c]) - qx
                          let dy = Double(sortedY[c]) - qy
                          if dx * dx + dy * dy <= r2 {
                            found.append(order[c])
                            count += 1
                          }
                        }
                      }
                      scan(low.0, high.0)
                      scan(low.1, high.1)
                      scan(low.2, high.2)
                      if count > 0 {
                        guard begin + Int(count) <= Int(UInt32.max) else { overflow = true; return }
                        starts[Int(item)] = UInt32(begin)
                        counts[Int(item)] = count
                      }
                    }
                  }
                  start = end
                }
              }
            }
          }
        }
      }
    }

    if overflow { return nil }
    self.starts = starts
    self.counts = counts
    neighbours = found
  }

  /// Sorts `keys` (of at most `keyBits` significant bits) in place, stably, and returns the
  /// original position of each sorted key.
  static func radixSort(keys: inout [UInt64], keyBits: Int) -> [UInt32] {
    let n = keys.count
    var order = [UInt32](unsafeUninitializedCapacity: n) { buffer, count in
      for i in 0..<n { buffer[i] = UInt32(i) }
      count = n
    }
    if keyBits <= 0 || n < 2 { return order }
    let digitBits = 11
    let radix = 1 << digitBits
    let passes = (keyBits + digitBits - 1) / digitBits
    let mask = UInt64(radix - 1)
    var histograms = [Int](repeating: 0, count: passes * radix)
    var otherKeys = [UInt64](repeating: 0, count: n)
    var otherOrder = [UInt32](repeating: 0, count: n)
    histograms.withUnsafeMutableBufferPointer { histograms in
      keys.withUnsafeBufferPointer { keys in
        for key in keys {
          var shifted = key
          for pass in 0..<passes {
            histograms[pass &* radix &+ Int(shifted & mask)] &+= 1
            shifted >>= UInt64(digitBits)
          }
        }
      }
    }
    for pass in 0..<passes {
      let base = pass * radix
      var sum = 0
      var single = false
      for digit in 0..<radix {
        let count = histograms[base + digit]
        if count == n { single = true }
        histograms[base + digit] = sum
        sum += count
      }
      if single { continue }  // every key has the same digit: this pass would not move them
      let shift = UInt64(pass * digitBits)
      histograms.withUnsafeMutableBufferPointer { histograms in
        keys.withUnsafeBufferPointer { keys in
          order.withUnsafeBufferPointer { order in
            otherKeys.withUnsafeMutableBufferPointer { otherKeys in
              otherOrder.withUnsafeMutableBufferPointer { otherOrder in
                for i in 0..<n {
                  let key = keys[i]
                  let digit = base &+ Int((key >> shift) & mask)
                  let target = histograms[digit]
                  histograms[digit] = target &+ 1
                  otherKeys[target] = key
                  otherOrder[target] = order[i]
                }
              }
            }
          }
        }
      }
      swap(&keys, &otherKeys)
      swap(&order, &otherOrder)
    }
    return order
  }
}
