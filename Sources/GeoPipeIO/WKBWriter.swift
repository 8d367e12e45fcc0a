import GeoPipeCore

/// Writes Well-Known Binary geometries (OGC 06-103r4 §8), little-endian.
///
/// `.iso` writes ISO dimension codes (type + 1000 for Z, + 2000 for M, + 3000 for ZM), as
/// GeoPackage and GeoParquet want; `.extended` writes PostGIS's EWKB flags, with the SRID
/// when one is given. A geometry has Z when any of its positions has an altitude, and M when
/// any has a fourth number; positions without one get NaN.
public enum WKBWriter {
  /// Which way dimensions (and an SRID) are marked.
  public enum Flavor: Sendable {
    case iso
    case extended(srid: Int32?)
  }

  /// The geometry's WKB.
  public static func bytes(_ geometry: Geometry, flavor: Flavor = .iso) -> [UInt8] {
    var out: [UInt8] = []
    append(geometry, flavor: flavor, to: &out)
    return out
  }

  /// Appends the geometry's WKB to `out`.
  public static func append(_ geometry: Geometry, flavor: Flavor = .iso, to out: inout [UInt8]) {
    var hasZ = false
    var hasM = false
    measure(geometry, z: &hasZ, m: &hasM)
    write(geometry, layout: Layout(hasZ: hasZ, hasM: hasM, flavor: flavor), top: true, to: &out)
  }

  private struct Layout {
    var hasZ: Bool
    var hasM: Bool
    var flavor: Flavor
  }

  private static func measure(_ geometry: Geometry, z: inout Bool, m: inout Bool) {
    func scan(_ run: CoordinateArray) {
      guard run.dimension > 2 else { return }
      let d = run.dimension
      var k = 0
      while k < run.storage.count && !(z && (m || d < 4)) {
        if !run.storage[k + 2].isNaN { z = true }
        if d > 3 && !run.storage[k + 3].isNaN { m = true }
        k += d
      }
    }
    switch geometry {
    case .point(let p):
      if !p.z.isNaN { z = true }
      if !p.m.isNaN { m = true }
    case .multiPoint(let run), .lineString(let run): scan(run)
    case .multiLineString(let runs), .polygon(let runs): runs.forEach(scan)
    case .multiPolygon(let polygons): polygons.joined().forEach(scan)
    case .geometryCollection(let members):
      for member in members { measure(member, z: &z, m: &m) }
    }
  }

  private static func write(
    _ geometry: Geometry, layout: Layout, top: Bool, to out: inout [UInt8]
  ) {
    func header(_ code: UInt32) {
      out.append(1)
      switch layout.flavor {
      case .iso:
        uint32(code + (layout.hasZ ? 1000 : 0) + (layout.hasM ? 2000 : 0), &out)
      case .extended(let srid):
        var type = code
        if layout.hasZ { type |= 0x8000_0000 }
        if layout.hasM { type |= 0x4000_0000 }
        if top, srid != nil { type |= 0x2000_0000 }
        uint32(type, &out)
        if top, let srid { uint32(UInt32(bitPattern: srid), &out) }
      }
    }
    func position(_ x: Double, _ y: Double, _ z: Double, _ m: Double) {
      double(x, &out)
      double(y, &out)
      if layout.hasZ { double(z, &out) }
      if layout.hasM { double(m, &out) }
    }
    func run(_ c: CoordinateArray) {
      uint32(UInt32(c.count), &out)
      let d = c.dimension
      var k = 0
      while k < c.storage.count {
        position(
          c.storage[k], c.storage[k + 1], d > 2 ? c.storage[k + 2] : .nan,
          d > 3 ? c.storage[k + 3] : .nan)
        k += d
      }
    }
    switch geometry {
    case .point(let p):
      header(1)
      position(p.x, p.y, p.z, p.m)
    case .lineString(let c):
      header(2)
      run(c)
    case .polygon(let rings):
      header(3)
      uint32(UInt32(rings.count), &out)
      rings.forEach(run)
    case .multiPoint(let c):
      header(4)
      uint32(UInt32(c.count), &out)
      for p in c { write(.point(p), layout: layout, top: false, to: &out) }
    case .multiLineString(let lines):
      header(5)
      uint32(UInt32(lines.count), &out)
      for line in lines { write(.lineString(line), layout: layout, top: false, to: &out) }
    case .multiPolygon(let polygons):
      header(6)
      uint32(UInt32(polygons.count), &out)
      for rings in polygons { write(.polygon(rings), layout: layout, top: false, to: &out) }
    case .geometryCollection(let members):
      header(7)
      uint32(UInt32(members.count), &out)
      for member in members { write(member, layout: layout, top: false, to: &out) }
    }
  }

  private static func uint32(_ value: UInt32, _ out: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { out.appendBytes($0) }
  }

  private static func double(_ value: Double, _ out: inout [UInt8]) {
    withUnsafeBytes(of: value.bitPattern.littleEndian) { out.appendBytes($0) }
  }
}
