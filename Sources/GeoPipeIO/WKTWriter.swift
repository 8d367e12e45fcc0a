import GeoPipeCore

/// Writes geometries as Well-Known Text, with shortest round-trip numbers.
public enum WKTWriter {
  /// The WKT of `geometry` (`POINT Z (1 2 3)` when it has altitudes).
  public static func string(_ geometry: Geometry, precision: Int? = nil) -> String {
    var w = JSONTextWriter()
    write(geometry, into: &w, precision: precision, tagged: true)
    return String(decoding: w.bytes, as: UTF8.self)
  }

  private static func write(
    _ g: Geometry, into w: inout JSONTextWriter, precision: Int?, tagged: Bool
  ) {
    // Collection members carry their own dimension tag.
    let collection = g.kind == .geometryCollection
    let z = g.hasZ && !collection
    let m = hasMeasure(g) && !collection
    w.bytes.append(contentsOf: g.typeName.uppercased().utf8)
    if z && m { w.raw(" ZM") } else if z { w.raw(" Z") } else if m { w.raw(" M") }
    let dims = Dimensions(z: z, m: m)
    switch g {
    case .point(let p):
      w.raw(" (")
      position(p, dims, into: &w, precision: precision)
      w.raw(")")
    case .multiPoint(let c), .lineString(let c):
      if c.isEmpty {
        w.raw(" EMPTY")
      } else {
        w.raw(" ")
        positions(c, dims, into: &w, precision: precision)
      }
    case .multiLineString(let lines), .polygon(let lines):
      if lines.isEmpty {
        w.raw(" EMPTY")
      } else {
        w.raw(" ")
        rings(lines, dims, into: &w, precision: precision)
      }
    case .multiPolygon(let polygons):
      if polygons.isEmpty {
        w.raw(" EMPTY")
      } else {
        w.raw(" (")
        for (k, polygon) in polygons.enumerated() {
          if k > 0 { w.raw(", ") }
          rings(polygon, dims, into: &w, precision: precision)
        }
        w.raw(")")
      }
    case .geometryCollection(let members):
      if members.isEmpty {
        w.raw(" EMPTY")
      } else {
        w.raw(" (")
        for (k, member) in members.enumerated() {
          if k > 0 { w.raw(", ") }
          write(member, into: &w, precision: precision, tagged: true)
        }
        w.raw(")")
      }
    }
  }

  private struct Dimensions {
    var z: Bool
    var m: Bool
  }

  private static func hasMeasure(_ g: Geometry) -> Bool {
    switch g {
    case .point(let p): !p.m.isNaN
    case .multiPoint(let c), .lineString(let c): c.contains { !$0.m.isNaN }
    case .multiLineString(let lines), .polygon(let lines):
      lines.contains { $0.contains { !$0.m.isNaN } }
    case .multiPolygon(let polygons):
      polygons.contains { $0.contains { $0.contains { !$0.m.isNaN } } }
    case .geometryCollection(let members): members.contains(where: hasMeasure)
    }
  }

  private static func position(
    _ p: Position, _ dims: Dimensions, into w: inout JSONTextWriter, precision: Int?
  ) {
    w.writeCoordinate(p.x, precision: precision)
    w.raw(" ")
    w.writeCoordinate(p.y, precision: precision)
    // A missing ordinate in a geometry that has it elsewhere is written NaN, as GEOS does.
    for (present, value) in [(dims.z, p.z), (dims.m, p.m)] where present {
      w.raw(" ")
      if value.isNaN { w.raw("NaN") } else { w.writeCoordinate(value, precision: precision) }
    }
  }

  private static func positions(
    _ c: CoordinateArray, _ dims: Dimensions, into w: inout JSONTextWriter, precision: Int?
  ) {
    w.raw("(")
    for k in 0..<c.count {
      if k > 0 { w.raw(", ") }
      position(c[k], dims, into: &w, precision: precision)
    }
    w.raw(")")
  }

  private static func rings(
    _ lines: [CoordinateArray], _ dims: Dimensions, into w: inout JSONTextWriter, precision: Int?
  ) {
    w.raw("(")
    for (k, line) in lines.enumerated() {
      if k > 0 { w.raw(", ") }
      positions(line, dims, into: &w, precision: precision)
    }
    w.raw(")")
  }
}
