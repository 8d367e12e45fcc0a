import GeoPipeCore
import GeoPipeGeometry
import GeoPipeIO
import GeoPipeStageKit

/// `write`: features → a file (atomically) or standard output.
final class WriteStage: BatchConsumingStage, CollectionMembersReceiver {
  static let outputOptions: [OptionSpec] =
    [
      OptionSpec(
        "output-format", .choice(["auto"] + Formats.writable.map(\.name)), default: "auto",
        help: "The output format; by default from the extension ("
          + Formats.writable.flatMap { $0.writtenExtensions.map { "." + $0 } }.joined(
            separator: ", ")
          + "; text formats optionally .gz)."),
      OptionSpec("rs", .flag, help: "GeoJSONSeq: start each record with RS (RFC 8142)."),
      OptionSpec(
        "no-rewind", .flag,
        help: "Keep polygon rings as given instead of winding them as RFC 7946 asks."),
      OptionSpec(
        "precision", .integer, range: 0...17, help: "Round coordinates to this many decimal places."
      ),
      OptionSpec(
        "columns", .list,
        help: "CSV: exactly these property columns, in this order; other properties are left out "
          + "(default: every feature's properties, in the order first seen)."),
      OptionSpec(
        "ignore-extra-properties", .flag,
        help: "CSV: accepted for older scripts; properties outside --columns are always left out."),
      OptionSpec(
        "geometry-format", .choice(CSVGeometryFormat.allCases.map(\.rawValue)), default: "auto",
        help: "CSV: longitude/latitude columns (xy), a WKT geometry column (wkt), or xy when the "
          + "first feature is a point (auto)."),
      OptionSpec(
        "layer", .string,
        help: "The layer (table) name, for formats that name theirs; by default the file's name."),
    ] + Formats.writeOptions

