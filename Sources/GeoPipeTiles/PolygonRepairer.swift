import GeoPipeCore
import GeoPipeGEOS

/// Makes a tile's polygons valid after clipping, simplifying and rounding (MVT 2.1 §4.3.4.4:
/// simple rings, holes inside their exterior, no zero-area rings, no repeated points).
///
/// Rounding to whole tile units can make rings touch or cross. Polygons go to GEOS only when
/// they are more than a rectangle; when `GEOSisValid_r` finds a problem they are rebuilt with
/// `GEOSMakeValid_r` and snap-rounded back onto the integer grid with
/// `GEOSGeom_setPrecision_r`, whose output is valid. One per thread (it owns a GEOS context).
final class PolygonRepairer {
  private let context: GEOSContext

  init() throws {
    context = try GEOSContext()
  }

  /// The polygons, each a list of rings (exterior first) of integer points without their
  /// closing point, made valid; unchanged when they already are.
  func repaired(_ polygons: [[[Int32]]]) throws -> [[[Int32]]] {
    if polygons.isEmpty || (polygons.count == 1 && Self.isRectangle(polygons[0])) {
      return polygons
    }
    let geometry = Geometry.multiPolygon(polygons.map { $0.map(Self.closedRun) })
    if try context.isValid(geometry) { return polygons }
    var parts: [[CoordinateArray]] = []
    Self.collectPolygons(try context.makeValid(geometry), into: &parts)
    guard !parts.isEmpty else { return [] }
    var rounded: [[CoordinateArray]] = []
    Self.collectPolygons(
      try context.snapRounded(.multiPolygon(parts), gridSize: 1), into: &rounded)
    return rounded.compactMap { rings in
      var out: [[Int32]] = []
      for ring in rings {
        var points: [Int32] = []
        points.reserveCapacity(ring.count * 2)
        ring.forEachXY { x, y in
          points.append(Int32(x.rounded()))
          points.append(Int32(y.rounded()))
        }
        points = TileGeometryEncoder.quantize(points.map(Double.init))
        if TileGeometryEncoder.signedArea(points) != 0 { out.append(points) }
      }
      return out.isEmpty ? nil : out
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

  static func closedRun(_ ring: [Int32]) -> CoordinateArray {
    var storage = ring.map(Double.init)
    storage.append(Double(ring[0]))
    storage.append(Double(ring[1]))
    return CoordinateArray(storage: storage, dimension: 2)
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
