import GeoPipeCore
import GeoPipeGeometry
import GeoPipeIO
import GeoPipeStageKit

/// `read`: any supported input → features.
enum ReadStage {
  static let inputOptions: [OptionSpec] = [
    OptionSpec(
      "input-format", .choice(["auto"] + Formats.readable.map(\.name)), default: "auto",
      help: "The input format; by default taken from a known file extension (whose content "
        + "must agree), else detected from the first bytes."),
    OptionSpec(
      "crs", .string, validate: CRSOption.validate,
      help: "The CRS of the input coordinates (EPSG:3857, a PROJ string or WKT); turns off "
        + "range checks. Input is reprojected to WGS84 unless --keep-crs."),
    OptionSpec(
      "on-error", .choice(ErrorPolicy.allCases.map(\.rawValue)), default: "fail",
      help: "fail: stop at the first bad feature (exit 65); skip: skip bad features and count "
        + "them on stderr."),
    OptionSpec(
      "max-record-size", .string, default: "256MiB",
      validate: { byteCount($0) == nil ? ValueProblem(sizeProblem($0)) : nil },
      help: "The most bytes one record (a feature, a CSV row) or one value may take, in bytes or "
        + "with KiB, MiB or GiB; a longer one is an error (exit 65). Memory stays bounded by it."),
  ]

  /// The options of reading a file: CSV's and those the other formats add.
  static let fileOptions: [OptionSpec] =
    [
      OptionSpec(
        "layer", .string,
        help: "The layer to read from a file that holds several (see 'geopipe layers FILE').")
    ] + csvOptions + Formats.readOptions

  static let csvOptions: [OptionSpec] = [
    OptionSpec("lat", .string, help: "CSV: the latitude column (found by name by default)."),
    OptionSpec("lon", .string, help: "CSV: the longitude column (found by name by default)."),
    OptionSpec("geometry", .string, help: "CSV: a column of WKT geometries."),
    OptionSpec(
      "delimiter", .choice([",", ";", "tab", "|"]),
      help: "CSV: the field delimiter; detected from the header by default."),
    OptionSpec(
      "infer-types", .flag,
      help: "CSV: read numbers and true/false as JSON numbers and booleans, empty cells as "
        + "null (\"007\" stays a string)."),
  ]

