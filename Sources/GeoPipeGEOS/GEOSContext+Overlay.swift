internal import CGEOS
import GeoPipeCore

/// A geometry prepared for many predicate tests (`GEOSPrepare_r`): GEOS indexes its segments
/// and rings on first use, so each test against it costs about the logarithm of its size.
///
/// It belongs to the context that made it and, like the context, is used by one thread at a
/// time (GEOS builds its indexes lazily).
public final class GEOSPreparedGeometry {
  private let context: GEOSContext
  private let geometry: GEOSGeometryHandle
  private let prepared: OpaquePointer

  init(context: GEOSContext, geometry: GEOSGeometryHandle) throws {
    self.context = context
    self.geometry = geometry
    guard let prepared = GEOSPrepare_r(context.handle, geometry.pointer) else {
      throw context.failure("Prepare")
    }
    self.prepared = prepared
  }

  deinit {
    GEOSPreparedGeom_destroy_r(context.handle, prepared)
  }

  /// Whether the prepared geometry contains `other`: no point of `other` outside it, and at
  /// least one in its interior (a point on its boundary is not contained).
  public func contains(_ other: Geometry) throws -> Bool {
    try test(other, "PreparedContains") { GEOSPreparedContains_r($0, $1, $2) }
  }

  /// Whether the prepared geometry and `other` share at least one point (boundaries included).
  public func intersects(_ other: Geometry) throws -> Bool {
    try test(other, "PreparedIntersects") { GEOSPreparedIntersects_r($0, $1, $2) }
  }

  /// Whether no point of `other` lies outside the prepared geometry (boundaries included).
  public func covers(_ other: Geometry) throws -> Bool {
    try test(other, "PreparedCovers") { GEOSPreparedCovers_r($0, $1, $2) }
  }

  /// Whether `other` lies inside the prepared geometry, not touching its boundary.
  public func containsProperly(_ other: Geometry) throws -> Bool {
    try test(other, "PreparedContainsProperly") { GEOSPreparedContainsProperly_r($0, $1, $2) }
  }

  private func test(
    _ other: Geometry, _ operation: String,
    _ call: (OpaquePointer, OpaquePointer, OpaquePointer) -> CChar
  ) throws -> Bool {
    let input = try context.makeGEOS(other)
    let answer = call(context.handle, prepared, input.pointer)
    guard answer != 2 else { throw context.failure(operation) }
    return answer == 1
  }
}

extension GEOSContext {
  /// Prepares `geometry` for many predicate tests in this context.
  public func prepare(_ geometry: Geometry) throws -> GEOSPreparedGeometry {
    try GEOSPreparedGeometry(context: self, geometry: makeGEOS(geometry))
  }

  /// The points the two geometries share (`GEOSIntersection_r`, OverlayNG), in their own units.
  public func intersection(_ a: Geometry, _ b: Geometry) throws -> Geometry {
    let first = try makeGEOS(a)
    let second = try makeGEOS(b)
    let result = try own(GEOSIntersection_r(handle, first.pointer, second.pointer), "Intersection")
    return try geometry(from: result.pointer)
  }

  /// The union of all the geometries (`GEOSUnaryUnion_r` on a collection of them): polygons
  /// merged where they touch or overlap, lines noded.
  public func union(_ geometries: [Geometry]) throws -> Geometry {
    let collection = try makeGEOS(.geometryCollection(geometries))
    let result = try own(GEOSUnaryUnion_r(handle, collection.pointer), "UnaryUnion")
    return try geometry(from: result.pointer)
  }

  /// Whether `a` contains `b` (`GEOSContains_r`).
  public func contains(_ a: Geometry, _ b: Geometry) throws -> Bool {
    let first = try makeGEOS(a)
    let second = try makeGEOS(b)
    let answer = GEOSContains_r(handle, first.pointer, second.pointer)
    guard answer != 2 else { throw failure("Contains") }
    return answer == 1
  }

  /// The point of `a` and the point of `b` nearest each other (`GEOSNearestPoints_r`), planar in
  /// the geometries' units; nil when either is empty.
  public func nearestPoints(_ a: Geometry, _ b: Geometry) throws -> (Position, Position)? {
    let first = try makeGEOS(a)
    let second = try makeGEOS(b)
    guard let sequence = GEOSNearestPoints_r(handle, first.pointer, second.pointer) else {
      return nil
    }
    defer { GEOSCoordSeq_destroy_r(handle, sequence) }
    var x0 = 0.0
    var y0 = 0.0
    var x1 = 0.0
    var y1 = 0.0
    guard GEOSCoordSeq_getXY_r(handle, sequence, 0, &x0, &y0) != 0,
      GEOSCoordSeq_getXY_r(handle, sequence, 1, &x1, &y1) != 0
    else { throw failure("NearestPoints") }
    return (Position(x: x0, y: y0), Position(x: x1, y: y1))
  }
}
