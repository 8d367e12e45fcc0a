/// FlatGeobuf's static packed Hilbert R-tree: its layout, its search and its construction.
///
/// The tree is an array of 40-byte nodes (minX, minY, maxX, maxY as doubles, then a 64-bit
/// offset), root first, each level after the one above it, the leaves last. A leaf's offset is
/// its feature's byte offset in the features section; an inner node's is the index of its
/// first child node, whose children are the `nodeSize` nodes from there (fewer at a level's
/// end).
enum PackedRTree {
  static let nodeBytes = 40

  /// The node index ranges of each level, leaves first, root last; nil when the counts are
  /// impossible (a node size below 2, or a tree larger than `Int` can count).
  static func levelBounds(items: Int, nodeSize: Int) -> [Range<Int>]? {
    guard items > 0, nodeSize >= 2 else { return nil }
    var counts = [items]
    var n = items
    var total = items
    repeat {
      n = (n + nodeSize - 1) / nodeSize
      let (sum, overflow) = total.addingReportingOverflow(n)
      guard !overflow else { return nil }
      total = sum
      counts.append(n)
    } while n != 1
    guard total <= Int.max / nodeBytes else { return nil }
    var bounds: [Range<Int>] = []
    var end = total
    for count in counts {
      bounds.append(end - count..<end)
      end -= count
    }
    return bounds
  }

  /// The tree's size in bytes; nil when it has no valid layout.
  static func size(items: Int, nodeSize: Int) -> Int? {
    guard let bounds = levelBounds(items: items, nodeSize: nodeSize) else { return nil }
    return (bounds.first?.upperBound ?? 0) * nodeBytes
  }

  /// A leaf that a search found.
  struct Hit {
    /// The feature's byte offset in the features section.
    var offset: Int
    /// The feature's index in the file.
    var index: Int
    /// The next leaf's offset, when it was read with this one (the feature ends there when
    /// features are in leaf order).
    var nextOffset: Int?
  }

  /// The leaves whose boxes meet `box` (minX, minY, maxX, maxY), in file order.
  ///
  /// `read(first, count)` returns the bytes of `count` nodes from node `first`; only the nodes
  /// on the way to the hits are read, a run of siblings at a time.
  static func search(
    items: Int, nodeSize: Int, box: [Double],
    read: (_ first: Int, _ count: Int) throws -> [UInt8]
  ) throws -> [Hit] {
    guard let bounds = levelBounds(items: items, nodeSize: nodeSize) else { return [] }
    let leavesStart = bounds[0].lowerBound
    var queue: [(node: Int, level: Int)] = [(0, bounds.count - 1)]
    var hits: [Hit] = []
    while let (node, level) = queue.popLast() {
      guard bounds[level].contains(node) else {
        throw FlatBufferError(
          "index node \(node) is not on its level", at: bounds[level].lowerBound * nodeBytes)
      }
      let end = min(node + nodeSize, bounds[level].upperBound)
      let bytes = try read(node, end - node)
      let isLeaf = level == 0
      for k in 0..<(end - node) {
        let base = k * nodeBytes
        let minX = double(bytes, base)
        let minY = double(bytes, base + 8)
        let maxX = double(bytes, base + 16)
        let maxY = double(bytes, base + 24)
        guard box[2] >= minX, box[3] >= minY, box[0] <= maxX, box[1] <= maxY else { continue }
        let offset = integer(bytes, base + 32)
        if isLeaf {
          let next = k + 1 < end - node ? integer(bytes, base + 32 + nodeBytes) : nil
          hits.append(Hit(offset: offset, index: node + k - leavesStart, nextOffset: next))
        } else {
          queue.append((offset, level - 1))
        }
      }
    }
    hits.sort { $0.offset < $1.offset }
    return hits
  }

  private static func double(_ bytes: [UInt8], _ at: Int) -> Double {
    Double(bitPattern: UInt64(integerAt: at, in: bytes))
  }

  /// A node's offset, clamped to `Int` (a corrupt one is then caught where it is used).
  private static func integer(_ bytes: [UInt8], _ at: Int) -> Int {
    Int(clamping: UInt64(integerAt: at, in: bytes))
  }