  static let definition = StageDefinition(
    name: "read",
    abstract:
      "Read GeoJSON, CSV, GeoPackage, Shapefile, FlatGeobuf, KML, GPX or PostGIS as GeoJSONSeq.",
    discussion: """
      Reads a file (or standard input with '-') and writes one GeoJSON Feature per line to
      standard output, for the next command in a pipe. Several files are read one after
      another into one stream (merged, as mapshaper -merge-layers or ogrmerge do): each
      feature keeps its own properties, so the schema is the union of the inputs' (a CSV
      writer gets every column of every input), and each input is reprojected from its own
      CRS. A known extension decides the format
      (.geojson/.json: GeoJSON; .geojsonl/.geojsons/.ndjson/.jsonl: GeoJSONSeq; .csv/.tsv/.txt:
      CSV; .gpkg: GeoPackage; .shp or a .zip holding one: Shapefile; a .gz suffix is
      decompressed first), and content that contradicts it is an error naming what the bytes
      look like (an empty .geojson too). Standard input and other names are detected from the
      first bytes: gzip, a FeatureCollection (streamed, never loaded whole), a Feature, a bare
      geometry, newline- or RS-delimited sequences (RFC 8142), else CSV; a GeoPackage by its
      SQLite header; KML and GPX by their root element; GeoParquet by PAR1. MBTiles, PMTiles
      and zip archives without a shapefile are recognised and refused by name. --input-format
      overrides all of this.
      A GeoPackage's feature table is read by name (not from standard input): --layer chooses
      the table (needed when there are several); the fid becomes the id, columns keep their
      declared kinds (BLOBs as base64), and a layer in another CRS is reprojected. --bbox reads
      through the table's R-tree index when it has one and is in WGS84 (see docs/formats.md).
      A shapefile (.shp, with its .shx, .dbf, .prj and .cpg) is read with its code page and
      reprojected from its .prj to WGS84; a .zip holding one is read as downloaded (--layer
      NAME picks one of several; see docs/formats.md).
      GPX: waypoints become Points, routes LineStrings and tracks MultiLineStrings (one line
      per segment) with their points' times and elevations in 'times' and 'elevations'
      arrays; --gpx-points gives one Point per track point instead. KML: each Placemark is a
      feature, its name 'title', its style simplestyle properties, its ExtendedData
      properties (as text) and its folders 'folder' (see docs/formats.md).
      CSV coordinates come from latitude/longitude columns found by name (lat/latitude/y and
      lon/long/lng/longitude/x, alone or with words such as deg, dd, wgs84, coord, point,
      decimal: lat_deg, latitude_deg, y_coord, point_y, decimalLatitude; see docs/formats.md)
      or from a WKT column (wkt/geometry/geom). A CSV without coordinate columns gives features
      without geometry, with a warning naming the columns that looked like coordinates.
      Whitespace between records costs no memory; one record longer than --max-record-size is
      an error.
      FlatGeobuf (.fgb, or recognised by its first bytes) is read feature by feature with the
      header's columns; with --bbox, the file's spatial index finds the features in the box
      and only those are read (see docs/formats.md).
      GeoParquet (.parquet/.geoparquet) is read a row group at a time: the 'geo' metadata's
      primary column (WKB or a GeoArrow encoding) is the geometry, the other columns properties
      (dates and timestamps as ISO 8601, decimals exact, lists and structs as JSON), a
      PROJJSON CRS is reprojected; with --bbox, row groups and rows whose covering bbox
      columns miss the box are skipped before decoding (see docs/formats.md).
      A postgresql:// URL reads a PostGIS table (--table) or the rows of a query (--sql),
      streamed with a binary COPY: the geometry column (found by type, or
      --geometry-column) in WGS84 (ST_Transform from another SRID), the other columns as
      properties (timestamps as ISO 8601 text, jsonb as JSON), --fid-column as the id, and
      --bbox as a && filter in the query (see docs/formats.md).
      """,
    examples: [
      "geopipe read places.csv | geopipe write places.geojson",
      "geopipe read north.geojson south.csv extra.gpkg | geopipe write all.geojson",
      "geopipe read --lat breite --lon laenge --delimiter ';' orte.csv",
      "geopipe read --crs EPSG:3857 mercator.geojson | geopipe info",
      "geopipe read --rewind countries.geojson > countries.geojsonl",
      "geopipe read --input-format csv export.dat",
      "geopipe read --layer roads --bbox 8.4,47.3,8.6,47.4 city.gpkg",
      "geopipe read --layer roads tl_2024_us.zip | geopipe info",
      "geopipe read --gpx-points ride.gpx | geopipe write points.csv",
      "geopipe read places.kml | geopipe write places.geojson",
      "geopipe read --bbox 5.9,45.8,10.5,47.8 world.fgb > switzerland.geojsonl",
      "geopipe read --bbox 5.9,45.8,10.5,47.8 buildings.parquet > swiss-buildings.geojsonl",
      "geopipe read --max-record-size 1GiB huge-polygons.geojson | geopipe info",
      "geopipe read postgresql:///gis --table roads --bbox 8.4,47.3,8.6,47.4 > roads.geojsonl",
      "geopipe read postgresql:///gis --sql \"SELECT name, geom FROM parks WHERE area_m2 > 1e6\"",
    ],
    options: [
      OptionSpec(
        "path", .path, default: "-", positional: true, variadic: true,
        help: "The input files ('-' for standard input) or postgresql:// URLs; several are read "
          + "one after another."),
      OptionSpec(
        "keep-crs", .flag,
        help: "With --crs: keep the coordinates as they are instead of reprojecting to WGS84."),
      OptionSpec(
        "bbox", .bbox,
        help: "Only features whose geometry meets this box (W,S,E,N in degrees); formats with a "
          + "spatial index read only those."),
    ] + inputOptions + fileOptions,
    role: .source,
    make: { values, context in
      let paths = values.list("path") ?? [values.string("path") ?? "-"]
      guard !paths.isEmpty else {
        throw GeoPipeError.usage("read needs a path ('-' for standard input)")
      }
      guard paths.count(where: { $0 == "-" }) <= 1 else {
        throw GeoPipeError.usage("standard input ('-') can be read only once")
      }
      let shares = try context.shard.map { try $0.shares(of: FeatureReaders.shareSizes(paths)) }
      let readers = try paths.enumerated().map { k, path in
        try open(
          path, values: values, context: context, layer: values.string("layer"),
          bbox: values.bbox("bbox"), share: shares?[k])
      }
      guard readers.count > 1 else { return .source(readers[0]) }
      if values.flag("keep-crs") {
        let crss = Set(readers.map { $0.declaredCRS ?? values.string("crs") ?? "WGS84" })
        guard crss.count == 1 else {
          throw GeoPipeError.usage(
            "--keep-crs: the inputs are in different CRSs (\(crss.sorted().joined(separator: ", "))); "
              + "leave out --keep-crs to read them all as WGS84")
        }
      }
      return .source(ConcatenatedReader(readers))
    })

