import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit
import GeoPipeTiles

/// `tiles`: features → a vector tileset (MBTiles or PMTiles).
final class TilesStage: Stage {
  static let definition = StageDefinition(
    name: "tiles",
    abstract: "Cut features into vector tiles: an MBTiles or PMTiles file.",
    discussion: """
      Writes Mapbox Vector Tiles 2.1 (extent 4096, gzipped) for every zoom from
      --min-zoom to --max-zoom into PATH: an MBTiles 1.3 file (SQLite, TMS rows, metadata with
      vector_layers) when PATH ends in .mbtiles, a PMTiles v3 archive (Hilbert tile ids,
      leaf directories when needed) when it ends in .pmtiles. Lines and polygons are clipped
      to each tile plus --buffer tile units (each zoom's pieces cut from the zoom above's, so a
      feature reaches only the tiles it touches; a tile inside a polygon gets the whole tile),
      simplified by --simplification tile units, and polygons made valid after rounding (a
      polygon whose rings cross themselves is made valid by GEOS before it is cut); points go into their tile and the buffers of the tiles beside them, across the
      antimeridian too. Unless a strategy or --base-zoom is given, no feature is dropped:
      every tile holds all of its features (features without geometry, which no tile can
      hold, are counted in a note). A
      feature's "tippecanoe": {"minzoom", "maxzoom"} member (written by 'cluster --all-zooms')
      limits the zooms it appears at, and its "layer" names its layer; otherwise the value of
      --layer-property (then left out of the properties), else --layer. Properties keep their types;
      null values are left out and arrays and objects become their JSON text, as tippecanoe
      does; an integer id that is not negative becomes the tile feature's id. PATH is checked
      (and its missing folders created) before any feature is read; the file is written
      beside PATH, synced and renamed when complete. Holds every feature in memory
      (projected, with properties as numbers into shared tables), one zoom's pieces of lines
      and polygons, and one zoom's placements.

      Map clients (Mapbox GL, MapLibre, Leaflet plugins) reject or stall on big tiles, so each
      tile is checked against --max-tile-bytes (500000, gzipped as stored) and
      --max-tile-features (200000), tippecanoe's defaults: a tile over them is a warning naming
      it and its size, unless --no-tile-size-limit. A strategy makes tiles below --max-zoom fit
      instead, with tippecanoe's semantics: --drop-densest-as-needed drops the features nearest
      their neighbours, --drop-fraction-as-needed a growing fraction spread over the map,
      --drop-smallest-as-needed the smallest polygons, shortest lines and densest points, and
      --coalesce-densest-as-needed merges the densest features into the feature before them
      (same layer and kind; the merged properties are lost). A tile that is too big raises its
      zoom's threshold until it fits, and the whole zoom is then cut with the highest threshold
      any tile needed. --cluster-densest-as-needed instead clusters the zoom's points as
      supercluster does (per layer, one radius for the whole zoom, grown until every tile
      fits): a cluster is one point at its members' centroid with the properties of its first
      member in input order and clustered: true, point_count (exact, unlike tippecanoe's),
      sqrt_point_count and point_count_abbreviated; lines and polygons are left as they are.
      The highest zoom keeps every feature (a tile there that is still too
      big is a warning; tippecanoe drops there too). --base-zoom and --drop-rate thin points
      below the base zoom as tippecanoe's -B and -r do (1 in RATE^(base - z) kept, spread along
      the quadkey curve; g guesses either so that the densest tile keeps at most 50,000).
      What a zoom lost is a note per zoom on stderr and "geopipe": {"dropped": {"Z": N}} (or
      "coalesced", or "clustered": the points merged into clusters) in the metadata JSON. --max-zoom g chooses the zoom at which the features
      are told apart (tippecanoe's -zg: from the spacing of the points along the quadkey curve,
      and of the vertices of lines and polygons) and says so in a note.

      --include keeps only the properties it names, --exclude leaves its names out,
      --exclude-all leaves out all but --include's; --attribute-type NAME=TYPE converts a
      property to string, float, int or bool (a value that is no number is left out, and
      counted in a warning). A name that no feature has is a warning (an error with --strict).
      tippecanoe's short names work too, with the value attached or not: -z, -Z, -M, -O, -B,
      -r, -y, -x, -X, -T (-zg, -B8, -yname).
      """,
    examples: [
      "geopipe read world.geojson | geopipe tiles world.pmtiles --max-zoom 8 --layer-property kind",
      "geopipe read places.csv | geopipe tiles places.pmtiles --min-zoom 0 --max-zoom 12",
      "geopipe read roads.geojson | geopipe tiles roads.mbtiles --max-zoom 14 --layer roads",
      "geopipe read cities.geojson | geopipe cluster --all-zooms | geopipe tiles clusters.pmtiles",
      "geopipe read cities.geojson | geopipe tiles cities.pmtiles --max-zoom g --drop-densest-as-needed",
      "geopipe read shops.geojson | geopipe tiles shops.pmtiles --max-zoom g --cluster-densest-as-needed",
      "geopipe read cities.geojson | geopipe tiles cities.pmtiles -zg -B g --include name,population",
      "geopipe read parcels.geojson | geopipe tiles parcels.mbtiles --max-zoom 14 "
        + "--coalesce-densest-as-needed --max-tile-bytes 250000 --attribute-type zone=string",
    ],
    options: [
      OptionSpec(
        "path", .path, required: true, positional: true,
        help: "The tileset to write: a .mbtiles or .pmtiles file."),
      OptionSpec(
        "min-zoom", .integer, default: String(TilerOptions().minZoom), short: "Z",
        help: "The lowest zoom to write."),
      OptionSpec(
        "max-zoom", .string, default: String(TilerOptions().maxZoom), short: "z",
        validate: TilesOptions.zoomOrGuess,
        help: "The highest zoom to write (at most 24), or g to guess it from the features' spacing."
      ),
      OptionSpec(
        "layer", .string,
        help: "The layer's name (default: the file name without its extension)."),
      OptionSpec(
        "layer-property", .string,
        help:
          "A property whose value names each feature's layer; it is left out of the tiles' properties."
      ),
      OptionSpec(
        "buffer", .integer, default: String(TilerOptions().buffer),
        help: "Tile units (of 4096) kept around each tile when clipping lines and polygons."),
      OptionSpec(
        "simplification", .number, default: Template.displayText(TilerOptions().tolerance),
        help: "Douglas-Peucker tolerance in tile units for lines and polygons (0: none)."),
      OptionSpec(
        "name", .string, help: "The tileset's name in its metadata (default: the layer's)."),
      OptionSpec("attribution", .string, default: "", help: "The attribution in the metadata."),
      OptionSpec("description", .string, default: "", help: "The description in the metadata."),
    ] + TilesOptions.specs,
    role: .sink, buffersAll: true,
    make: { values, context in
      .stage(try TilesStage(values: values, threads: context.threads, context: context))
    })