  /// Builds the tree over `boxes` (four numbers per item, in the order the features are
  /// written) and `offsets` (each feature's byte offset); returns its bytes.
  static func build(boxes: [Double], offsets: [Int], nodeSize: Int) -> [UInt8] {
    let items = offsets.count
    guard let bounds = levelBounds(items: items, nodeSize: nodeSize) else { return [] }
    let total = bounds[0].upperBound
    var nodes = [Double](repeating: 0, count: 4 * total)
    var links = [Int](repeating: 0, count: total)
    let leavesStart = bounds[0].lowerBound
    for k in 0..<items {
      for j in 0..<4 { nodes[4 * (leavesStart + k) + j] = boxes[4 * k + j] }
      links[leavesStart + k] = offsets[k]
    }
    for level in 0..<bounds.count - 1 {
      var child = bounds[level].lowerBound
      var parent = bounds[level + 1].lowerBound
      while child < bounds[level].upperBound {
        var box = [Double.infinity, .infinity, -Double.infinity, -Double.infinity]
        links[parent] = child
        var j = 0
        while j < nodeSize && child < bounds[level].upperBound {
          box[0] = min(box[0], nodes[4 * child])
          box[1] = min(box[1], nodes[4 * child + 1])
          box[2] = max(box[2], nodes[4 * child + 2])
          box[3] = max(box[3], nodes[4 * child + 3])
          child += 1
          j += 1
        }
        for j in 0..<4 { nodes[4 * parent + j] = box[j] }
        parent += 1
      }
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(total * nodeBytes)
    for k in 0..<total {
      for j in 0..<4 {
        withUnsafeBytes(of: nodes[4 * k + j].bitPattern.littleEndian) {
          bytes.append(contentsOf: $0)
        }
      }
      withUnsafeBytes(of: UInt64(links[k]).littleEndian) { bytes.append(contentsOf: $0) }
    }
    return bytes
  }

  /// The Hilbert value of a box's centre within `extent` on a 2^16 grid, as FlatGeobuf's
  /// writers order features; 0 for an empty box.
  static func hilbertValue(of box: ArraySlice<Double>, in extent: [Double]) -> UInt32 {
    let minX = box[box.startIndex]
    let maxX = box[box.startIndex + 2]
    guard minX <= maxX else { return 0 }
    let width = extent[2] - extent[0]
    let height = extent[3] - extent[1]
    let limit = Double(hilbertMax)
    func cell(_ centre: Double, _ origin: Double, _ span: Double) -> UInt32 {
      guard span > 0 else { return 0 }
      let v = (limit * (centre - origin) / span).rounded(.down)
      return v.isFinite ? UInt32(min(max(v, 0), limit)) : 0
    }
    let x = cell((minX + maxX) / 2, extent[0], width)
    let y = cell((box[box.startIndex + 1] + box[box.startIndex + 3]) / 2, extent[1], height)
    return hilbert(x, y)
  }

  static let hilbertMax: UInt32 = (1 << 16) - 1

  /// The index of (x, y) along a Hilbert curve filling a 2^16 grid (from "Fast Hilbert curve
  /// generation, sorting, and range queries", the form flatbush and FlatGeobuf use).
  static func hilbert(_ x: UInt32, _ y: UInt32) -> UInt32 {
    var a = x ^ y
    var b = 0xFFFF ^ a
    var c = 0xFFFF ^ (x | y)
    var d = x & (y ^ 0xFFFF)
    var A = a | (b >> 1)
    var B = (a >> 1) ^ a
    var C = ((c >> 1) ^ (b & (d >> 1))) ^ c
    var D = ((a & (c >> 1)) ^ (d >> 1)) ^ d

    a = A
    b = B
    c = C
    d = D
    A = (a & (a >> 2)) ^ (b & (b >> 2))
    B = (a & (b >> 2)) ^ (b & ((a ^ b) >> 2))
    C ^= (a & (c >> 2)) ^ (b & (d >> 2))
    D ^= (b & (c >> 2)) ^ ((a ^ b) & (d >> 2))

    a = A
    b = B
    c = C
    d = D
    A = (a & (a >> 4)) ^ (b & (b >> 4))
    B = (a & (b >> 4)) ^ (b & ((a ^ b) >> 4))
    C ^= (a & (c >> 4)) ^ (b & (d >> 4))
    D ^= (b & (c >> 4)) ^ ((a ^ b) & (d >> 4))

    a = A
    b = B
    c = C
    d = D
    C ^= (a & (c >> 8)) ^ (b & (d >> 8))
    D ^= (b & (c >> 8)) ^ ((a ^ b) & (d >> 8))

    a = C ^ (C >> 1)
    b = D ^ (D >> 1)

    var i0 = x ^ y
    var i1 = b | (0xFFFF ^ (i0 | a))

    i0 = (i0 | (i0 << 8)) & 0x00FF_00FF
    i0 = (i0 | (i0 << 4)) & 0x0F0F_0F0F
    i0 = (i0 | (i0 << 2)) & 0x3333_3333
    i0 = (i0 | (i0 << 1)) & 0x5555_5555

    i1 = (i1 | (i1 << 8)) & 0x00FF_00FF
    i1 = (i1 | (i1 << 4)) & 0x0F0F_0F0F
    i1 = (i1 | (i1 << 2)) & 0x3333_3333
    i1 = (i1 | (i1 << 1)) & 0x5555_5555

    return (i1 << 1) | i0
  }
}

extension UInt64 {
  /// The little-endian value at `at` in `bytes` (which must hold 8 bytes there).
  init(integerAt at: Int, in bytes: [UInt8]) {
    self = bytes.withUnsafeBytes {
      UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }
  }
}
