import GeoPipeCore

/// Writes features and geometries as GeoJSON text (RFC 7946).
public struct GeoJSONEncoder: Sendable {
  /// Rewind polygon rings to RFC 7946 §3.1.6 (exteriors counter-clockwise).
  public var rewind = true
  /// Round coordinates to this many decimal places.
  public var precision: Int?

  /// Creates an encoder.
  public init(rewind: Bool = true, precision: Int? = nil) {
    self.rewind = rewind
    self.precision = precision
  }

  /// Appends one compact Feature object.
  public func encode(_ feature: Feature, into w: inout JSONTextWriter) {
    w.raw("{\"type\":\"Feature\"")
    if let id = feature.id {
      w.raw(",\"id\":")
      w.writeValue(id)
    }
    let geometry = rewind ? feature.geometry?.rewound() : feature.geometry
    if let bbox = feature.bbox {
      w.raw(",\"bbox\":")
      writeBBox(bbox, matching: geometry, into: &w)
    }
    w.raw(",\"properties\":")
    if let properties = feature.properties { w.writeObject(properties) } else { w.raw("null") }
    w.raw(",\"geometry\":")
    if let geometry { encode(geometry, into: &w) } else { w.raw("null") }
    for member in feature.foreignMembers.members {
      w.bytes.append(0x2C)
      w.writeString(member.key)
      w.bytes.append(0x3A)
      w.writeValue(member.value)
    }
    w.bytes.append(0x7D)
  }

  /// Appends a geometry object.
  public func encode(_ geometry: Geometry, into w: inout JSONTextWriter) {
    switch geometry {
    case .point(let p):
      w.raw("{\"type\":\"Point\",\"coordinates\":")
      writePosition(p, into: &w)
    case .multiPoint(let c):
      w.raw("{\"type\":\"MultiPoint\",\"coordinates\":")
      writePositions(c, into: &w)
    case .lineString(let c):
      w.raw("{\"type\":\"LineString\",\"coordinates\":")
      writePositions(c, into: &w)
    case .multiLineString(let lines):
      w.raw("{\"type\":\"MultiLineString\",\"coordinates\":")
      writeLines(lines, into: &w)
    case .polygon(let rings):
      w.raw("{\"type\":\"Polygon\",\"coordinates\":")
      writeLines(rings, into: &w)
    case .multiPolygon(let polygons):
      w.raw("{\"type\":\"MultiPolygon\",\"coordinates\":[")
      for (k, rings) in polygons.enumerated() {
        if k > 0 { w.bytes.append(0x2C) }
        writeLines(rings, into: &w)
      }
      w.bytes.append(0x5D)
    case .geometryCollection(let members):
      w.raw("{\"type\":\"GeometryCollection\",\"geometries\":[")
      for (k, member) in members.enumerated() {
        if k > 0 { w.bytes.append(0x2C) }
        encode(member, into: &w)
      }
      w.bytes.append(0x5D)
    }
    w.bytes.append(0x7D)
  }

  private func writePosition(_ p: Position, into w: inout JSONTextWriter) {
    w.bytes.append(0x5B)
    w.writeCoordinate(p.x, precision: precision)
    w.bytes.append(0x2C)
    w.writeCoordinate(p.y, precision: precision)
    if !p.z.isNaN {
      w.bytes.append(0x2C)
      w.writeCoordinate(p.z, precision: precision)
      if !p.m.isNaN {
        w.bytes.append(0x2C)
        w.writeCoordinate(p.m, precision: precision)
      }
    }
    w.bytes.append(0x5D)
  }

  private func writePositions(_ c: CoordinateArray, into w: inout JSONTextWriter) {
    w.bytes.append(0x5B)
    let d = c.dimension
    c.storage.withUnsafeBufferPointer { s in
      var k = 0
      while k < s.count {
        if k > 0 { w.bytes.append(0x2C) }
        w.bytes.append(0x5B)
        w.writeCoordinate(s[k], precision: precision)
        w.bytes.append(0x2C)
        w.writeCoordinate(s[k + 1], precision: precision)
        if d > 2 && !s[k + 2].isNaN {
          w.bytes.append(0x2C)
          w.writeCoordinate(s[k + 2], precision: precision)
          if d > 3 && !s[k + 3].isNaN {
            w.bytes.append(0x2C)
            w.writeCoordinate(s[k + 3], precision: precision)
          }
        }
        w.bytes.append(0x5D)
        k += d
      }
    }
    w.bytes.append(0x5D)
  }

  private func writeLines(_ lines: [CoordinateArray], into w: inout JSONTextWriter) {
    w.bytes.append(0x5B)
    for (k, line) in lines.enumerated() {
      if k > 0 { w.bytes.append(0x2C) }
      writePositions(line, into: &w)
    }
    w.bytes.append(0x5D)
  }

  /// Writes the feature's bbox, recomputed when it no longer matches the geometry (an
  /// antimeridian-crossing box is kept while it still contains every position).
  private func writeBBox(
    _ bbox: [Double], matching geometry: Geometry?, into w: inout JSONTextWriter
  ) {
    var values = bbox
    if let geometry, let box = geometry.bbox {
      let half = bbox.count / 2
      let crossing = bbox[0] > bbox[half]
      let given = BBox(west: bbox[0], south: bbox[1], east: bbox[half], north: bbox[half + 1])
      let keep =
        crossing
        ? given.contains(x: box.west, y: box.south) && given.contains(x: box.east, y: box.north)
          && !(box.west > given.east && box.east < given.west)
        : given == box
      if !keep {
        values = [box.west, box.south, box.east, box.north]
        if half == 3 {
          var low = Double.infinity
          var high = -Double.infinity
          geometry.forEachZ { z in
            low = min(low, z)
            high = max(high, z)
          }
          if low <= high { values = [box.west, box.south, low, box.east, box.north, high] }
        }
      }
    }
    w.bytes.append(0x5B)
    for (k, value) in values.enumerated() {
      if k > 0 { w.bytes.append(0x2C) }
      w.writeCoordinate(value)
    }
    w.bytes.append(0x5D)
  }
}
