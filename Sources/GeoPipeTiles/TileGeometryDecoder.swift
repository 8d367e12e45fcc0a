import GeoPipeCore

/// Turns a feature's geometry commands (MVT 2.1 §4.3) into a GeoJSON geometry in integer tile
/// coordinates (x east, y down from the tile's top-left corner).
///
/// Points become a Point or MultiPoint, lines a LineString or MultiLineString. Polygon rings
/// are told apart by their area in tile coordinates, as §4.3.4.4 defines: a ring of positive
/// area (clockwise on screen) starts a polygon and the negative rings after it are its holes.
/// A negative ring before any positive one starts a polygon of its own, and rings of zero
/// area, which enclose nothing, are left out. Rings are closed by repeating their first point.
enum TileGeometryDecoder {
  /// The geometry, or nil when the commands draw nothing (an unknown geometry type, no
  /// commands, or only rings of zero area).
  static func decode(_ commands: [UInt32], type: UInt8) throws -> Geometry? {
    guard type != 0 else { return nil }
    let parts = try self.parts(commands, type: type)
    switch type {
    case 1:
      let points = parts.flatMap { $0 }
      if points.count == 1 { return .point(Position(x: points[0].x, y: points[0].y)) }
      return points.isEmpty ? nil : .multiPoint(coordinates(points))
    case 2:
      let lines = parts.map(coordinates)
      if lines.count == 1 { return .lineString(lines[0]) }
      return lines.isEmpty ? nil : .multiLineString(lines)
    default:
      var polygons: [[CoordinateArray]] = []
      for part in parts {
        var ring = coordinates(part)
        ring.append(ring[0])
        let area = ring.signedDoubleArea
        if area > 0 || (area < 0 && polygons.isEmpty) {
          polygons.append([ring])
        } else if area < 0 {
          polygons[polygons.count - 1].append(ring)
        }
      }
      if polygons.count == 1 { return .polygon(polygons[0]) }
      return polygons.isEmpty ? nil : .multiPolygon(polygons)
    }
  }

  /// The runs of points each MoveTo starts (a point feature's MoveTo points are one run each).
  private static func parts(_ commands: [UInt32], type: UInt8) throws -> [[(x: Double, y: Double)]]
  {
    var parts: [[(x: Double, y: Double)]] = []
    var x: Int64 = 0
    var y: Int64 = 0
    var k = 0
    var closed = true
    while k < commands.count {
      let id = commands[k] & 7
      let count = Int(commands[k] >> 3)
      k += 1
      switch id {
      case 1, 2:
        guard count > 0, count <= (commands.count - k) / 2 else {
          throw TilesError("a command's \(count) points run past the end of the geometry")
        }
        if id == 2 && type == 1 { throw TilesError("a point feature has a LineTo") }
        if id == 2 && (parts.isEmpty || closed && type == 3) {
          throw TilesError("a LineTo comes before any MoveTo")
        }
        if id == 1 {
          if type == 3 && !closed { throw TilesError("a ring is not closed before the next") }
          if type != 1 && count != 1 {
            throw TilesError("a MoveTo of a line or ring has \(count) points")
          }
          if type != 1 || parts.isEmpty { parts.append([]) }
          closed = false
        }
        for _ in 0..<count {
          x += Int64(ProtobufDecoder.unzigzag(commands[k]))
          y += Int64(ProtobufDecoder.unzigzag(commands[k + 1]))
          k += 2
          parts[parts.count - 1].append((Double(x), Double(y)))
        }
      case 7:
        guard type == 3, count == 1, !closed else {
          throw TilesError("a ClosePath where no ring is open")
        }
        guard parts[parts.count - 1].count >= 3 else {
          throw TilesError("a ring has fewer than 3 points")
        }
        closed = true
      default:
        throw TilesError("command \(id) is not MoveTo, LineTo or ClosePath")
      }
    }
    if type == 3 && !closed { throw TilesError("the last ring is not closed") }
    if type == 2, let short = parts.first(where: { $0.count < 2 }) {
      throw TilesError("a line has \(short.count) point")
    }
    return parts
  }

  private static func coordinates(_ points: [(x: Double, y: Double)]) -> CoordinateArray {
    var storage: [Double] = []
    storage.reserveCapacity(points.count * 2 + 2)
    for point in points {
      storage.append(point.x)
      storage.append(point.y)
    }
    return CoordinateArray(storage: storage, dimension: 2)
  }
}