  static let definition = StageDefinition(
    name: "write",
    abstract: "Write features to a file in the format its extension names.",
    discussion: """
      Writes the features it is given (standard input, on the command line) to PATH. Missing
      folders of PATH are created (and removed again if the run fails and leaves them empty).
      The file is written to a temporary file in the same folder (.NAME.geopipe-PID-XXXXXX),
      synced, and renamed when complete, keeping the permissions of a file it replaces, so a
      failed run leaves no partial file; one left by a killed run is removed by the next run
      writing PATH. Without PATH, or with '-', a FeatureCollection goes to standard output.
      GeoJSON output follows RFC 7946: no "crs" member, rings wound counter-clockwise
      (exterior) and clockwise (holes) unless --no-rewind. Numbers are written in their
      shortest form that reads back to the same double.
      --crs says the coordinates are in another CRS (after 'geopipe reproject --to'): they are
      read without range checks and written as they are. A GeoJSON FeatureCollection then
      needs --allow-non-wgs84, since RFC 7946 coordinates are WGS84 longitude/latitude (§4:
      other CRSs only by prior arrangement); it then carries the legacy "crs" member in the
      form GDAL reads ({"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::5070"}}),
      so --crs must be AUTHORITY:CODE, and 'geopipe read' reprojects such a file back to
      WGS84. CSV and GeoJSONSeq simply carry the numbers.
      CSV columns are every property of every feature, in the order first seen (rows wait in
      a scratch file until the header is known); --columns writes exactly the columns named.
      KML (.kml) has one Placemark per feature: title is its name and description its
      description (shown in the balloon); marker-color, marker-size, stroke, stroke-width,
      stroke-opacity, fill and fill-opacity become its Style, with colours as KML's aabbggrr
      (fill-opacity defaults to 0.6, as simplestyle-spec says); other properties are
      ExtendedData; multi-part geometries and collections are MultiGeometry.
      GeoPackage (.gpkg) gets one feature table named --layer (else the file's name) with an
      integer fid (a feature's integer id), a geom column, a typed column per property
      (INTEGER, REAL, BOOLEAN or TEXT; mixed kinds widen to REAL or TEXT), WGS84 geometries
      and an R-tree index; --append-layer adds the table to an existing file instead of
      replacing it.
      A shapefile (.shp) is written with its .shx, .dbf, .prj (WGS84, or --crs) and .cpg
      (UTF-8), all committed together; one geometry type per file set, so mixed input becomes
      NAME_point.shp, NAME_line.shp and NAME_polygon.shp unless --geometry-type picks one.
      Property names are cut to dBASE's 10 bytes (the renames are listed on stderr) and text
      over 254 bytes is an error unless --truncate-strings.
      FlatGeobuf (.fgb) columns are typed from every feature's values (features wait in a
      scratch file until the header is known); the file gets a spatial index and, as GDAL
      writes it, the features in the index's Hilbert order, not in input order; --no-index
      keeps the input order and writes no index.
      GeoParquet (.parquet) gets a WKB geometry column, a GeoParquet 1.1 bbox covering
      column (unless --no-covering) and a column per property typed from every feature's
      values (features wait in a scratch file), in row groups of --row-group-size features
      with statistics, compressed with --compression (zstd by default); the 'geo' metadata
      records the geometry types, the bbox and, with --crs, the CRS as PROJJSON. Sort with
      'sort --by-hilbert' first to make --bbox reads of the file skip row groups.
      A postgresql:// URL (postgresql:///db, postgresql://user@host/db?sslmode=require; the
      password from PGPASSWORD or ~/.pgpass, never printed) writes the PostGIS table --table
      in one transaction: typed columns from every feature's values (features wait in a
      scratch file), a binary COPY, a GiST index and ANALYZE; a failure or an interrupt
      leaves the database as it was. --if-exists replace swaps a new table in, append adds
      rows, --upsert-on KEY inserts or updates; feature ids go to --fid-column (see
      docs/formats.md).
      """,
    examples: [
      "geopipe read places.csv | geopipe write places.geojson",
      "geopipe read big.geojson | geopipe write big.geojsons.gz",
      "geopipe read places.geojson | geopipe write --columns name,population places.csv",
      "geopipe read a.geojson | geopipe reproject --to EPSG:3857 | geopipe write --crs EPSG:3857 a.csv",
      "geopipe read a.geojson | geopipe reproject --to EPSG:5070 | geopipe write --crs EPSG:5070 --allow-non-wgs84 out/a-5070.geojson",
      "geopipe read places.csv | geopipe style --title '{name}' --marker-color '#d33' | geopipe write places.kml",
      "geopipe read rivers.geojson | geopipe write --layer rivers --append-layer city.gpkg",
      "geopipe read roads.geojson | geopipe write --geometry-type line out/roads.shp",
      "geopipe read places.geojson | geopipe write places.fgb",
      "geopipe convert --no-index places.geojson places.fgb",
      "geopipe read buildings.geojsonl | geopipe sort --by-hilbert | geopipe write --row-group-size 10000 buildings.parquet",
      "geopipe convert --compression snappy places.geojson places.parquet",
      "geopipe read counties.geojson | geopipe write postgresql:///gis --table public.counties --if-exists replace",
      "geopipe convert --fid-column fid --upsert-on geoid places.geojsonl postgresql://loader@db.example.org/gis --table places",
    ],
    options: [
      OptionSpec(
        "path", .path, default: "-", positional: true,
        help: "The output file ('-' for standard output), or a postgresql:// URL."),
      OptionSpec(
        "crs", .string,
        help: "The CRS of the features' coordinates; they are written as they are."),
      OptionSpec(
        "allow-non-wgs84", .flag,
        help: "With a --crs other than WGS84: write GeoJSON anyway, with a \"crs\" member naming "
          + "it (RFC 7946 §4 allows it only by prior arrangement; CSV and GeoJSONSeq carry the "
          + "numbers as they are)."),
    ] + outputOptions,
    role: .sink, inputCRSOption: "crs", checkValues: checkValues,
    make: { values, context in
      .stage(
        try WriteStage(
          path: values.string("path") ?? "-", values: values, threads: context.threads,
          crs: values.string("crs"), diagnostics: context.diagnostics))
    })

