import GeoPipeCore
import GeoPipeIO
import GeoPipeRender
import GeoPipeStageKit

/// `render`: a static map of the features, as PNG (cairo) or SVG.
final class RenderStage: Stage {
  static let definition = StageDefinition(
    name: "render",
    abstract: "Draw the features as a static map (PNG or SVG) with a Web Mercator camera.",
    discussion: """
      Draws every feature it is given on a Web Mercator map (the world is 256 x 2^zoom
      points wide, as in MapKit and the Google Maps SDK) and writes PATH, a .png (drawn with
      cairo) or an .svg, atomically. The camera is one of: --fit (the default: the data's
      bounds, less --padding points on each side, at the highest zoom that fits, up to 18),
      --fit-bounds W,S,E,N (the same for a box; a warning says when no feature is in it but
      some are in the box with its axes swapped), or --center LON,LAT with --zoom Z and
      optionally --bearing B (degrees clockwise from north that face up). --size is in
      points; --scale multiplies the PNG's pixels (2 for a high-density screen).
      --map-type picks the basemap, as MapKit's map types: standard (vector tiles in a
      built-in style, or --basemap polygons as land over water, or a plain background),
      satellite (raster tiles), hybrid (raster tiles with the vector tiles' boundaries and
      place labels, and the polygons' outlines, on top) or none. Without it, the map type is
      satellite when every tile source given is raster, hybrid when raster and vector tiles
      are given, else standard. --basemap SOURCE may be given more than once; every source is
      a local file, nothing is fetched:
        an .mbtiles or .pmtiles file of raster tiles (format png, jpg or webp) or of vector
          tiles (pbf: geopipe's tiles or tippecanoe's);
        a folder of raster tiles DIR/{z}/{x}/{y}.png (or .jpg, .jpeg, .webp), rows counted
          from the north (XYZ); write tms:DIR for rows counted from the south (TMS), and
          xyz:DIR to say XYZ explicitly;
        any other file: polygons (GeoJSON, Shapefile, ...) drawn as land.
      Raster tiles are drawn at zoom floor(zoom + log2(scale)), within the source's zooms
      (deeper zooms enlarge its deepest tiles), each read once, scaled with cairo's filtering
      and turned with --bearing; vector tiles at floor(zoom), within theirs. A tile the
      source does not hold shows the background; a tile that cannot be decoded too, with a
      warning. The built-in vector style draws water, land, parks, rivers, roads,
      boundaries (admin_level 4 and below) and place labels by the layer and property names
      of OpenMapTiles, Shortbread and geopipe's tiles (see docs/formats.md, "Static maps");
      --basemap-style FILE maps other schemas: a YAML file of per-layer rules whose fill,
      stroke, stroke-width and label take the style stage's values and rules (constants,
      {property} templates, match, steps, case) and an optional --where condition.
      The sources' attribution metadata, or --attribution TEXT, is drawn in the bottom right
      corner. SVG maps embed the tiles' images as they are stored.
      Drawn as MapKit draws annotations and overlays, bottom to top: the basemap, polygons,
      lines, and circles (Points with geopipe:radius_m, in metres) in their stroke,
      stroke-width, stroke-opacity, fill and fill-opacity (simplestyle-spec defaults); pins in marker-color and marker-size; cluster markers
      (from cluster: point_count) with their count and a pie of PROP_counts (from cluster
      --count-by PROP; --count-by here picks PROP, else the first *_counts property), with a
      legend; titles below markers where they fit; a scale bar; and a north arrow when the
      bearing is not 0.
      geopipe:priority is MapKit's display priority: required (the default), high, low or a
      number (1000 is required). Required markers are always drawn; others are drawn by
      priority and dropped where a marker placed before would cover them. Titles are dropped
      where they would overlap a marker or another title.
      Features with tippecanoe zooms (cluster --all-zooms) are drawn when their zoom range
      holds the camera's tile zoom (the floor of --zoom, capped at the data's highest zoom).
      The same input gives the same bytes. This stage keeps every feature in memory.
      """,
    examples: [
      "geopipe read places.geojson | geopipe render map.png --fit --size 800x600",
      "geopipe read places.csv | geopipe style --marker-color '#d33' --title '{name}' | geopipe render map.svg",
      "geopipe read shops.csv | geopipe cluster --zoom 5 --count-by kind | geopipe render clusters.png --fit-bounds -10,35,30,60",
      "geopipe read places.csv | geopipe render map.png --center 2.35,48.85 --zoom 11 --bearing 30 --scale 2",
      "geopipe read places.csv | geopipe cluster --all-zooms | geopipe render map.png --center 10,50 --zoom 4.5 --basemap countries.geojson",
      "geopipe read places.csv | geopipe render map.png --map-type satellite --basemap imagery.mbtiles --scale 2",
      "geopipe read places.csv | geopipe render map.png --map-type hybrid --basemap imagery.pmtiles --basemap streets.pmtiles",
      "geopipe read places.csv | geopipe render map.png --basemap tms:tiles/ --attribution '© My Imagery'",
      "geopipe read places.csv | geopipe render map.svg --basemap osm.mbtiles --basemap-style streets.yaml",
    ],
    options: [
      OptionSpec(
        "path", .path, required: true, positional: true,
        help: "The image to write: a .png or an .svg file."),
      OptionSpec("fit", .flag, help: "Fit the data's bounds (the default camera)."),
      OptionSpec(
        "fit-bounds", .bbox, help: "Fit the box W,S,E,N (W > E crosses the antimeridian)."),
      OptionSpec(
        "padding", .number, default: "40", help: "Points left free on each side when fitting."),
      OptionSpec("center", .point, help: "The camera's target LON,LAT (with --zoom)."),
      OptionSpec("zoom", .number, help: "The camera's zoom, 0 to 24, fractions allowed."),
      OptionSpec(
        "bearing", .number, default: "0", help: "Degrees clockwise from north that face up."),
      OptionSpec(
        "size", .string, default: "1024x768",
        validate: {
          RenderStage.size($0) == nil ? ValueProblem("expected WxH, e.g. 1024x768") : nil
        },
        help: "The map's width and height in points, each 1 to 8192."),
      OptionSpec("scale", .number, default: "1", help: "PNG pixels per point, 0.25 to 8."),
      OptionSpec(
        "map-type", .choice(MapType.allCases.map(\.rawValue)),
        help: "The basemap: standard, satellite, hybrid or none (default: from the sources)."),
      OptionSpec(
        "basemap", .list,
        help: "A basemap source: an .mbtiles or .pmtiles tileset (raster or vector), a tile "
          + "folder DIR/{z}/{x}/{y}.png (tms:DIR for TMS rows), or a file of polygons; "
          + "repeatable."),
      OptionSpec(
        "basemap-style", .path,
        help: "A YAML style for vector basemap tiles: per-layer fill, stroke and label rules "
          + "(see docs/formats.md)."),
      OptionSpec(
        "attribution", .string,
        help: "Text drawn in the bottom right corner (default: the sources' attribution)."),
      OptionSpec(
        "count-by", .string, help: "Draw cluster pies from PROP_counts (from cluster --count-by)."),
    ],
    role: .sink, buffersAll: true,
    make: { values, context in .stage(try RenderStage(values, context: context)) })

