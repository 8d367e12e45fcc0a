import Foundation
import GeoPipeCore
import GeoPipeGEOS
import GeoPipeGeometry
import GeoPipeIO
import GeoPipeStageKit

/// `simplify`: fewer vertices in lines and polygons, with GEOS's algorithms.
enum SimplifyStage {
  static let definition = StageDefinition(
    name: "simplify",
    abstract: "Simplify lines and polygons (Douglas-Peucker or topology-preserving, as GEOS does).",
    discussion: """
      Removes vertices closer than --tolerance to the simplified shape. --method dp is GEOS's
      Douglas-Peucker (GEOSSimplify; for lines geopipe's own port, which keeps the same
      vertices): fast, but polygons may collapse to empty or need GEOS's repair. --method topology is the topology-preserving simplifier of JTS and GEOS
      (GEOSTopologyPreserveSimplify): lines and rings of a feature do not come to cross
      themselves or each other and rings keep at least 4 positions. geopipe runs its own port
      of it, which keeps exactly the vertices GEOS 3.11 keeps, several times faster. By
      default polygons use topology and lines dp. Points pass through unchanged, and a
      feature keeps its geometry type (a one-part MultiPolygon stays a MultiPolygon).
      The tolerance is in degrees (0.01), in metres (100m, 2km) or in pixels at a zoom level
      (1px with --zoom 10). Metres are measured in the feature's UTM zone, chosen by the centre
      of its bounding box (UPS north of 84°N and south of 80°S); pixels in Web Mercator with
      256-pixel tiles. Either way the vertices kept are the input's own, unmoved.
      A polygon that Douglas-Peucker collapses to empty is dropped and counted on standard
      error, or kept as it was with --keep-collapsed. --min-area drops polygons and holes
      smaller than an area on the ellipsoid (after simplifying).
      Features are simplified on every processor; output stays in input order.
      Rings are simplified as they were read: the topology-preserving simplifier's choices can
      depend on which way a ring runs, and commands pass rings on unchanged between them
      (only 'write' winds them as RFC 7946 asks), so 'geopipe read f | geopipe simplify' gives
      GEOS's result on the file's rings as written.
      """,
    examples: [
      "geopipe simplify --tolerance 0.001 --method topology < coast.geojson.gz > coast.geojsonl",
      "geopipe read rivers.geojson | geopipe simplify --tolerance 0.01 --method dp",
      "geopipe read countries.geojson | geopipe simplify --tolerance 2km --min-area 10km2",
      "geopipe read states.geojson | geopipe simplify --tolerance 1px --zoom 6",
    ],
    options: [
      OptionSpec(
        "tolerance", .string, required: true,
        validate: { text in
          do {
            _ = try Tolerance(text.lowercased().hasSuffix("px") ? "0" : text, zoom: nil)
            return nil
          } catch {
            return ValueProblem(
              "expected degrees (0.01), metres (100m, 2km) or pixels (1px, with --zoom)")
          }
        },
        help: "How far a removed vertex may lie from the result: degrees (0.01), metres (100m, "
          + "2km) or pixels (1px, with --zoom)."),
      OptionSpec(
        "method", .choice(of: MethodChoice.self), default: MethodChoice.auto.rawValue,
        help: "dp: Douglas-Peucker; topology: topology-preserving; auto: topology for polygons, "
          + "dp for lines."),
      OptionSpec(
        "zoom", .number, help: "The Web Mercator zoom level of a tolerance in pixels."),
      OptionSpec(
        "keep-collapsed", .flag,
        help: "Keep a feature that simplifies to empty as it was, instead of dropping it."),
      OptionSpec(
        "min-area", .string,
        help: "Drop polygons and holes smaller than this after simplifying (5000m2, 2ha, 1km2)."),
    ],
    role: .transform,
    make: { values, context in .stage(try make(values, context: context)) })

  /// `--method`: one of GEOS's methods, or the one that suits each geometry.
  enum MethodChoice: String, CaseIterable, Sendable {
    /// Topology-preserving for polygons, Douglas-Peucker for lines.
    case auto
    /// Douglas-Peucker.
    case dp
    /// Topology-preserving.
    case topology

    /// The GEOS method, nil for auto.
    var method: SimplificationMethod? {
      switch self {
      case .auto: nil
      case .dp: .douglasPeucker
      case .topology: .topologyPreserving
      }
    }
  }

  /// The settings one worker applies.
  struct Settings: Sendable {
    var tolerance: Tolerance
    var method: SimplificationMethod?
    var keepCollapsed: Bool
    var minArea: Double?
  }