  private let writer: any FeatureWriter

  /// Creates the stage for coordinates in `crs` (nil for WGS84); `diagnostics` receives the
  /// writer's warnings.
  init(
    path: String, values: OptionValues, threads: Int = 1, crs: String? = nil,
    diagnostics: @escaping @Sendable (ReadDiagnostic) -> Void = WriteStage.printDiagnostic
  ) throws {
    writer = try WriteStage.makeWriter(
      path: path, values: values, threads: threads, crs: crs, diagnostics: diagnostics)
  }

  /// Prints a diagnostic on standard error.
  @Sendable static func printDiagnostic(_ diagnostic: ReadDiagnostic) {
    let line = Array("\(diagnostic)\n".utf8)
    _ = line.withUnsafeBytes { raw in raw.baseAddress.map { writeAll(2, $0, count: raw.count) } }
  }

  /// The output format: `--output-format` unless auto, else the path's extension, else GeoJSON
  /// for standard output; nil when the extension tells nothing.
  static func outputFormat(path: String, values: OptionValues) -> FeatureFormat? {
    let given = values.string("output-format").flatMap { $0 == "auto" ? nil : Formats.named($0) }
    _ = Formats.registered
    return FeatureWriters.format(for: path, given: given)
  }

  /// Opens an output as the options say, for coordinates in `crs` (nil for WGS84).
  static func makeWriter(
    path: String, values: OptionValues, threads: Int = 1, crs: String? = nil,
    diagnostics: @escaping @Sendable (ReadDiagnostic) -> Void = printDiagnostic
  ) throws -> any FeatureWriter {
    var options = WriteOptions()
    options.diagnostics = diagnostics
    options.threads = threads
    options.rewind = !values.flag("no-rewind")
    options.precision = values.integer("precision")
    options.recordSeparator = values.flag("rs")
    options.csv.columns = values.list("columns")
    options.csv.geometryFormat =
      values.choice("geometry-format", as: CSVGeometryFormat.self) ?? .auto
    options.layer = values.string("layer")
    if let crs, !CoordinateTransformer.isWGS84(crs) { options.crs = crs }
    options.formatOptions = Formats.formatValues(
      Formats.writeFormatOptions, from: values)
    let format = outputFormat(path: path, values: values)
    if let crs, !CoordinateTransformer.isWGS84(crs) {
      if let problem = CoordinateTransformer.problem(with: crs) {
        throw GeoPipeError.usage(problem)
      }
      options.crsWKT = CoordinateTransformer.esriWKT(crs)
    }
    if format == .geoJSON, let crs, !CoordinateTransformer.isWGS84(crs) {
      guard values.flag("allow-non-wgs84") else {
        throw GeoPipeError.usage(
          "GeoJSON coordinates are WGS84 longitude/latitude (RFC 7946), not \(crs): add "
            + "--allow-non-wgs84 to write them anyway, or write CSV or GeoJSONSeq")
      }
      guard let urn = GeoJSONCRS.urn(for: crs) else {
        throw GeoPipeError.usage(
          "a GeoJSON \"crs\" member names a CRS as AUTHORITY:CODE, not '\(crs)': give --crs "
            + "as, for example, EPSG:5070")
      }
      options.crsURN = urn
    }
    return try FeatureWriters.open(path, format: format, options: options)
  }

  func process(_ feature: Feature, emit: Emit) throws {
    try writer.write(feature)
  }

  func process(contentsOf features: [Feature]) throws {
    try writer.write(contentsOf: features)
  }

  func receive(collectionMembers: JSONObject) {
    (writer as? GeoJSONWriter)?.collectionMembers = collectionMembers
  }

  func finish(emit: Emit) throws {
    try writer.finish()
  }

  func abort() {
    writer.abort()
  }
}