  /// What the stage writes.
  enum Mode {
    /// The tileset at its path (or, in a tile share, the share's tiles).
    case tileset
    /// A shard's features, prepared for the shares of the tiles
    /// (``ShardedTiles/featuresPartWriter``).
    case featuresPart(Shard)
    /// A share of the tiles, from the features parts of every shard in shard order
    /// (``ShardedTiles/shareWriter``).
    case share(parts: [String])
  }

  let tiler: Tiler
  private let mode: Mode
  /// The tileset, or nil when the stage writes a features part.
  private let writer: (any TilesetWriter)?
  /// The features part, or nil when the stage writes a tileset.
  private let partFile: OutputFile?
  private let path: String
  private let name: String
  private let attribution: String
  private let description: String
  let report: (@Sendable (ReadDiagnostic) -> Void)?
  /// Features without geometry, which no tile can hold.
  private var withoutGeometry = 0
  private var usage: PropertyUsage
  let strategy: TileDropStrategy?
  let guessesMaxZoom: Bool
  /// Whether the stage writes a part for the merge (a shard's tileset or a share of the
  /// tiles), whose exact bounds and oversized tiles go beside it, rather than reporting them.
  private let writesPart: Bool
  /// Whether the stage reports what it saw of the features (a share other than the first
  /// does not: every share sees the same features).
  private let reportsFeatures: Bool

