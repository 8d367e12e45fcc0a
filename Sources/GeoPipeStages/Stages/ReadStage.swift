import GeoPipeCore
import GeoPipeGeometry
import GeoPipeIO

/// `read`: any supported input → features.
enum ReadStage {
  static let inputOptions: [OptionSpec] = [
    OptionSpec(
      "input-format", .choice(["auto"] + InputFormat.allCases.map(\.rawValue)), default: "auto",
      help: "The input format; by default detected from the first bytes."),
    OptionSpec(
      "crs", .string, validate: CRSOption.validate,
      help: "The CRS of the input coordinates (EPSG:3857, a PROJ string or WKT); turns off "
        + "range checks. Input is reprojected to WGS84 unless --keep-crs."),
    OptionSpec(
      "on-error", .choice(ErrorPolicy.allCases.map(\.rawValue)), default: "fail",
      help: "fail: stop at the first bad feature (exit 65); skip: skip bad features and count "
        + "them on stderr."),
  ]

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
    abstract: "Read GeoJSON, GeoJSONSeq or CSV and write features as GeoJSONSeq.",
    discussion: """
      Reads a file (or standard input with '-') and writes one GeoJSON Feature per line to
      standard output, for the next command in a pipe. The format is detected: gzip, a
      FeatureCollection (streamed, never loaded whole), a Feature, a bare geometry, newline-
      or RS-delimited sequences (RFC 8142), or CSV with latitude/longitude columns (found by
      name: latitude/lat/y, longitude/lon/lng/long/x) or a WKT column (wkt/geometry/geom).
      A CSV without coordinate columns gives features without geometry.
      """,
    examples: [
      "geopipe read places.csv | geopipe write places.geojson",
      "geopipe read --lat breite --lon laenge --delimiter ';' orte.csv",
      "geopipe read --crs EPSG:3857 mercator.geojson | geopipe info",
      "geopipe read --rewind countries.geojson > countries.geojsonl",
    ],
    options: [
      OptionSpec(
        "path", .path, default: "-", positional: true,
        help: "The input file ('-' for standard input)."),
      OptionSpec(
        "keep-crs", .flag,
        help: "With --crs: keep the coordinates as they are instead of reprojecting to WGS84."),
    ] + inputOptions + csvOptions,
    role: .source,
    make: { values, context in
      .source(try open(values.string("path") ?? "-", values: values, context: context))
    })

  /// Opens an input as the options say, reprojecting a declared CRS to WGS84.
  static func open(_ path: String, values: OptionValues, context: StageContext) throws
    -> any FeatureReader
  {
    var options = ReadOptions()
    options.diagnostics = context.diagnostics
    options.threads = context.threads
    if let format = values.string("input-format"), format != "auto" {
      options.format = InputFormat(rawValue: format)
    }
    if let policy = values.string("on-error") {
      options.onError = ErrorPolicy(rawValue: policy) ?? .fail
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
    let reader = try FeatureReaders.open(path, options: options)
    // A --crs given overrides what a GeoJSON file's "crs" member says.
    if let from = crs ?? reader.declaredCRS, !values.flag("keep-crs"),
      !CoordinateTransformer.isWGS84(from)
    {
      return try ReprojectingReader(
        reader, transformer: CoordinateTransformer(from: from, to: "OGC:CRS84"))
    }
    return reader
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
