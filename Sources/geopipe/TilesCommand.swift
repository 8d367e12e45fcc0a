import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator
import GeoPipeStageKit
import GeoPipeStages
import GeoPipeTiles

/// `geopipe tiles info|decode|join`: reading tilesets, beside the `tiles` stage that writes
/// them.
enum TilesCommand {
  static let tilesetPath = OptionSpec(
    "path", .path, required: true, positional: true,
    help: "The tileset: an MBTiles or PMTiles file.")

  static let infoOptions: [OptionSpec] = [
    tilesetPath, OptionSpec("json", .flag, help: "Print the description as one JSON object."),
  ]

  static let decodeOptions: [OptionSpec] =
    [
      tilesetPath,
      OptionSpec(
        "tile", .string, positional: true,
        help: "The tile to decode, as Z/X/Y (XYZ rows, counted from the north); "
          + "without it, every tile in tile order."),
      OptionSpec(
        "tile-coordinates", .flag,
        help: "Keep the tile's integer coordinates (x east, y down, 0 to the layer's extent) "
          + "and its winding, instead of longitudes and latitudes."),
    ] + Help.stdoutOptions

  static let joinOptions: [OptionSpec] = [
    OptionSpec(
      "output", .path, required: true, positional: true,
      help: "The tileset to write: a .mbtiles or .pmtiles file (replaced when complete)."),
    OptionSpec(
      "inputs", .path, required: true, positional: true, variadic: true,
      help: "The tilesets to merge, MBTiles or PMTiles in any mix."),
    OptionSpec(
      "include", .list, short: "y",
      help: "Keep only these attributes (tippecanoe's -y; implies --exclude-all)."),
    OptionSpec("exclude", .list, short: "x", help: "Leave out these attributes (tippecanoe's -x)."),
    OptionSpec(
      "exclude-all", .flag, short: "X",
      help: "Leave out every attribute not named by --include (tippecanoe's -X)."),
    OptionSpec(
      "max-tile-bytes", .integer, default: String(TileSizeLimits.defaultMaxBytes),
      help: "Warn about a merged tile larger than this, in bytes as stored (gzipped)."),
    OptionSpec(
      "max-tile-features", .integer, default: String(TileSizeLimits.defaultMaxFeatures),
      help: "Warn about a merged tile with more features than this."),
    OptionSpec("no-tile-size-limit", .flag, help: "Check no tile against the size limits."),
    OptionSpec(
      "name", .string, help: "The joined tileset's name (default: the inputs' names joined by +)."),
  ]

  static let discussion = """
    'tiles info PATH' describes a tileset (MBTiles or PMTiles, told apart by its first bytes):
    its metadata, then per zoom the number of tiles, their total, largest and median sizes as
    stored and their features, and the ten largest tiles; --json prints it as one object.
    'tiles decode PATH [Z/X/Y]' writes the features of one tile, or of every tile in tile
    order (streamed, one tile at a time), as GeoJSONSeq on standard output: in longitude and
    latitude (x / extent across the tile, then inverse Web Mercator), or with
    --tile-coordinates in the tile's integer units. Each feature has its layer as
    "tippecanoe": {"layer": NAME} and its tile as "tile": "z/x/y"; piped into 'geopipe tiles'
    the layers are kept. Polygon rings are told apart by their winding in the tile (MVT 2.1)
    and written with RFC 7946 winding.
    'tiles join OUT IN...' merges tilesets as tippecanoe's tile-join does: a tile that one
    input holds is copied as it is stored; a tile that several hold gets all their layers,
    the features of same-named layers concatenated (keys and values re-tabled). Metadata
    vector_layers are merged (fields unioned), bounds and zoom ranges unioned. MBTiles and
    PMTiles mix in any direction. --include/--exclude/--exclude-all re-encode every tile
    without the attributes they leave out. A merged tile over --max-tile-bytes or
    --max-tile-features is a warning naming it (--no-tile-size-limit: no check). Inputs are
    read side by side in tile order; OUT is written beside its path and renamed when complete.
    """

  static let examples = [
    "geopipe tiles info world.pmtiles",
    "geopipe tiles info --json places.mbtiles",
    "geopipe tiles decode world.pmtiles 3/4/2 | geopipe write tile.geojson",
    "geopipe tiles decode --tile-coordinates places.mbtiles 0/0/0",
    "geopipe tiles decode a.pmtiles | geopipe tiles b.mbtiles --max-zoom 8",
    "geopipe tiles join all.pmtiles east.pmtiles west.mbtiles",
    "geopipe tiles join -x internal_id small.mbtiles big.pmtiles",
  ]

