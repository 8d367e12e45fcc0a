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
      for count in ringCounts {
        defer { index += count }
        for polygon in RectangleClipper.clip(parts[index..<index + count], to: box) {
          kept += polygon
          counts.append(polygon.count)
        }
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
    return abs(RectangleClipper.signedArea(ring)) / 2 >= full * (1 - 1e-9)
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
}
