import GeoPipeCore
import GeoPipeSQLite

/// Fills an empty SQLite R-tree (`CREATE VIRTUAL TABLE … USING rtree`) by packing: entries in
/// Hilbert order, as many to a leaf as a node holds, and the levels above built the same way
/// from the nodes' boxes, written straight into the R-tree's shadow tables.
///
/// Inserting row by row runs SQLite's R*-tree insertion (choose a leaf, split, reinsert) for
/// every entry, which takes most of the time of writing a large layer; a packed tree is built
/// in one pass over the sorted entries, and SQLite reads, queries and updates it as any other
/// (the node layout is that of SQLite's rtree.c: a 2-byte depth, a 2-byte cell count, then
/// cells of a 64-bit id and four 32-bit floats, all big-endian, min values rounded down and
/// max values up).
enum GeoPackageRTree {
  /// A node's or an entry's box, rounded outwards to 32-bit floats.
  struct Box {
    var minX: Float
    var maxX: Float
    var minY: Float
    var maxY: Float

    init(minX: Double, maxX: Double, minY: Double, maxY: Double) {
      self.minX = down(minX)
      self.maxX = up(maxX)
      self.minY = down(minY)
      self.maxY = up(maxY)
    }

    mutating func extend(_ other: Box) {
      minX = min(minX, other.minX)
      maxX = max(maxX, other.maxX)
      minY = min(minY, other.minY)
      maxY = max(maxY, other.maxY)
    }
  }

  /// Packs the entries `entries` hands over into the empty R-tree `name`.
  ///
  /// Entries are ids and boxes, in the order to pack them. Which leaf holds each id waits in `leaves` (an empty sorter) to
  /// be written in id order, as SQLite's B-tree takes rows fastest.
  static func load(
    _ database: SQLiteDatabase, name: String, leaves: RTreeEntrySorter,
    entries: ((_ id: Int64, _ box: Box) throws -> Void) throws -> Void
  ) throws {
    let root = try database.statement(
      "SELECT length(data) FROM \(quoted(name + "_node")) WHERE nodeno = 1")
    guard try root.step() else { return }
    let nodeSize = Int(root.int64(0))
    root.reset()
    let capacity = (nodeSize - 4) / 24
    guard capacity >= 2 else { return }
    let writeNode = try database.statement(
      "INSERT OR REPLACE INTO \(quoted(name + "_node")) (nodeno, data) VALUES (?1, ?2)")
    let writeParent = try database.statement(
      "INSERT INTO \(quoted(name + "_parent")) (nodeno, parentnode) VALUES (?1, ?2)")
    let writeRowID = try database.statement(
      "INSERT INTO \(quoted(name + "_rowid")) (rowid, nodeno) VALUES (?1, ?2)")

    var node = Node(size: nodeSize)
    var next: Int64 = 2
    var level: [(id: Int64, box: Box)] = []
    var members: [Int64] = []
    func flushLeaf() throws {
      let number = next
      next += 1
      try write(node, as: number, with: writeNode)
      for id in members {
        try leaves.append(RTreeEntry(key: id, id: number, box: node.box))
      }
      level.append((number, node.box))
      node.clear()
      members.removeAll(keepingCapacity: true)
    }
    try entries { id, box in
      node.append(id, box)
      members.append(id)
      if node.count == capacity { try flushLeaf() }
    }
    if node.count > 0 { try flushLeaf() }
    guard !level.isEmpty else { return }
    // One leaf is the root: node 1, depth 0.
    let leafIsRoot = level.count == 1
    if leafIsRoot {
      try database.execute(
        "UPDATE \(quoted(name + "_node")) SET data = (SELECT data FROM "
          + "\(quoted(name + "_node")) WHERE nodeno = 2) WHERE nodeno = 1; "
          + "DELETE FROM \(quoted(name + "_node")) WHERE nodeno = 2")
    }
    try leaves.sorted { entry in
      writeRowID.reset()
      try writeRowID.bind(.integer(entry.key), .integer(leafIsRoot ? 1 : entry.id)).run()
    }
    if leafIsRoot { return }
    var depth = 0
    while true {
      depth += 1
      let isRoot = level.count <= capacity
      var above: [(id: Int64, box: Box)] = []
      var start = 0
      while start < level.count {
        let end = min(start + capacity, level.count)
        let number: Int64 = isRoot ? 1 : next
        if !isRoot { next += 1 }
        node.clear()
        if isRoot { node.depth = depth }
        for child in level[start..<end] {
          node.append(child.id, child.box)
          writeParent.reset()
          try writeParent.bind(.integer(child.id), .integer(number)).run()
        }
        try write(node, as: number, with: writeNode)
        above.append((number, node.box))
        start = end
      }
      if isRoot { return }
      level = above
    }
  }

