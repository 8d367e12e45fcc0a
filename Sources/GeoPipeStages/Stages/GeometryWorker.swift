import GeoPipeCore
import GeoPipeGEOS
import GeoPipeStageKit

/// What one worker thread of a geometry stage owns: a GEOS context and its UTM transformers.
final class GeometryWorker {
  let geos: GEOSContext
  let zones = UTMZones()

  init() throws {
    do {
      geos = try GEOSContext()
    } catch {
      throw GeoPipeError("\(error)", status: .ioError)
    }
  }

  /// Applies `operation` to the geometry projected to planar coordinates, and brings the result
  /// back to lon/lat (positions the input had keep their exact numbers).
  func planar(
    _ geometry: Geometry, in projection: LocalProjection, _ operation: (Geometry) throws -> Geometry
  ) throws -> Geometry {
    var projected = geometry
    try projection.forward(&projected)
    var result = try operation(projected)
    try projection.inverse(&result, original: geometry, projected: projected)
    return result
  }
}
