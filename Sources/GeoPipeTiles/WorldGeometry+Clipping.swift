import GeoPipeCore

extension WorldGeometry {
  /// The part inside `box`, or nil when nothing of length or area is left.
  func clipped(to box: BBox) -> WorldGeometry? {
    if maxX < box.west || minX > box.east || maxY < box.south || minY > box.north { return nil }
    if minX >= box.west && maxX <= box.east && minY >= box.south && maxY <= box.north {
      return self
    }
    switch kind {
    case .point:
      var kept: [Double] = []
      for part in parts {
        var k = 0
        while k + 1 < part.count {
          if box.contains(x: part[k], y: part[k + 1]) { kept += [part[k], part[k + 1]] }
          k += 2
        }
      }
      return kept.isEmpty ? nil : WorldGeometry(kind: .point, parts: [kept])
    case .line:
      let kept = parts.flatMap { TileClipper.clipLine($0, to: box) }.filter(Self.hasLength)
      return kept.isEmpty ? nil : WorldGeometry(kind: .line, parts: kept)
    case .polygon:
      var kept: [[Double]] = []
      var counts: [Int] = []
      var index = 0
      let full = (box.east - box.west) * (box.north - box.south)
      polygons: for count in ringCounts {
        defer { index += count }
        let exterior = TileClipper.clipRing(parts[index], to: box)
        if Self.isEmptyRing(exterior, in: box) { continue }
        var rings = [exterior]
        for r in 1..<max(count, 1) {
          let hole = TileClipper.clipRing(parts[index + r], to: box)
          if Self.isEmptyRing(hole, in: box) { continue }
          // A hole that covers the whole box leaves nothing of its polygon here.
          if abs(Self.ringArea(hole, origin: box)) >= full * (1 - 1e-9) { continue polygons }
          rings.append(hole)
        }
        kept += rings
        counts.append(rings.count)
      }
      return counts.isEmpty ? nil : WorldGeometry(kind: .polygon, parts: kept, ringCounts: counts)
    }
  }

  /// Whether this is a polygon whose only ring is the whole of `box`.
  func isBox(_ box: BBox) -> Bool {
    guard kind == .polygon, ringCounts == [1], minX == box.west, maxX == box.east,
      minY == box.south, maxY == box.north
    else { return false }
    let ring = parts[0]
    var k = 0
    while k + 1 < ring.count {
      let onEdge =
        ring[k] == box.west || ring[k] == box.east || ring[k + 1] == box.south
        || ring[k + 1] == box.north
      if !onEdge { return false }
      k += 2
    }
    let full = (box.east - box.west) * (box.north - box.south)
    return abs(Self.ringArea(ring, origin: box)) >= full * (1 - 1e-9)
  }

  /// The geometry moved by `dx` world widths.
  func shifted(by dx: Double) -> WorldGeometry {
    var moved = parts
    for p in moved.indices {
      var k = 0
      while k < moved[p].count {
        moved[p][k] += dx
        k += 2
      }
    }
    return WorldGeometry(kind: kind, parts: moved, ringCounts: ringCounts)
  }

  /// Adds the parts (and polygons) of `other`, of the same kind.
  mutating func append(_ other: WorldGeometry) {
    self = WorldGeometry(
      kind: kind, parts: parts + other.parts, ringCounts: ringCounts + other.ringCounts)
  }

  static func hasLength(_ line: [Double]) -> Bool {
    var k = 2
    while k + 1 < line.count {
      if line[k] != line[0] || line[k + 1] != line[1] { return true }
      k += 2
    }
    return false
  }

  /// Whether a clipped ring is left with no area.
  ///
  /// That is fewer than three points, or only points on the box's edges enclosing (next to)
  /// nothing, which Sutherland–Hodgman leaves of a ring that passes round the box. Such a sliver is at most a billionth of the box and lies along
  /// its edge, outside every child's box.
  static func isEmptyRing(_ ring: [Double], in box: BBox) -> Bool {
    guard ring.count >= 6 else { return true }
    var k = 0
    while k + 1 < ring.count {
      if ring[k] > box.west && ring[k] < box.east && ring[k + 1] > box.south
        && ring[k + 1] < box.north
      {
        return false
      }
      k += 2
    }
    let full = (box.east - box.west) * (box.north - box.south)
    return abs(ringArea(ring, origin: box)) <= full * 1e-9
  }

  /// The signed area of a ring (shoelace), measured from the box's corner to keep the
  /// products small.
  static func ringArea(_ ring: [Double], origin box: BBox) -> Double {
    let n = ring.count / 2
    guard n >= 3 else { return 0 }
    var sum = 0.0
    for i in 0..<n {
      let j = (i + 1) % n
      sum +=
        (ring[2 * i] - box.west) * (ring[2 * j + 1] - box.south)
        - (ring[2 * j] - box.west) * (ring[2 * i + 1] - box.south)
    }
    return sum / 2
  }
}
