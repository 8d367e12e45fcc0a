import GeoPipeCore

/// Geometry validity as GEOS judges it (OGC simple features), behind a protocol so the rest of
/// `validate` does not depend on how it is computed.
public protocol ValidityChecker {
  /// Why `geometry` is invalid, with GEOS's reason text and location
  /// (`GEOSisValidDetail_r`), or nil when it is valid.
  func invalidity(of geometry: Geometry) throws -> GeometryIssue?
  /// A valid geometry covering the same points (`GEOSMakeValid_r`).
  func makeValid(_ geometry: Geometry) throws -> Geometry
}
