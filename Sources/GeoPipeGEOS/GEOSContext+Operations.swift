internal import CGEOS
import GeoPipeCore

/// How `simplify` removes vertices.
public enum SimplificationMethod: String, CaseIterable, Hashable, Sendable {
  /// Douglas-Peucker (`GEOSSimplify_r`): fast, but may make polygons invalid or collapse them
  /// to empty.
  case douglasPeucker = "dp"
  /// Topology-preserving (`GEOSTopologyPreserveSimplify_r`): rings keep their number, stay
  /// simple and do not cross each other.
  case topologyPreserving = "topology"
}

extension GEOSContext {
  /// Removes vertices closer than `tolerance` (in the geometry's own units) to the simplified
  /// line, with GEOS's Douglas-Peucker or topology-preserving simplifier.
  ///
  /// The result may be empty (see ``isEmpty(_:)``): Douglas-Peucker can collapse a polygon.
  public func simplify(_ geometry: Geometry, tolerance: Double, method: SimplificationMethod)
    throws -> Geometry
  {
    let input = try makeGEOS(geometry)
    let simplified =
      switch method {
      case .douglasPeucker: GEOSSimplify_r(handle, input.pointer, tolerance)
      case .topologyPreserving: GEOSTopologyPreserveSimplify_r(handle, input.pointer, tolerance)
      }
    guard let simplified else { throw failure("simplify (\(method.rawValue))") }
    // The hot path of the simplify stage: the result is freed here rather than by a handle.
    defer { GEOSGeom_destroy_r(handle, simplified) }
    return try self.geometry(from: simplified)
  }

  /// Whether GEOS considers the geometry empty (`GEOSisEmpty_r`): no positions at all.
  public func isEmpty(_ geometry: Geometry) throws -> Bool {
    let input = try makeGEOS(geometry)
    let answer = GEOSisEmpty_r(handle, input.pointer)
    guard answer != 2 else { throw failure("isEmpty") }
    return answer == 1
  }

  /// The planar area (`GEOSArea_r`) in the square of the coordinates' units; 0 for points and
  /// lines.
  public func area(_ geometry: Geometry) throws -> Double {
    let input = try makeGEOS(geometry)
    var area = 0.0
    guard GEOSArea_r(handle, input.pointer, &area) != 0 else { throw failure("Area") }
    return area
  }

  /// The area within `distance` of the geometry (`GEOSBuffer_r`), in the geometry's own units,
  /// with round joins and caps and `quadrantSegments` segments per quarter circle.
  ///
  /// A negative distance shrinks polygons; lines and points then give an empty polygon.
  public func buffer(_ geometry: Geometry, distance: Double, quadrantSegments: Int = 8) throws
    -> Geometry
  {
    let input = try makeGEOS(geometry)
    let result = try own(
      GEOSBuffer_r(handle, input.pointer, distance, Int32(clamping: quadrantSegments)), "Buffer")
    return try self.geometry(from: result.pointer)
  }

  /// The part of the geometry inside the rectangle (`GEOSClipByRect_r`), in the geometry's own
  /// units; the rectangle is planar (`west` < `east`, no antimeridian crossing).
  public func clip(_ geometry: Geometry, to box: BBox) throws -> Geometry {
    let input = try makeGEOS(geometry)
    let result = try own(
      GEOSClipByRect_r(handle, input.pointer, box.west, box.south, box.east, box.north),
      "ClipByRect")
    return try self.geometry(from: result.pointer)
  }

  /// The part of the geometry inside the rectangle by overlay (`GEOSIntersection_r` with the
  /// rectangle as a polygon): slower than ``clip(_:to:)``, and exact on degenerate input (a
  /// vertex on a corner of the rectangle) where the rectangle clip is not.
  public func intersection(_ geometry: Geometry, _ box: BBox) throws -> Geometry {
    let input = try makeGEOS(geometry)
    let rectangle = try makeGEOS(
      .polygon([
        CoordinateArray(
          storage: [
            box.west, box.south, box.east, box.south, box.east, box.north, box.west, box.north,
            box.west, box.south,
          ], dimension: 2)
      ]))
    let result = try own(
      GEOSIntersection_r(handle, input.pointer, rectangle.pointer), "Intersection")
    return try self.geometry(from: result.pointer)
  }

  /// A valid version of the geometry (`GEOSMakeValid_r`, the linework method): no vertex is
  /// moved, but a polygon may become a multipolygon or a collection with collapsed parts.
  public func makeValid(_ geometry: Geometry) throws -> Geometry {
    let input = try makeGEOS(geometry)
    let result = try own(GEOSMakeValid_r(handle, input.pointer), "MakeValid")
    return try self.geometry(from: result.pointer)
  }

  /// Whether the geometry is valid by the OGC Simple Features rules (`GEOSisValid_r`).
  public func isValid(_ geometry: Geometry) throws -> Bool {
    let input = try makeGEOS(geometry)
    let answer = GEOSisValid_r(handle, input.pointer)
    guard answer != 2 else { throw failure("isValid") }
    return answer == 1
  }

  /// The geometry snap-rounded to a grid of `gridSize` (`GEOSGeom_setPrecision_r`, which since
  /// GEOS 3.10 nodes and rebuilds polygons with OverlayNG): every vertex lands on the grid, and
  /// a valid polygonal input stays valid, with parts narrower than the grid removed.
  public func snapRounded(_ geometry: Geometry, gridSize: Double) throws -> Geometry {
    let input = try makeGEOS(geometry)
    let result = try own(
      GEOSGeom_setPrecision_r(handle, input.pointer, gridSize, 0), "setPrecision")
    return try self.geometry(from: result.pointer)
  }

  /// Why the geometry is invalid by the OGC Simple Features rules, or nil if it is valid
  /// (`GEOSisValidDetail_r`).
  ///
  /// `reason` is GEOS's text verbatim (such as `Self-intersection` or `Ring Self-intersection`);
  /// `location` is the point GEOS reports, when it reports one. A ring GEOS cannot even build
  /// (fewer than four positions, not closed) is reported as a problem with GEOS's own message
  /// and no location, rather than thrown.
  ///
  /// - Throws: ``GEOSError`` only when GEOS itself fails.
  public func validityProblem(_ geometry: Geometry) throws -> (reason: String, location: Position?)?
  {
    let input: GEOSGeometryHandle
    do {
      input = try makeGEOS(geometry)
    } catch GEOSError.operationFailed(_, let message) where !message.isEmpty {
      return (reason: message, location: nil)
    }
    var reason: UnsafeMutablePointer<CChar>?
    var location: OpaquePointer?
    clearMessage()
    let answer = GEOSisValidDetail_r(handle, input.pointer, 0, &reason, &location)
    defer {
      if let reason { GEOSFree_r(handle, reason) }
      if let location { GEOSGeom_destroy_r(handle, location) }
    }
    switch answer {
    case 1:
      return nil
    case 0:
      let text = reason.map { String(cString: $0) } ?? "Invalid geometry"
      var position: Position?
      if let location, case .point(let p) = try self.geometry(from: location) { position = p }
      return (reason: text, location: position)
    default:
      throw failure("isValidDetail")
    }
  }
}
