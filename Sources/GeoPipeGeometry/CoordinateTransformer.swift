internal import CPROJ
import GeoPipeCore

/// Transforms coordinates between coordinate reference systems with PROJ.
///
/// Axis order is normalised for visualisation (`proj_normalize_for_visualization`), so x is
/// always longitude or easting and y latitude or northing, whatever the CRS definition says
/// (EPSG:4326 is latitude-first in PROJ). One transformer owns one PROJ context: use one per
/// thread.
public final class CoordinateTransformer {
  /// The source CRS as given.
  public let source: String
  /// The target CRS as given.
  public let target: String
  private let context: OpaquePointer
  private let transformation: OpaquePointer

  /// Creates a transformation; CRSs are EPSG codes (`EPSG:3857`), PROJ strings or WKT.
  public init(from source: String, to target: String) throws {
    self.source = source
    self.target = target
    guard let context = proj_context_create() else {
      throw GeoPipeError("cannot create a PROJ context", status: .ioError)
    }
    proj_log_level(context, PJ_LOG_NONE)
    guard let raw = proj_create_crs_to_crs(context, source, target, nil) else {
      let reason = Self.message(context)
      proj_context_destroy(context)
      if let problem = Self.problem(with: source) ?? Self.problem(with: target) {
        throw GeoPipeError.usage(problem)
      }
      throw GeoPipeError.usage(
        "cannot transform from '\(source)' to '\(target)': \(reason)")
    }
    guard let normalized = proj_normalize_for_visualization(context, raw) else {
      let reason = Self.message(context)
      proj_destroy(raw)
      proj_context_destroy(context)
      throw GeoPipeError.usage("cannot normalise the axis order of '\(source)': \(reason)")
    }
    proj_destroy(raw)
    self.context = context
    transformation = normalized
  }

  deinit {
    proj_destroy(transformation)
    proj_context_destroy(context)
  }

  /// What is wrong with a CRS as given, or nil when PROJ knows it.
  ///
  /// `unknown CRS 'EPSG:99999'`; a bare number gets the hint of its EPSG code.
  public static func problem(with crs: String) -> String? {
    guard let context = proj_context_create() else { return nil }
    defer { proj_context_destroy(context) }
    proj_log_level(context, PJ_LOG_NONE)
    if let object = proj_create(context, crs) {
      proj_destroy(object)
      return nil
    }
    var message = "unknown CRS '\(crs)'"
    if !crs.isEmpty, crs.allSatisfy(\.isNumber), let object = proj_create(context, "EPSG:\(crs)") {
      proj_destroy(object)
      message += "; did you mean 'EPSG:\(crs)'?"
    } else {
      message += " (give an EPSG code such as EPSG:3857, a PROJ string or WKT)"
    }
    return message
  }

  /// The CRS as ESRI's WKT 1 (what a shapefile's `.prj` holds), or nil when PROJ does not know
  /// it or cannot write it so.
  public static func esriWKT(_ crs: String) -> String? {
    guard let context = proj_context_create() else { return nil }
    defer { proj_context_destroy(context) }
    proj_log_level(context, PJ_LOG_NONE)
    guard let object = proj_create(context, crs) else { return nil }
    defer { proj_destroy(object) }
    return proj_as_wkt(context, object, PJ_WKT1_ESRI, nil).map { String(cString: $0) }
  }

  /// The CRS as PROJJSON on one line (what GeoParquet's `crs` holds), or nil when PROJ does
  /// not know it.
  public static func projJSON(_ crs: String) -> String? {
    guard let context = proj_context_create() else { return nil }
    defer { proj_context_destroy(context) }
    proj_log_level(context, PJ_LOG_NONE)
    guard let object = proj_create(context, crs) else { return nil }
    defer { proj_destroy(object) }
    return "MULTILINE=NO".withCString { option in
      var options: [UnsafePointer<CChar>?] = [option, nil]
      return options.withUnsafeMutableBufferPointer { list in
        proj_as_projjson(context, object, list.baseAddress).map { String(cString: $0) }
      }
    }
  }

  /// Whether `crs` names WGS84 longitude/latitude as geopipe uses it between stages.
  public static func isWGS84(_ crs: String) -> Bool {
    ["epsg:4326", "wgs84", "crs84", "ogc:crs84", "urn:ogc:def:crs:ogc:1.3:crs84", "epsg:4979"]
      .contains(crs.lowercased())
  }

  /// Transforms every position of `geometry` in place (from `target` to `source` with
  /// `inverse`).
  public func transform(_ geometry: inout Geometry, inverse: Bool = false) throws {
    var failed = false
    let direction = inverse ? PJ_INV : PJ_FWD
    geometry.transformXY { x, y in
      var coordinate = PJ_COORD(xyzt: PJ_XYZT(x: x, y: y, z: 0, t: .infinity))
      coordinate = proj_trans(transformation, direction, coordinate)
      let nx = coordinate.xyzt.x
      let ny = coordinate.xyzt.y
      if nx.isFinite && ny.isFinite {
        x = nx
        y = ny
      } else {
        failed = true
      }
    }
    if failed {
      throw GeoPipeError.data(
        "a position cannot be transformed from \(inverse ? target : source) to "
          + "\(inverse ? source : target) "
          + "(is it inside the CRS's area of use?)", at: nil)
    }
  }

  private static func message(_ context: OpaquePointer) -> String {
    let code = proj_context_errno(context)
    guard code != 0, let text = proj_context_errno_string(context, code) else {
      return "PROJ does not know this CRS"
    }
    return String(cString: text)
  }
}
