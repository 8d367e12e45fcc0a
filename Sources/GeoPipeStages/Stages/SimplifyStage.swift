import Foundation
import GeoPipeCore
import GeoPipeGEOS
import GeoPipeGeometry
import GeoPipeIO
import GeoPipeStageKit

/// `simplify`: fewer vertices in lines and polygons: GEOS's algorithms feature by feature, or
/// mapshaper's over the whole layer.
enum SimplifyStage {
  static let definition = StageDefinition(
    name: "simplify",
    abstract: "Simplify lines and polygons (Douglas-Peucker, topology-preserving or Visvalingam).",
    discussion: """
      Removes vertices closer than --tolerance to the simplified shape. --method dp is GEOS's
      Douglas-Peucker (GEOSSimplify; for lines geopipe's own port, which keeps the same
      vertices): fast, but polygons may collapse to empty or need GEOS's repair. --method topology is the topology-preserving simplifier of JTS and GEOS
      (GEOSTopologyPreserveSimplify): lines and rings of a feature do not come to cross
      themselves or each other and rings keep at least 4 positions. geopipe runs its own port
      of it, which keeps exactly the vertices GEOS 3.11 keeps, several times faster. By
      default polygons use topology and lines dp. Points pass through unchanged, and a
      feature keeps its geometry type (a one-part MultiPolygon stays a MultiPolygon).
      --method visvalingam removes the vertex whose triangle with its neighbours has the least
      area, again and again (Visvalingam-Whyatt); weighted-visvalingam is mapshaper's default,
      the area times 1 - K cos(angle at the vertex) with K = --weighting (0.7), which smooths
      spikes sooner and keeps right angles longer. With these, --tolerance is compared with
      0.65 x the square root of the area, mapshaper's linear equivalent. A ring's first
      position and a line's ends always stay.
      The tolerance is in degrees (0.01), in metres (100m, 2km) or in pixels at a zoom level
      (1px with --zoom 10). Metres are measured in the feature's UTM zone, chosen by the centre
      of its bounding box (UPS north of 84°N and south of 80°S); pixels in Web Mercator with
      256-pixel tiles. Either way the vertices kept are the input's own, unmoved. A tolerance
      is a distance: '--tolerance 10%' is refused with a pointer to --percentage.
      --percentage P% keeps P% of the removable vertices of the whole layer, as mapshaper's
      '-simplify 10%': every vertex of every feature is ranked by the tolerance that would
      remove it, and the top P% stay (ties to the earlier vertex; line ends and ring starts
      always stay and are not counted). --shared-borders keeps borders shared by neighbouring
      polygons (or lines) identical, as mapshaper's arcs do: rings are cut where the features
      sharing an edge change, each shared piece is simplified once with its ends fixed, and
      every feature along it keeps the same vertices; where simplified pieces would cross,
      removed vertices come back until they do not (as mapshaper repairs them). Neighbours so
      stay free of gaps and overlaps. Shared positions must be exactly equal, as in data cut
      from one coverage.
      Both hold the whole layer in memory (about 100 bytes a vertex) and emit when the input
      ends; the method is then weighted-visvalingam unless --method says dp or visvalingam
      (topology works feature by feature). Lines and rings are measured in their coordinates
      as given (degrees, or pixels with --zoom), as mapshaper's 'planar' option does (without
      it mapshaper measures longitude and latitude on a sphere); with --shared-borders a
      tolerance must be in degrees or pixels.
      --keep-shapes never lets a polygon ring collapse: a ring left with fewer than 3
      distinct positions or no area gets back its highest-ranked removed vertices until it
      has both (every ring, where mapshaper's keep-shapes keeps the largest ring of each
      feature; --method topology never collapses rings anyway, and
      --method dp then ranks polygons itself, without GEOS's repair). A small ring kept so can
      end up inside a coastline of its own feature that was simplified past it.
      Without it a polygon that collapses to empty is dropped and counted on standard
      error, or kept as it was with --keep-collapsed. --min-area drops polygons and holes
      smaller than an area on the ellipsoid (after simplifying).
      Feature by feature, features are simplified on every processor; output stays in input
      order.
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
      "geopipe read states.geojson | geopipe simplify --percentage 5% --shared-borders",
      "geopipe read lakes.geojson | geopipe simplify --percentage 10% --method visvalingam "
        + "--keep-shapes",
      "geopipe read coast.geojson | geopipe simplify --tolerance 0.01 "
        + "--method weighted-visvalingam --weighting 1",
    ],
    options: [
      OptionSpec(
        "tolerance", .string,
        validate: { text in
          if text.trimmingCharacters(in: .whitespaces).hasSuffix("%") {
            return ValueProblem(
              "a tolerance is a distance; to keep a share of the vertices use --percentage "
                + text.trimmingCharacters(in: .whitespaces))
          }
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
        "percentage", .string,
        validate: { text in
          Percentage(text) == nil ? ValueProblem("expected a percentage from 0% to 100%") : nil
        },
        help: "Keep this share of the layer's removable vertices (5%, or 5), ranked over all "
          + "features; holds the whole layer."),
      OptionSpec(
        "method", .choice(of: MethodChoice.self), default: MethodChoice.auto.rawValue,
        help: "dp: Douglas-Peucker; topology: topology-preserving; visvalingam: "
          + "Visvalingam-Whyatt; weighted-visvalingam: mapshaper's; auto: topology for "
          + "polygons, dp for lines (weighted-visvalingam with --percentage or --shared-borders)."),
      OptionSpec(
        "weighting", .number,
        help: "weighted-visvalingam's K in area x (1 - K cos angle); 0.7 unless given."),
      OptionSpec(
        "shared-borders", .flag,
        help: "Simplify borders shared by features once, so neighbours stay gap-free; holds "
          + "the whole layer."),
      OptionSpec(
        "keep-shapes", .flag,
        help: "Never let a polygon ring collapse: keep the vertices it needs to keep an area."),
      OptionSpec(
        "zoom", .number, help: "The Web Mercator zoom level of a tolerance in pixels."),
      OptionSpec(
        "keep-collapsed", .flag,
        help: "Keep a feature that simplifies to empty as it was, instead of dropping it."),
      OptionSpec(
        "min-area", .string,
        help: "Drop polygons and holes smaller than this after simplifying (5000m2, 2ha, 1km2)."),
    ],
    role: .transform, checkValues: checkValues,
    make: { values, context in .stage(try make(values, context: context)) })

  /// `--method`: one of GEOS's methods, mapshaper's, or the one that suits each geometry.
  enum MethodChoice: String, CaseIterable, Sendable {
    /// Topology-preserving for polygons, Douglas-Peucker for lines; weighted Visvalingam over
    /// a whole layer.
    case auto
    /// Douglas-Peucker.
    case dp
    /// Topology-preserving.
    case topology
    /// Visvalingam-Whyatt.
    case visvalingam
    /// mapshaper's weighted Visvalingam.
    case weightedVisvalingam = "weighted-visvalingam"
  }

  /// How one feature is simplified.
  enum Method: Sendable {
    /// One of GEOS's methods (geopipe's ports where it has them), nil for auto.
    case geos(SimplificationMethod?)
    /// By vertex rank (Visvalingam, or Douglas-Peucker that must keep shapes).
    case ranked(SimplificationMetric)
  }

  /// The settings one worker applies.
  struct Settings: Sendable {
    var tolerance: Tolerance
    var method: Method
    var keepShapes: Bool
    var keepCollapsed: Bool
    var minArea: Double?
  }

  static func make(_ values: OptionValues, context: StageContext) throws -> any Stage {
    if let problem = checkValues(values) { throw GeoPipeError.usage(problem.message) }
    let zoom = values.number("zoom")
    if let zoom, !(0...30).contains(zoom) {
      throw GeoPipeError.usage("invalid value '\(zoom)' for --zoom: expected 0 to 30")
    }
    let choice = values.choice("method", as: MethodChoice.self) ?? .auto
    let weighting = values.number("weighting") ?? 0.7
    let minArea = try values.string("min-area").map {
      try SquareMetres($0, option: "min-area").value
    }
    let percentage = values.string("percentage").flatMap(Percentage.init)
    let tolerance = try values.string("tolerance").map { try Tolerance($0, zoom: zoom) }
    let diagnostics = context.diagnostics
    let report: ([String: Int]) -> Void = { dropped in
      for (reason, count) in dropped.sorted(by: { $0.key < $1.key }) {
        diagnostics(
          ReadDiagnostic(
            severity: .note,
            message: "simplify: dropped \(count) feature\(count == 1 ? "" : "s") \(reason)"))
      }
    }
    if percentage != nil || values.flag("shared-borders") {
      let metric: SimplificationMetric =
        switch choice {
        case .dp: .douglasPeucker
        case .visvalingam: .visvalingam
        case .auto, .topology, .weightedVisvalingam: .weightedVisvalingam(weighting: weighting)
        }
      let amount: LayerSimplifyStage.Amount =
        if let percentage { .share(percentage.share) } else { .tolerance(tolerance ?? .degrees(0)) }
      return LayerSimplifyStage(
        metric: metric, amount: amount, sharedBorders: values.flag("shared-borders"),
        keepShapes: values.flag("keep-shapes"), keepCollapsed: values.flag("keep-collapsed"),
        minArea: minArea, report: report)
    }
    let keepShapes = values.flag("keep-shapes")
    let method: Method =
      switch choice {
      case .auto: .geos(nil)
      case .dp: keepShapes ? .ranked(.douglasPeucker) : .geos(.douglasPeucker)
      case .topology: .geos(.topologyPreserving)
      case .visvalingam: .ranked(.visvalingam)
      case .weightedVisvalingam: .ranked(.weightedVisvalingam(weighting: weighting))
      }
    let settings = Settings(
      tolerance: tolerance ?? .degrees(0), method: method, keepShapes: keepShapes,
      keepCollapsed: values.flag("keep-collapsed"), minArea: minArea)
    return OrderedFeatureMap(
      threads: context.threads, makeState: { try GeometryWorker() }, report: report,
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
    // geopipe's own ports keep the vertices GEOS keeps, without the copies into GEOS and back:
    // topology-preserving for everything, Douglas-Peucker for lines. GEOS does Douglas-Peucker
    // for polygons (it repairs what that breaks) and refuses coordinates that are not finite.
    func simplified(_ geometry: Geometry, _ tolerance: Double) throws -> Geometry {
      let method: SimplificationMethod
      switch settings.method {
      case .ranked(let metric):
        return try ranked(geometry, metric: metric, tolerance: tolerance, settings: settings)
      case .geos(let choice):
        method = choice ?? (geometry.hasArea ? .topologyPreserving : .douglasPeucker)
      }
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

  /// One geometry simplified by vertex rank; an empty collection when it collapsed.
  private static func ranked(
    _ geometry: Geometry, metric: SimplificationMetric, tolerance: Double, settings: Settings
  ) throws -> Geometry {
    do {
      let result = try LayerSimplifier.simplify(
        [geometry], metric: metric, amount: .tolerance(tolerance),
        keepShapes: settings.keepShapes)
      return result.first.flatMap { $0 } ?? .geometryCollection([])
    } catch {
      throw GeoPipeError.data("a coordinate is not finite", at: nil)
    }
  }

  private static func pow2(_ zoom: Double) -> Double { pow(2, zoom) }
}