  private let path: String
  private let map: StaticMap
  private let format: StaticMap.ImageFormat
  private let mapType: MapType
  private let basemapPolygons: [Feature]
  private let rasterSources: [any RasterTileSource]
  private let vectorSources: [any VectorTileSource]
  private let attribution: String?
  private let style: BasemapStyle
  private var features: [Feature] = []
  private var boxCheck: SwappedBoxCheck?
  private let report: @Sendable (ReadDiagnostic) -> Void
  /// Opened before any feature is read, so a path that cannot be written fails at once.
  private let output: OutputFile

  init(_ values: OptionValues, context: StageContext) throws {
    path = values.string("path") ?? ""
    boxCheck = values.bbox("fit-bounds").map { SwappedBoxCheck(stage: "render", box: $0) }
    report = context.diagnostics
    let lowered = path.lowercased()
    if lowered.hasSuffix(".png") {
      format = .png
    } else if lowered.hasSuffix(".svg") {
      format = .svg
    } else {
      throw GeoPipeError.usage("render: PATH must end in .png or .svg, not '\(path)'")
    }
    guard let (width, height) = RenderStage.size(values.string("size") ?? "1024x768") else {
      throw GeoPipeError.usage("render: --size expects WxH with each 1 to 8192")
    }
    let scale = values.number("scale") ?? 1
    guard scale >= 0.25 && scale <= 8, Double(max(width, height)) * scale <= 16384 else {
      throw GeoPipeError.usage("render: --scale must be 0.25 to 8, and size x scale at most 16384")
    }
    let padding = values.number("padding") ?? 40
    guard padding >= 0 else { throw GeoPipeError.usage("render: --padding must be 0 or more") }
    let chosen = [values.flag("fit"), values.has("fit-bounds"), values.has("center")].count {
      $0
    }
    guard chosen <= 1 else {
      throw GeoPipeError.usage("render: give one of --fit, --fit-bounds or --center")
    }
    let camera: StaticMap.CameraChoice
    if let center = values.point("center") {
      guard let zoom = values.number("zoom") else {
        throw GeoPipeError.usage("render: --center needs --zoom")
      }
      guard zoom >= 0 && zoom <= 24 else {
        throw GeoPipeError.usage("render: --zoom must be 0 to 24")
      }
      camera = .center(
        longitude: center.lon, latitude: center.lat, zoom: zoom,
        bearing: values.number("bearing") ?? 0)
    } else {
      guard !values.has("zoom") else {
        throw GeoPipeError.usage("render: --zoom goes with --center")
      }
      if let box = values.bbox("fit-bounds") {
        camera = .fitBounds(box, padding: padding)
      } else {
        camera = .fit(padding: padding)
      }
    }
    map = StaticMap(
      width: width, height: height, scale: scale, camera: camera,
      countBy: values.string("count-by"))
    var polygons: [Feature] = []
    var raster: [any RasterTileSource] = []
    var vector: [any VectorTileSource] = []
    for argument in values.list("basemap") ?? [] {
      switch try BasemapSources.open(argument) {
      case .raster(let source): raster.append(source)
      case .vector(let source): vector.append(source)
      case .polygons(let basemapPath):
        let reader = try ReadStage.open(basemapPath, values: OptionValues(), context: context)
        while let feature = try reader.next() {
          switch feature.geometry {
          case .polygon?, .multiPolygon?: polygons.append(feature)
          default: continue
          }
        }
      }
    }
    let mapType =
      values.string("map-type").map { MapType(rawValue: $0) ?? .standard }
      ?? (raster.isEmpty ? .standard : vector.isEmpty ? .satellite : .hybrid)
    switch mapType {
    case .satellite, .hybrid:
      guard !raster.isEmpty else {
        throw GeoPipeError.usage(
          "render: --map-type \(mapType.rawValue) needs a --basemap of raster tiles (an "
            + ".mbtiles or .pmtiles of PNG, JPEG or WebP tiles, or a tile folder)")
      }
    case .standard:
      guard raster.isEmpty else {
        throw GeoPipeError.usage(
          "render: --map-type standard draws vector tiles or polygons, not the raster tiles of "
            + "\(raster[0].name); use --map-type satellite or hybrid")
      }
    case .none:
      guard values.list("basemap") == nil else {
        throw GeoPipeError.usage("render: --map-type none draws no basemap; leave out --basemap")
      }
    }
    self.mapType = mapType
    basemapPolygons = polygons
    rasterSources = raster
    vectorSources = vector
    attribution = values.string("attribution")
    style =
      try values.string("basemap-style").map { try BasemapStyleFile(path: $0).style }
      ?? BuiltInBasemapStyle.style
    output = try OutputFile(path: path)
  }

