internal import CGEOS
import GeoPipeCore

extension GEOSContext {
  /// Builds a GEOS geometry from `geometry`, copying each run of coordinates in one call
  /// (`GEOSCoordSeq_copyFromBuffer_r`).
  ///
  /// Altitudes are kept; a fourth number (a measure) is not passed to GEOS.
  func makeGEOS(_ geometry: Geometry) throws -> GEOSGeometryHandle {
    switch geometry {
    case .point(let p):
      let sequence = try makeSequence(
        CoordinateArray(storage: p.hasZ ? [p.x, p.y, p.z] : [p.x, p.y], dimension: p.hasZ ? 3 : 2))
      // GEOSGeom_createPoint_r takes ownership of the sequence.
      return try own(GEOSGeom_createPoint_r(handle, sequence), "createPoint")
    case .lineString(let line):
      let sequence = try makeSequence(line)
      // Ownership of the sequence passes to the line, also when GEOS rejects it.
      return try own(GEOSGeom_createLineString_r(handle, sequence), "createLineString")
    case .polygon(let rings):
      return try makePolygon(rings)
    case .multiPoint(let points):
      let members = try points.map { try makeGEOS(.point($0)) }
      return try makeCollection(GEOS_MULTIPOINT, members)
    case .multiLineString(let lines):
      let members = try lines.map { try makeGEOS(.lineString($0)) }
      return try makeCollection(GEOS_MULTILINESTRING, members)
    case .multiPolygon(let polygons):
      let members = try polygons.map { try makePolygon($0) }
      return try makeCollection(GEOS_MULTIPOLYGON, members)
    case .geometryCollection(let geometries):
      let members = try geometries.map { try makeGEOS($0) }
      return try makeCollection(GEOS_GEOMETRYCOLLECTION, members)
    }
  }

  /// Reads a GEOS geometry back, copying each coordinate sequence in one call
  /// (`GEOSCoordSeq_copyToBuffer_r`).
  ///
  /// Empty GEOS geometries come back as empty GeoJSON ones (`Polygon` with no rings, a
  /// collection with no members); an empty point, which GeoJSON cannot express, comes back as an
  /// empty `GeometryCollection`.
  func geometry(from pointer: OpaquePointer) throws -> Geometry {
    let type = GEOSGeomTypeId_r(handle, pointer)
    switch type {
    case Int32(GEOS_POINT.rawValue):
      if GEOSisEmpty_r(handle, pointer) == 1 { return .geometryCollection([]) }
      let coordinates = try coordinates(of: pointer)
      return coordinates.isEmpty ? .geometryCollection([]) : .point(coordinates[0])
    case Int32(GEOS_LINESTRING.rawValue), Int32(GEOS_LINEARRING.rawValue):
      return .lineString(try coordinates(of: pointer))
    case Int32(GEOS_POLYGON.rawValue):
      return .polygon(try rings(of: pointer))
    case Int32(GEOS_MULTIPOINT.rawValue):
      var points = CoordinateArray()
      for member in try members(of: pointer) {
        if case .point(let p) = try geometry(from: member) { points.append(p) }
      }
      return .multiPoint(points)
    case Int32(GEOS_MULTILINESTRING.rawValue):
      return .multiLineString(try members(of: pointer).map { try coordinates(of: $0) })
    case Int32(GEOS_MULTIPOLYGON.rawValue):
      return .multiPolygon(try members(of: pointer).map { try rings(of: $0) })
    case Int32(GEOS_GEOMETRYCOLLECTION.rawValue):
      return .geometryCollection(try members(of: pointer).map { try geometry(from: $0) })
    default:
      throw failure("GEOSGeomTypeId")
    }
  }

  /// Takes ownership of a geometry a GEOS call returned, or throws GEOS's message.
  func own(_ pointer: OpaquePointer?, _ operation: String) throws -> GEOSGeometryHandle {
    guard let pointer else { throw failure(operation) }
    return GEOSGeometryHandle(pointer, context: self)
  }