  static func make(_ values: OptionValues, context: StageContext) throws -> any Stage {
    let zoom = values.number("zoom")
    if let zoom, !(0...30).contains(zoom) {
      throw GeoPipeError.usage("invalid value '\(zoom)' for --zoom: expected 0 to 30")
    }
    let settings = Settings(
      tolerance: try Tolerance(values.string("tolerance") ?? "", zoom: zoom),
      method: values.choice("method", as: MethodChoice.self)?.method,
      keepCollapsed: values.flag("keep-collapsed"),
      minArea: try values.string("min-area").map { try SquareMetres($0, option: "min-area").value })
    let diagnostics = context.diagnostics
    return OrderedFeatureMap(
      threads: context.threads, makeState: { try GeometryWorker() },
      report: { dropped in
        for (reason, count) in dropped.sorted(by: { $0.key < $1.key }) {
          diagnostics(
            ReadDiagnostic(
              severity: .note,
              message: "simplify: dropped \(count) feature\(count == 1 ? "" : "s") \(reason)"))
        }
      },
      work: { feature, index, worker in
        try simplify(feature, index: index, settings: settings, worker: worker)
      })
  }

  static func simplify(_ feature: Feature, index: Int, settings: Settings, worker: GeometryWorker)
    throws -> FeatureOutcome
  {
    // Points, and geometries with no positions at all, pass through: nothing can collapse.
    guard let geometry = feature.geometry, geometry.kind != .point, geometry.kind != .multiPoint,
      geometry.bbox != nil
    else { return .emit(feature) }
    let method = settings.method ?? (geometry.hasArea ? .topologyPreserving : .douglasPeucker)
    // geopipe's own ports keep the vertices GEOS keeps, without the copies into GEOS and back:
    // topology-preserving for everything, Douglas-Peucker for lines. GEOS does Douglas-Peucker
    // for polygons (it repairs what that breaks) and refuses coordinates that are not finite.
    func simplified(_ geometry: Geometry, _ tolerance: Double) throws -> Geometry {
      let own =
        method == .topologyPreserving
        ? TopologyPreservingSimplifier.simplify(geometry, tolerance: tolerance)
        : LineSimplifier.douglasPeucker(geometry, tolerance: tolerance)
      if let own { return own }
      return try worker.geos.simplify(geometry, tolerance: tolerance, method: method)
    }
    var result: Geometry
    do {
      switch settings.tolerance {
      case .degrees(let tolerance):
        result = try simplified(geometry, tolerance)
      case .metres(let tolerance):
        guard let box = geometry.bbox else { return .emit(feature) }
        result = try worker.planar(geometry, in: worker.zones.projection(for: box)) {
          try simplified($0, tolerance)
        }
      case .pixels(let tolerance, let zoom):
        let world = 256 * pow2(zoom)
        result = try worker.planar(geometry, in: .webMercator(worldSize: world)) {
          try simplified($0, tolerance)
        }
      }
    } catch let error as GEOSError {
      throw GeoPipeError.data("feature \(index): cannot simplify: \(error)", at: nil)
    } catch let error as GeoPipeError {
      throw GeoPipeError("feature \(index): \(error.message)", status: error.status)
    }
    if result.bbox == nil {
      return settings.keepCollapsed
        ? .emit(feature) : .drop(reason: "that collapsed to empty (--keep-collapsed keeps them)")
    }
    if let minArea = settings.minArea {
      guard let kept = dropSmallParts(result, below: minArea) else {
        return .drop(reason: "smaller than --min-area")
      }
      result = kept
    }
    var simplified = feature
    simplified.geometry = keepingKind(of: geometry, result)
    return .emit(simplified)
  }

  /// `result` as the input's kind where GEOS returned one part of a Multi* as a single part
  /// (its simplifiers do), so that a layer's geometry type does not change.
  static func keepingKind(of input: Geometry, _ result: Geometry) -> Geometry {
    switch (input, result) {
    case (.multiPolygon, .polygon(let rings)): .multiPolygon([rings])
    case (.multiLineString, .lineString(let line)): .multiLineString([line])
    default: result
    }
  }

  /// The geometry without polygons and holes smaller than `minArea` square metres, or nil if
  /// nothing is left.
  static func dropSmallParts(_ geometry: Geometry, below minArea: Double) -> Geometry? {
    func keep(_ rings: [CoordinateArray]) -> [CoordinateArray]? {
      guard let exterior = rings.first, Geodesic.wgs84.area(of: exterior) >= minArea else {
        return nil
      }
      return [exterior] + rings.dropFirst().filter { Geodesic.wgs84.area(of: $0) >= minArea }
    }
    switch geometry {
    case .polygon(let rings):
      return keep(rings).map { .polygon($0) }
    case .multiPolygon(let polygons):
      let kept = polygons.compactMap(keep)
      return kept.isEmpty ? nil : .multiPolygon(kept)
    case .geometryCollection(let members):
      let kept = members.compactMap { dropSmallParts($0, below: minArea) }
      return kept.isEmpty ? nil : .geometryCollection(kept)
    default:
      return geometry
    }
  }

  private static func pow2(_ zoom: Double) -> Double { pow(2, zoom) }
}