  /// `WxH` with each side 1 to 8192.
  static func size(_ text: String) -> (Int, Int)? {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
      (1...8192).contains(width), (1...8192).contains(height)
    else { return nil }
    return (width, height)
  }

  func process(_ feature: Feature, emit: Emit) throws {
    features.append(feature)
  }

  func finish(emit: Emit) throws {
    let withoutGeometry = features.count { $0.geometry == nil }
    if withoutGeometry > 0 {
      report(
        ReadDiagnostic(
          severity: .note,
          message: "render: left out \(withoutGeometry) feature\(withoutGeometry == 1 ? "" : "s") "
            + "without geometry"))
    }
    if var boxCheck {
      // A map of a box given latitude first shows somewhere else: say so.
      for feature in features {
        if let geometry = feature.geometry, boxCheck.intersects(geometry) { break }
      }
      boxCheck.finish(report: report)
    }
    let report = report
    let basemap = Basemap(
      mapType: mapType, raster: rasterSources, vector: vectorSources, polygons: basemapPolygons,
      style: style, attribution: attribution,
      warn: { report(ReadDiagnostic(severity: .warning, message: "render: \($0)")) })
    let bytes = try map.render(features, basemap: basemap, format: format)
    try bytes.withUnsafeBytes { try output.write($0) }
    try output.commit()
  }

  func abort() { output.abort() }
}
