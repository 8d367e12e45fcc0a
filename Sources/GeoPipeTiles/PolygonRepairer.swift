import GeoPipeCore
import GeoPipeGEOS

/// Keeps a tile's polygons valid through simplifying and rounding (MVT 2.1 §4.3.4.4: simple
/// rings, holes inside their exterior, no zero-area rings, no repeated points).
///
/// Clipped by ``RectangleClipper``, valid polygons stay valid, but rounding to whole tile
/// units can still make rings touch or cross, so rounded
/// polygons that are more than a rectangle, and that `RoundedPolygonCheck` cannot prove
/// valid, are checked with `GEOSisValid_r`; the few that
/// fail are snap-rounded onto the integer grid from the floating-point polygons (made valid
/// with `GEOSMakeValid_r` first if simplifying broke them) with `GEOSGeom_setPrecision_r`,
/// whose output is then valid. One per thread (it owns a GEOS
/// context).
final class PolygonRepairer {
  private let context: GEOSContext

  init() throws {
    context = try GEOSContext()
  }

  /// A polygon feature made valid (`GEOSMakeValid_r`) when it is not, before it is cut.
  ///
  /// The inside of a ring that crosses itself is not defined, and clipping it would draw
  /// whatever side the crossing leaves. Valid polygons, and anything GEOS fails on, come back
  /// as they are.
  func valid(_ geometry: WorldGeometry) -> WorldGeometry {
    guard geometry.kind == .polygon else { return geometry }
    var polygons: [[[Double]]] = []
    var index = 0
    for count in geometry.ringCounts {
      polygons.append(Array(geometry.parts[index..<index + count]))
      index += count
    }
    let source = Geometry.multiPolygon(Self.members(polygons))
    do {
      if try context.isValid(source) { return geometry }
      var parts: [[CoordinateArray]] = []
      Self.collectPolygons(try context.makeValid(source), into: &parts)
      return WorldGeometry(
        kind: .polygon, parts: parts.flatMap { $0.map(\.storage) }, ringCounts: parts.map(\.count))
    } catch {
      return geometry
    }
  }

  /// The rounded polygons (rings of integer points), when they are valid; otherwise the
  /// floating-point polygons they were rounded from, made valid if simplifying broke them,
  /// snap-rounded to the integer grid.
  ///
  /// Should GEOS fail (a topology exception on some degenerate input), the rounded polygons
  /// are kept as they are rather than failing the whole tileset.
  func repaired(_ rounded: [[[Int32]]], simplified: [[[Double]]]) -> [[[Int32]]] {
    if rounded.isEmpty || (rounded.count == 1 && Self.isRectangle(rounded[0]))
      || RoundedPolygonCheck.isCertainlyValid(rounded)
    {
      return rounded
    }
    do {
      let geometry = Geometry.multiPolygon(
        Self.members(rounded.map { $0.map { $0.map(Double.init) } }))
      if try context.isValid(geometry) { return rounded }
      // Simplifying can make rings cross; the simplified polygons are still far smaller than
      // the clipped ones, so they are made valid rather than falling back to those.
      var source = Geometry.multiPolygon(Self.members(simplified))
      if try !context.isValid(source) {
        var parts: [[CoordinateArray]] = []
        Self.collectPolygons(try context.makeValid(source), into: &parts)
        source = .multiPolygon(parts)
      }
      var polygons: [[CoordinateArray]] = []
      Self.collectPolygons(try context.snapRounded(source, gridSize: 1), into: &polygons)
      return polygons.compactMap { rings in
        var out: [[Int32]] = []
        for ring in rings {
          let points = TileGeometryEncoder.quantize(ring.storage)
          if TileGeometryEncoder.signedArea(points) != 0 { out.append(points) }
        }
        return out.isEmpty ? nil : out
      }
    } catch {
      return rounded
    }
  }

  /// A single ring of four corners with sides along the axes: valid by construction.
  static func isRectangle(_ polygon: [[Int32]]) -> Bool {
    guard polygon.count == 1, polygon[0].count == 8 else { return false }
    let r = polygon[0]
    let xs = Set([r[0], r[2], r[4], r[6]])
    let ys = Set([r[1], r[3], r[5], r[7]])
    return xs.count == 2 && ys.count == 2
      && (r[0] == r[2] || r[1] == r[3]) && (r[2] == r[4] || r[3] == r[5])
  }

  /// Polygons as GEOS wants them: rings closed, rings of fewer than three points left out,
  /// and with them the polygons whose exterior that is.
  static func members(_ polygons: [[[Double]]]) -> [[CoordinateArray]] {
    polygons.compactMap { polygon in
      guard let exterior = polygon.first.flatMap(closedRun) else { return nil }
      return [exterior] + polygon.dropFirst().compactMap(closedRun)
    }
  }

  /// A ring as GEOS wants it, closed; nil for fewer than three points.
  static func closedRun(_ ring: [Double]) -> CoordinateArray? {
    guard ring.count >= 6 else { return nil }
    var storage = ring
    if ring[0] != ring[ring.count - 2] || ring[1] != ring[ring.count - 1] {
      storage.append(ring[0])
      storage.append(ring[1])
    }
    return storage.count >= 8 ? CoordinateArray(storage: storage, dimension: 2) : nil
  }

  static func collectPolygons(_ geometry: Geometry, into polygons: inout [[CoordinateArray]]) {
    switch geometry {
    case .polygon(let rings) where !rings.isEmpty: polygons.append(rings)
    case .multiPolygon(let members): polygons += members.filter { !$0.isEmpty }
    case .geometryCollection(let members):
      for member in members { collectPolygons(member, into: &polygons) }
    default: break
    }
  }
}