  static let actions = CommandActions(
    actions: [
      .init(name: "info", options: infoOptions, title: "INFO OPTIONS"),
      .init(name: "decode", options: decodeOptions, title: "DECODE OPTIONS"),
      .init(name: "join", options: joinOptions, title: "JOIN OPTIONS"),
    ],
    discussion: discussion, examples: examples,
    run: { action, values in
      var writer: GeoJSONSeqWriter?
      do {
        switch action {
        case "info": try info(values)
        case "decode": try decode(values, writer: &writer)
        default: try join(values)
        }
        return 0
      } catch is BrokenPipe {
        return 0
      } catch let error as GeoPipeError {
        CommandEntry.printUsageError(error, command: "tiles")
        Command.endOutput(writer, with: error, streamsFeatures: action == "decode")
        return error.status.rawValue
      } catch {
        let wrapped = GeoPipeError("\(error)", status: .ioError)
        Terminal.printError(wrapped.description)
        Command.endOutput(writer, with: wrapped, streamsFeatures: action == "decode")
        return wrapped.status.rawValue
      }
    })

  private static func info(_ values: OptionValues) throws {
    let statistics = try TilesetStatistics(reading: openTileset(path: values.string("path") ?? ""))
    if values.flag("json") {
      var writer = JSONTextWriter()
      writer.writeValue(statistics.json)
      print(String(decoding: writer.bytes, as: UTF8.self))
    } else {
      print(statistics.text, terminator: "")
    }
  }

  private static func decode(_ values: OptionValues, writer: inout GeoJSONSeqWriter?) throws {
    let path = values.string("path") ?? ""
    let reader = try openTileset(path: path)
    let decoder = try TileFeatureDecoder(tileCoordinates: values.flag("tile-coordinates"))
    var one: TileID?
    if let text = values.string("tile") {
      let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
      guard parts.count == 3, let z = parts[0], let x = parts[1], let y = parts[2],
        let tile = TileID(z: z, x: x, y: y)
      else {
        throw GeoPipeError.usage(
          "'\(text)' is not a tile; give Z/X/Y with X and Y from 0 to 2^Z - 1, such as 3/4/2")
      }
      one = tile
    }
    writer = try Command.standardOutputWriter(values)
    func write(_ tile: TileID, _ data: [UInt8]) throws {
      let features: [Feature]
      do {
        features = try decoder.features(of: data, tile: tile)
      } catch {
        throw GeoPipeError("\(path): tile \(tile): \(error)", status: .dataError)
      }
      for feature in features { try writer?.write(feature) }
    }
    if let one {
      guard let data = try reader.data(of: one) else {
        throw GeoPipeError("\(path) holds no tile \(one)", status: .noInput)
      }
      try write(one, data)
    } else {
      while let (tile, data) = try reader.next() { try write(tile, data) }
    }
    try writer?.finish()
  }

  private static func join(_ values: OptionValues) throws {
    let quiet = values.flag("quiet")
    let output = values.string("output") ?? ""
    let inputs = try (values.list("inputs") ?? []).map { try openTileset(path: $0) }
    var joiner = TilesetJoiner()
    joiner.filter = TileAttributeFilter(
      include: values.list("include") ?? [], exclude: values.list("exclude") ?? [],
      excludeAll: values.flag("exclude-all"))
    joiner.limits = TileSizeLimits(
      maxBytes: values.integer("max-tile-bytes") ?? TileSizeLimits.defaultMaxBytes,
      maxFeatures: values.integer("max-tile-features") ?? TileSizeLimits.defaultMaxFeatures,
      isDisabled: values.flag("no-tile-size-limit"))
    joiner.threads = Command.threads
    let fields: [String] = inputs.flatMap(\.metadata.vectorLayers).flatMap { layer -> [String] in
      if case .object(let fields)? = layer["fields"] { fields.keys } else { [] }
    }
    if !quiet {
      for name in joiner.filter.unmatched(among: fields) {
        Terminal.printError("tiles join: warning: no input layer has the attribute '\(name)'")
      }
    }
    let writer: any TilesetWriter
    do {
      writer = try makeTilesetWriter(path: output)
    } catch let error as TilesError {
      throw GeoPipeError.usage(error.description)
    }
    let summary = try joiner.join(inputs, into: writer, name: values.string("name"))
    guard !quiet else { return }
    for (tile, violation) in summary.oversized {
      Terminal.printError("tiles join: warning: \(violation.warning(tile: tile))")
    }
    Terminal.printError(
      "tiles join: wrote \(summary.tiles) tiles to \(output) "
        + "(\(summary.merged) merged from several inputs)")
  }
}