  init(values: OptionValues, threads: Int, context: StageContext? = nil, mode: Mode = .tileset)
    throws
  {
    self.mode = mode
    report = context?.diagnostics
    writesPart = context?.shard != nil || context?.tileShare != nil
    reportsFeatures = (context?.tileShare?.index ?? 0) == 0
    let path = values.string("path") ?? ""
    self.path = path
    // The option table's defaults are TilerOptions' own; an absent value keeps them.
    var options = TilerOptions()
    if let minZoom = values.integer("min-zoom") { options.minZoom = minZoom }
    if let maxZoom = values.string("max-zoom") {
      options.guessesMaxZoom = maxZoom == "g"
      options.maxZoom = Int(maxZoom) ?? 24
    }
    guard (0...24).contains(options.minZoom), (0...24).contains(options.maxZoom) else {
      throw GeoPipeError.usage("--min-zoom and --max-zoom must be between 0 and 24")
    }
    guard options.minZoom <= options.maxZoom else {
      throw GeoPipeError.usage(
        "--min-zoom (\(options.minZoom)) is greater than --max-zoom (\(options.maxZoom))")
    }
    if let buffer = values.integer("buffer") { options.buffer = buffer }
    guard (0...4096).contains(options.buffer) else {
      throw GeoPipeError.usage("--buffer must be between 0 and 4096 tile units")
    }
    if let tolerance = values.number("simplification") { options.tolerance = tolerance }
    guard options.tolerance >= 0 else {
      throw GeoPipeError.usage("--simplification must not be negative")
    }
    let lower = path.lowercased()
    let writesFeatures: Bool
    if case .featuresPart = mode { writesFeatures = true } else { writesFeatures = false }
    guard writesFeatures || lower.hasSuffix(".mbtiles") || lower.hasSuffix(".pmtiles") else {
      throw GeoPipeError.usage("the tileset path must end in .mbtiles or .pmtiles: '\(path)'")
    }
    let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    options.layer = values.string("layer") ?? stem
    options.layerProperty = values.string("layer-property")
    options.threads = threads
    try TilesOptions.apply(values, to: &options)
    options.share = context?.tileShare
    if options.share != nil || writesFeatures, let reason = ShardedTiles.singleReduceReason(values)
    {
      throw GeoPipeError.usage("tiles: cannot write a share of the tiles: \(reason)")
    }
    usage = PropertyUsage(
      stage: "tiles", names: TilesOptions.namedProperties(options), strict: values.flag("strict"))
    strategy = options.strategy
    guessesMaxZoom = options.guessesMaxZoom
    name = values.string("name") ?? options.layer
    attribution = values.string("attribution") ?? ""
    description = values.string("description") ?? ""
    tiler = Tiler(options: options)
    if let counters = context?.counters {
      let maxZoom = options.maxZoom
      tiler.progress = { at in
        counters.report(
          "zoom \(at.zoom) of \(maxZoom): \(at.zoomTilesWritten) of \(at.zoomTiles) tiles "
            + "(\(at.zoomTilesWritten * 100 / max(at.zoomTiles, 1))%), \(at.summary.tiles) tiles, "
            + String(format: "%.1f MB", Double(at.summary.bytes) / 1e6) + " written")
      }
    }
    // Before any feature is read: a path that cannot be written fails now, not after the
    // tiles are built.
    if writesFeatures {
      writer = nil
      partFile = try OutputFile(path: path)
      return
    }
    partFile = nil
    do {
      writer = try makeTilesetWriter(path: path)
    } catch let error as GeoPipeError {
      throw error
    } catch {
      throw GeoPipeError("\(error)", status: .cannotCreate)
    }
  }

  func process(_ feature: Feature, emit: Emit) throws {
    if feature.geometry == nil { withoutGeometry += 1 }
    usage.observe(feature.properties)
    tiler.add(feature)
  }

  func finish(emit: Emit) throws {
    switch mode {
    case .featuresPart(let shard):
      try writeFeaturesPart(shard: shard)
      return
    case .share(let parts):
      withoutGeometry += try ShardedTiles.absorb(parts, into: tiler)
    case .tileset:
      break
    }
    guard let writer else { return }
    try usage.finish(report: { if reportsFeatures { report?($0) } })
    if guessesMaxZoom {
      guard let guess = tiler.guessMaxZoom() else {
        writer.abort()
        throw GeoPipeError(
          "tiles: cannot guess --max-zoom without two distinct feature locations; give a zoom",
          status: .dataError)
      }
      report?(ReadDiagnostic(severity: .note, message: "tiles: \(guess.description)"))
    }
    if withoutGeometry > 0 && reportsFeatures {
      report?(
        ReadDiagnostic(
          severity: .note,
          message: "tiles: left out \(withoutGeometry) feature\(withoutGeometry == 1 ? "" : "s") "
            + "without geometry"))
    }
    do {
      // A part is committed before what goes beside it, which is removed first: the merge
      // never reads a part with what an earlier run left beside it.
      if writesPart { try ShardedTiles.removePartInfo(beside: path) }
      let summary = try tiler.write(
        to: writer, name: name, attribution: attribution, description: description)
      if writesPart {
        let metadata = tiler.metadata(
          name: name, attribution: attribution, description: description)
        try ShardedTiles.writePartInfo(
          TilesetPartInfo(metadata: metadata, oversized: summary.oversized), beside: path)
      }
      reportLimits(summary, limits: !writesPart)
    } catch {
      writer.abort()
      throw error as? GeoPipeError
        ?? GeoPipeError("cannot write '\(path)': \(error)", status: .ioError)
    }
  }

  /// Writes the shard's features, prepared for the shares of the tiles, to the part.
  private func writeFeaturesPart(shard: Shard) throws {
    guard let partFile else { return }
    do {
      try tiler.featuresPart(shard: shard, withoutGeometry: withoutGeometry).withUnsafeBytes {
        try partFile.write($0)
      }
      try partFile.commit()
    } catch {
      partFile.abort()
      throw error
    }
  }

  func abort() {
    writer?.abort()
    partFile?.abort()
  }
}