  /// A node being filled.
  struct Node {
    var bytes: [UInt8]
    var count = 0
    var box = Box(minX: .infinity, maxX: -.infinity, minY: .infinity, maxY: -.infinity)
    var depth = 0

    init(size: Int) {
      bytes = [UInt8](repeating: 0, count: size)
    }

    mutating func clear() {
      for k in bytes.indices { bytes[k] = 0 }
      count = 0
      depth = 0
      box = Box(minX: .infinity, maxX: -.infinity, minY: .infinity, maxY: -.infinity)
    }

    mutating func append(_ id: Int64, _ cell: Box) {
      var offset = 4 + count * 24
      withUnsafeBytes(of: UInt64(bitPattern: id).bigEndian) { raw in
        for byte in raw {
          bytes[offset] = byte
          offset += 1
        }
      }
      func put(_ value: Float) {
        let bits = value.bitPattern
        bytes[offset] = UInt8(bits >> 24)
        bytes[offset + 1] = UInt8((bits >> 16) & 0xFF)
        bytes[offset + 2] = UInt8((bits >> 8) & 0xFF)
        bytes[offset + 3] = UInt8(bits & 0xFF)
        offset += 4
      }
      put(cell.minX)
      put(cell.maxX)
      put(cell.minY)
      put(cell.maxY)
      count += 1
      box.extend(cell)
    }
  }

  private static func write(_ node: Node, as number: Int64, with statement: SQLiteStatement)
    throws
  {
    var bytes = node.bytes
    bytes[0] = UInt8(node.depth >> 8)
    bytes[1] = UInt8(node.depth & 0xFF)
    bytes[2] = UInt8(node.count >> 8)
    bytes[3] = UInt8(node.count & 0xFF)
    statement.reset()
    try statement.bind(.integer(number), .blob(bytes)).run()
  }

  /// The largest float not above `x`.
  static func down(_ x: Double) -> Float {
    let f = Float(x)
    return Double(f) > x ? f.nextDown : f
  }

  /// The smallest float not below `x`.
  static func up(_ x: Double) -> Float {
    let f = Float(x)
    return Double(f) < x ? f.nextUp : f
  }

  /// The position of a box's centre on a Hilbert curve over the WGS84 world (2^16 cells a
  /// side), the order entries are packed in.
  static func hilbert(_ box: BBox) -> Int64 {
    let side = 65535.0
    let cx = ((box.west + box.east) / 2 + 180) / 360
    let cy = ((box.south + box.north) / 2 + 90) / 180
    var x = UInt32((min(max(cx, 0), 1) * side).rounded(.down))
    var y = UInt32((min(max(cy, 0), 1) * side).rounded(.down))
    var d: UInt64 = 0
    var s: UInt32 = 1 << 15
    while s > 0 {
      let rx: UInt32 = x & s != 0 ? 1 : 0
      let ry: UInt32 = y & s != 0 ? 1 : 0
      d += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
      if ry == 0 {
        if rx == 1 {
          x = 65535 - x
          y = 65535 - y
        }
        swap(&x, &y)
      }
      s >>= 1
    }
    return Int64(d)
  }
}
