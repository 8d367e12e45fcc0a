import GeoPipeCore

/// Writes geometries as Well-Known Text, with shortest round-trip numbers.
public enum WKTWriter {
  /// The WKT of `geometry` (`POINT Z (1 2 3)` when it has altitudes).
  public static func string(_ geometry: Geometry, precision: Int? = nil) -> String {
    var w = JSONTextWriter()
    write(geometry, into: &w, precision: precision, tagged: true)
    return String(decoding: w.bytes, as: UTF8.self)
  }

  private static func write(_ g: Geometry, into w: inout JSONTextWriter, precision: Int?, tagged: Bool) {
    // Collection members carry their own dimension tag.
    let z = g.hasZ && g.kind != .geometryCollection
    w.bytes.append(contentsOf: g.typeName.uppercased().utf8)
    if z { w.raw(" Z") }
    switch g {
    case .point(let p):
      w.raw(" (")
      position(p, z: z, into: &w, precision: precision)
      w.raw(")")
    case .multiPoint(let c), .lineString(let c):
      if c.isEmpty { w.raw(" EMPTY") } else {
        w.raw(" ")
        positions(c, z: z, into: &w, precision: precision)
      }
    case .multiLineString(let lines), .polygon(let lines):
      if lines.isEmpty { w.raw(" EMPTY") } else {
        w.raw(" ")
        rings(lines, z: z, into: &w, precision: precision)
      }
    case .multiPolygon(let polygons):
      if polygons.isEmpty { w.raw(" EMPTY") } else {
        w.raw(" (")
        for (k, polygon) in polygons.enumerated() {
          if k > 0 { w.raw(", ") }
          rings(polygon, z: z, into: &w, precision: precision)
        }
        w.raw(")")
      }
    case .geometryCollection(let members):
      if members.isEmpty { w.raw(" EMPTY") } else {
        w.raw(" (")
        for (k, member) in members.enumerated() {
          if k > 0 { w.raw(", ") }
          write(member, into: &w, precision: precision, tagged: true)
        }
        w.raw(")")
      }
    }
  }

  private static func position(_ p: Position, z: Bool, into w: inout JSONTextWriter, precision: Int?) {
    w.writeCoordinate(p.x, precision: precision)
    w.raw(" ")
    w.writeCoordinate(p.y, precision: precision)
    if z {
      w.raw(" ")
      // A position without altitude in a 3D geometry is written with NaN, as GEOS does.
      if p.z.isNaN { w.raw("NaN") } else { w.writeCoordinate(p.z, precision: precision) }
    }
  }

  private static func positions(_ c: CoordinateArray, z: Bool, into w: inout JSONTextWriter, precision: Int?) {
    w.raw("(")
    for k in 0..<c.count {
      if k > 0 { w.raw(", ") }
      position(c[k], z: z, into: &w, precision: precision)
    }
    w.raw(")")
  }

  private static func rings(_ lines: [CoordinateArray], z: Bool, into w: inout JSONTextWriter, precision: Int?) {
    w.raw("(")
    for (k, line) in lines.enumerated() {
      if k > 0 { w.raw(", ") }
      positions(line, z: z, into: &w, precision: precision)
    }
    w.raw(")")
  }
}