  /// Opens an input as the options say, reprojecting a declared CRS to WGS84; `layer` and
  /// `bbox` are `read`'s own (other stages have a `bbox` of their own).
  static func open(
    _ path: String, values: OptionValues, context: StageContext, layer: String? = nil,
    bbox: BBox? = nil, share: InputShare? = nil
  ) throws -> any FeatureReader {
    var options = ReadOptions()
    options.share = share
    options.diagnostics = context.diagnostics
    options.threads = context.threads
    if let name = values.string("input-format"), name != "auto" {
      options.format = Formats.named(name)
    }
    options.layer = layer
    options.bbox = bbox
    options.formatOptions = Formats.formatValues(
      Formats.readFormatOptions, from: values)
    if let policy = values.string("on-error") {
      options.onError = ErrorPolicy(rawValue: policy) ?? .fail
    }
    if let size = values.string("max-record-size") {
      guard let count = byteCount(size) else {
        throw GeoPipeError.usage("--max-record-size: \(sizeProblem(size))")
      }
      options.maxRecordSize = count
    }
    let crs = values.string("crs")
    if crs != nil { options.checkRanges = false }
    options.csv.latitudeColumn = values.string("lat")
    options.csv.longitudeColumn = values.string("lon")
    options.csv.geometryColumn = values.string("geometry")
    options.csv.inferTypes = values.flag("infer-types")
    if let delimiter = values.string("delimiter") {
      options.csv.delimiter = delimiter == "tab" ? 0x09 : delimiter.utf8.first
    }
    var reader = try FeatureReaders.open(path, options: options)
    // A --crs given overrides what the input says (a GeoJSON "crs" member, a .prj file).
    if let from = crs ?? reader.declaredCRS, !values.flag("keep-crs"),
      !CoordinateTransformer.isWGS84(from)
    {
      reader = try ReprojectingReader(
        reader, transformer: CoordinateTransformer(from: from, to: "OGC:CRS84"))
    }
    if let box = options.bbox { reader = BoxFilteringReader(reader, box: box) }
    return reader
  }
}

/// A size in bytes: a whole number, optionally followed by KiB, MiB or GiB (or K, M, G,
/// KB, MB, GB, all powers of 1024).
func byteCount(_ text: String) -> Int? {
  let compact = text.filter { $0 != " " }
  let digits = compact.prefix { $0.isASCII && $0.isNumber }
  let unit = compact.dropFirst(digits.count).lowercased()
  let shifts: [String: Int] = [
    "": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20, "g": 30, "gb": 30,
    "gib": 30,
  ]
  guard let count = Int(digits), let shift = shifts[unit], count > 0,
    count <= (Int.max >> 1) >> shift
  else { return nil }
  return count << shift
}

/// What is wrong with a size that `byteCount` refuses.
func sizeProblem(_ text: String) -> String {
  "'\(text)' is not a size (a whole number of bytes, or with KiB, MiB or GiB, e.g. 64MiB)"
}

/// Passes on the features of another reader whose geometry meets a box (an index may already
/// have left out most of the others).
final class BoxFilteringReader: FeatureReader {
  private let upstream: any FeatureReader
  private let box: BBox

  init(_ upstream: any FeatureReader, box: BBox) {
    self.upstream = upstream
    self.box = box
  }

  var bytesRead: Int { upstream.bytesRead }
  var skippedCount: Int { upstream.skippedCount }
  var collectionMembers: JSONObject { upstream.collectionMembers }
  var lastFeatureLocation: SourceLocation? { upstream.lastFeatureLocation }

  func next() throws -> Feature? {
    while let feature = try upstream.next() {
      if let geometry = feature.geometry, GeometryIntersection.intersects(geometry, box) {
        return feature
      }
    }
    return nil
  }
}

/// Reprojects each feature of another reader.
final class ReprojectingReader: FeatureReader {
  private let upstream: any FeatureReader
  private let transformer: CoordinateTransformer
  private var index = 0

  init(_ upstream: any FeatureReader, transformer: CoordinateTransformer) {
    self.upstream = upstream
    self.transformer = transformer
  }

  var bytesRead: Int { upstream.bytesRead }
  var skippedCount: Int { upstream.skippedCount }
  var collectionMembers: JSONObject { upstream.collectionMembers }

  func next() throws -> Feature? {
    guard var feature = try upstream.next() else { return nil }
    if var geometry = feature.geometry {
      do {
        try transformer.transform(&geometry)
      } catch let error as GeoPipeError {
        throw GeoPipeError("feature \(index): \(error.message)", status: error.status)
      }
      feature.geometry = geometry
    }
    index += 1
    return feature
  }
}
