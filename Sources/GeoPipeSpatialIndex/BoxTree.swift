/// A static R-tree of boxes, packed with the Sort-Tile-Recursive method (Leutenegger et al.,
/// 1997): built once from all the boxes, then searched for the boxes that meet a query box.
///
/// Items are the boxes' indices in the array given; a search visits them in ascending index
/// order, so that answers do not depend on how the tree was packed.
public struct BoxTree: Sendable {
  /// A box: `minX...maxX` × `minY...maxY`.
  public struct Box: Sendable, Equatable {
    /// The west (smallest x).
    public var minX: Double
    /// The south (smallest y).
    public var minY: Double
    /// The east (largest x).
    public var maxX: Double
    /// The north (largest y).
    public var maxY: Double

    /// Creates a box.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
      self.minX = minX
      self.minY = minY
      self.maxX = maxX
      self.maxY = maxY
    }

    /// Whether the boxes share a point (edges included).
    @inline(__always)
    public func meets(_ other: Box) -> Bool {
      minX <= other.maxX && other.minX <= maxX && minY <= other.maxY && other.minY <= maxY
    }

    func union(_ other: Box) -> Box {
      Box(
        minX: Swift.min(minX, other.minX), minY: Swift.min(minY, other.minY),
        maxX: Swift.max(maxX, other.maxX), maxY: Swift.max(maxY, other.maxY))
    }
  }

  /// Entries per node.
  public let nodeSize: Int
  /// Node boxes, level by level from the leaves up; the last is the root.
  private var boxes: [Box] = []
  /// For a leaf entry, the item's index; for an inner entry, the index of its first child.
  private var refs: [Int] = []
  /// Where each level starts in `boxes` (plus the end).
  private var levelBounds: [Int] = []
  /// The number of items.
  public let count: Int

  /// Packs `items`, `nodeSize` entries a node.
  public init(_ items: [Box], nodeSize: Int = 16) {
    self.nodeSize = max(2, nodeSize)
    count = items.count
    guard !items.isEmpty else { return }
    // Leaves: sort by the centres' x into vertical slices, each slice by y.
    let leafCount = (items.count + self.nodeSize - 1) / self.nodeSize
    let slices = Int(Double(leafCount).squareRoot().rounded(.up))
    let perSlice = slices * self.nodeSize
    var order = Array(items.indices)
    order.sort {
      centreX(items[$0]) < centreX(items[$1])
        || (centreX(items[$0]) == centreX(items[$1]) && $0 < $1)
    }
    var start = 0
    while start < order.count {
      let end = min(start + perSlice, order.count)
      order[start..<end].sort {
        centreY(items[$0]) < centreY(items[$1])
          || (centreY(items[$0]) == centreY(items[$1]) && $0 < $1)
      }
      start = end
    }
    boxes = order.map { items[$0] }
    refs = order
    levelBounds = [0, boxes.count]
    // Inner levels: consecutive runs of `nodeSize` entries.
    var levelStart = 0
    var levelEnd = boxes.count
    while levelEnd - levelStart > 1 {
      var k = levelStart
      while k < levelEnd {
        let end = min(k + self.nodeSize, levelEnd)
        var box = boxes[k]
        for j in (k + 1)..<end { box = box.union(boxes[j]) }
        boxes.append(box)
        refs.append(k)
        k = end
      }
      levelStart = levelEnd
      levelEnd = boxes.count
      levelBounds.append(levelEnd)
    }
  }

  /// The indices of the items whose boxes meet `query`, in ascending order.
  public func search(_ query: Box) -> [Int] {
    var found: [Int] = []
    guard !boxes.isEmpty else { return found }
    // Ranges of entries to test, and their level.
    let top = levelBounds.count - 2
    var stack: [(start: Int, end: Int, level: Int)] = [(boxes.count - 1, boxes.count, top)]
    while let (start, end, level) = stack.popLast() {
      for k in start..<end where boxes[k].meets(query) {
        if level == 0 {
          found.append(refs[k])
        } else {
          stack.append((refs[k], min(refs[k] + nodeSize, levelBounds[level]), level - 1))
        }
      }
    }
    found.sort()
    return found
  }

  private func centreX(_ box: Box) -> Double { box.minX / 2 + box.maxX / 2 }
  private func centreY(_ box: Box) -> Double { box.minY / 2 + box.maxY / 2 }
}