  private func makeSequence(_ run: CoordinateArray) throws -> OpaquePointer {
    let hasZ: Int32 = run.dimension >= 3 ? 1 : 0
    let hasM: Int32 = run.dimension >= 4 ? 1 : 0
    let count = UInt32(run.storage.count / run.dimension)
    let sequence = run.storage.withUnsafeBufferPointer { buffer in
      GEOSCoordSeq_copyFromBuffer_r(handle, buffer.baseAddress, count, hasZ, hasM)
    }
    guard let sequence else { throw failure("CoordSeq_copyFromBuffer") }
    return sequence
  }

  private func makePolygon(_ rings: [CoordinateArray]) throws -> GEOSGeometryHandle {
    guard let first = rings.first else {
      return try own(GEOSGeom_createEmptyPolygon_r(handle), "createEmptyPolygon")
    }
    // Each ring takes ownership of its sequence, also when GEOS rejects it.
    let shell = try own(GEOSGeom_createLinearRing_r(handle, try makeSequence(first)), "LinearRing")
    let holes = try rings.dropFirst().map {
      try own(GEOSGeom_createLinearRing_r(handle, try makeSequence($0)), "LinearRing")
    }
    // GEOSGeom_createPolygon_r takes ownership of the shell and of every hole.
    var holePointers: [OpaquePointer?] = holes.map { $0.release() }
    let polygon = holePointers.withUnsafeMutableBufferPointer { buffer in
      GEOSGeom_createPolygon_r(handle, shell.release(), buffer.baseAddress, UInt32(buffer.count))
    }
    return try own(polygon, "createPolygon")
  }

  private func makeCollection(_ type: GEOSGeomTypes, _ members: [GEOSGeometryHandle]) throws
    -> GEOSGeometryHandle
  {
    // GEOSGeom_createCollection_r takes ownership of the members (not of the array).
    var pointers: [OpaquePointer?] = members.map { $0.release() }
    let collection = pointers.withUnsafeMutableBufferPointer { buffer in
      GEOSGeom_createCollection_r(
        handle, Int32(type.rawValue), buffer.baseAddress, UInt32(buffer.count))
    }
    return try own(collection, "createCollection")
  }

  private func coordinates(of pointer: OpaquePointer) throws -> CoordinateArray {
    guard let sequence = GEOSGeom_getCoordSeq_r(handle, pointer) else {
      throw failure("Geom_getCoordSeq")
    }
    var size: UInt32 = 0
    var dimensions: UInt32 = 0
    guard GEOSCoordSeq_getSize_r(handle, sequence, &size) != 0,
      GEOSCoordSeq_getDimensions_r(handle, sequence, &dimensions) != 0
    else { throw failure("CoordSeq_getSize") }
    let dimension = dimensions >= 3 ? 3 : 2
    var ok = true
    let storage = [Double](unsafeUninitializedCapacity: Int(size) * dimension) { buffer, count in
      ok =
        GEOSCoordSeq_copyToBuffer_r(handle, sequence, buffer.baseAddress, dimension == 3 ? 1 : 0, 0)
        != 0
      count = ok ? Int(size) * dimension : 0
    }
    guard ok else { throw failure("CoordSeq_copyToBuffer") }
    return CoordinateArray(storage: storage, dimension: dimension)
  }

  private func rings(of polygon: OpaquePointer) throws -> [CoordinateArray] {
    if GEOSisEmpty_r(handle, polygon) == 1 { return [] }
    guard let shell = GEOSGetExteriorRing_r(handle, polygon) else {
      throw failure("GetExteriorRing")
    }
    let holeCount = GEOSGetNumInteriorRings_r(handle, polygon)
    guard holeCount >= 0 else { throw failure("GetNumInteriorRings") }
    var rings = [try coordinates(of: shell)]
    rings.reserveCapacity(Int(holeCount) + 1)
    for i in 0..<holeCount {
      guard let hole = GEOSGetInteriorRingN_r(handle, polygon, i) else {
        throw failure("GetInteriorRingN")
      }
      rings.append(try coordinates(of: hole))
    }
    return rings
  }

  private func members(of collection: OpaquePointer) throws -> [OpaquePointer] {
    let count = GEOSGetNumGeometries_r(handle, collection)
    guard count >= 0 else { throw failure("GetNumGeometries") }
    return try (0..<count).map { i in
      guard let member = GEOSGetGeometryN_r(handle, collection, i) else {
        throw failure("GetGeometryN")
      }
      return member
    }
  }
}
