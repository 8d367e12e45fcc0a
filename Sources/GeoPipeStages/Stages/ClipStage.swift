import GeoPipeCore
import GeoPipeGEOS
import GeoPipeIO
import GeoPipeStageKit
import GeoPipeValidation

/// `clip`: each geometry cut to the area of a box or of another layer's polygons.
enum ClipStage {
  static let definition = StageDefinition(
    name: "clip",
    abstract: "Cut geometries to a box or to the polygons of another layer (GEOS intersection).",
    discussion: """
      Keeps the part of each geometry inside --bbox W,S,E,N (W > E crosses the antimeridian)
      or inside the union of the polygons of --with (any format geopipe reads; --with-layer
      picks a layer): features are cut, not just filtered. A geometry wholly inside is passed
      on unchanged, one wholly outside is dropped, and the others are cut with GEOS's
      intersection (OverlayNG). A cut keeps the parts of the geometry's own dimension: a
      polygon touching the edge gives no stray line or point. A feature left with nothing is
      dropped, and the drops are counted on standard error. An invalid polygon is made valid
      (GEOS MakeValid) when GEOS cannot cut it as it is. Coordinates are cut in
      longitude/latitude as given (planar, as mapshaper and GeoPandas do). Runs on every
      processor; the output is in input order.
      """,
    examples: [
      "geopipe read roads.geojson | geopipe clip --bbox 5.9,45.8,10.5,47.8 > swiss-roads.geojsonl",
      "geopipe read rivers.geojson | geopipe clip --with country.geojson | geopipe write rivers-in.geojson",
    ],
    options: [
      OptionSpec("bbox", .bbox, help: "The box to cut to: W,S,E,N in degrees."),
      OptionSpec(
        "with", .path, help: "Cut to the union of this file's polygons (any readable format)."),
      OptionSpec("with-layer", .string, help: "The layer of --with to use, when it holds several."),
    ],
    role: .transform,
    make: { values, context in
      let area = try ClipArea(values, context: context)
      let diagnostics = context.diagnostics
      return .stage(
        OrderedFeatureMap(
          threads: context.threads, makeState: { try ClipWorker(area) },
          report: notingDrops(by: "clip", to: diagnostics),
          work: { feature, index, worker in try worker.clip(feature, index: index) }))
    })
}

/// The area to cut to: one polygonal geometry and its box.
struct ClipArea: Sendable {
  let geometry: Geometry
  let box: BBox

  init(_ values: OptionValues, context: StageContext) throws {
    switch (values.bbox("bbox"), values.string("with")) {
    case (let box?, nil):
      let rectangles =
        box.west <= box.east
        ? [Self.rectangle(box.west, box.south, box.east, box.north)]
        : [
          Self.rectangle(box.west, box.south, 180, box.north),
          Self.rectangle(-180, box.south, box.east, box.north),
        ]
      geometry = rectangles.count == 1 ? .polygon(rectangles[0]) : .multiPolygon(rectangles)
    case (nil, let path?):
      let layer = try JoinLayer(path: path, layer: values.string("with-layer"), context: context)
      let polygons = layer.features.compactMap(\.geometry).filter {
        $0.kind == .polygon || $0.kind == .multiPolygon
      }
      guard !polygons.isEmpty else {
        throw GeoPipeError.data("clip: \(path) has no polygons to cut to", at: nil)
      }
      do {
        let geos = try GEOSContext()
        geometry = try geos.union(polygons.map { try geos.isValid($0) ? $0 : geos.makeValid($0) })
      } catch {
        throw GeoPipeError.data("clip: cannot merge the polygons of \(path): \(error)", at: nil)
      }
    case (nil, nil):
      throw GeoPipeError.usage("clip needs --bbox W,S,E,N or --with FILE")
    case (.some, .some):
      throw GeoPipeError.usage("clip takes --bbox or --with, not both")
    }
    guard let box = geometry.bbox else {
      throw GeoPipeError.data("clip: the area to cut to is empty", at: nil)
    }
    self.box = box
  }

  private static func rectangle(_ w: Double, _ s: Double, _ e: Double, _ n: Double)
    -> [CoordinateArray]
  {
    [CoordinateArray(storage: [w, s, e, s, e, n, w, n, w, s], dimension: 2)]
  }
}

/// A worker's GEOS context and its prepared copy of the clip area.
final class ClipWorker {
  private let area: ClipArea
  private let geos: GEOSContext
  private let prepared: GEOSPreparedGeometry

  init(_ area: ClipArea) throws {
    self.area = area
    do {
      geos = try GEOSContext()
      prepared = try geos.prepare(area.geometry)
    } catch {
      throw GeoPipeError("\(error)", status: .ioError)
    }
  }

  func clip(_ feature: Feature, index: Int) throws -> FeatureOutcome {
    guard let geometry = feature.geometry, let box = geometry.bbox else { return .emit(feature) }
    guard box.west <= area.box.east, area.box.west <= box.east, box.south <= area.box.north,
      area.box.south <= box.north
    else { return .drop(reason: "outside the area") }
    do {
      if try prepared.covers(geometry) { return .emit(feature) }
      guard try prepared.intersects(geometry) else { return .drop(reason: "outside the area") }
      var cut: Geometry
      do {
        cut = try geos.intersection(geometry, area.geometry)
      } catch is GEOSError {
        cut = try geos.intersection(geos.makeValid(geometry), area.geometry)
      }
      guard let kept = Dimension.keeping(Dimension.of(geometry), of: cut) else {
        return .drop(reason: "left with only a boundary touching the area")
      }
      var result = feature
      result.geometry = kept.rewound()
      return .emit(result)
    } catch let error as GEOSError {
      throw GeoPipeError.data("feature \(index): cannot clip: \(error)", at: nil)
    }
  }
}

/// Topological dimension: 0 for points, 1 for lines, 2 for polygons.
enum Dimension {
  /// The highest dimension of the geometry's parts.
  static func of(_ geometry: Geometry) -> Int {
    switch geometry {
    case .point, .multiPoint: 0
    case .lineString, .multiLineString: 1
    case .polygon, .multiPolygon: 2
    case .geometryCollection(let members): members.map(of).max() ?? 0
    }
  }

  /// The parts of `geometry` of dimension `dimension`, as a single or multi geometry; nil when
  /// there are none.
  static func keeping(_ dimension: Int, of geometry: Geometry) -> Geometry? {
    var parts: [Geometry] = []
    ExplodeStage.parts(of: geometry, into: &parts)
    switch dimension {
    case 0:
      let points = parts.compactMap { if case .point(let p) = $0 { p } else { nil } }
      guard !points.isEmpty else { return nil }
      return points.count == 1 ? .point(points[0]) : .multiPoint(CoordinateArray(points))
    case 1:
      let lines = parts.compactMap { if case .lineString(let l) = $0 { l } else { nil } }
      guard !lines.isEmpty else { return nil }
      return lines.count == 1 ? .lineString(lines[0]) : .multiLineString(lines)
    default:
      let polygons = parts.compactMap { if case .polygon(let r) = $0 { r } else { nil } }
      guard !polygons.isEmpty else { return nil }
      return polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(polygons)
    }
  }
}
