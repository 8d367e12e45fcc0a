import GeoPipeCore
import GeoPipeIO

extension FeatureFormat {
  /// ESRI shapefiles (`.shp` with `.shx`, `.dbf`, `.prj`, `.cpg`), also read from a `.zip`,
  /// through shapelib.
  public static let shapefile = FeatureFormat(
    name: "shapefile", title: "Shapefile", extensions: ["shp", "zip"], writtenExtensions: ["shp"],
    recognize: { head in ShapefileFormat.isShapefile(head) || ZipArchive.isZip(head) },
    open: { input, options in try ShapefileFormat.open(input, options: options) },
    create: { output, options in try ShapefileWriter(output: output, options: options) },
    layers: { input, options in try ShapefileFormat.layers(input, options: options) },
    writeOptions: [
      FormatOption(
        "geometry-type", .choice(ShapefileWriter.Category.allCases.map(\.rawValue)),
        help: "Shapefile: write only features of this type (point takes MultiPoints too, line "
          + "MultiLineStrings, polygon MultiPolygons) and report how many others were left out; "
          + "by default mixed types are split into NAME_point.shp, NAME_line.shp and "
          + "NAME_polygon.shp."),
      FormatOption(
        "truncate-strings", .flag,
        help: "Shapefile: cut text longer than dBASE's 254 bytes instead of stopping with an "
          + "error."),
    ]
  ).splitting(by: ShapefileFormat.openShare)
}

/// Opening shapefiles, and zip archives that hold them.
enum ShapefileFormat {
  /// Whether `head` starts with a `.shp` header: file code 9994, big-endian.
  static func isShapefile(_ head: [UInt8]) -> Bool {
    head.count >= 4 && head[0] == 0x00 && head[1] == 0x00 && head[2] == 0x27 && head[3] == 0x0A
  }

  static func open(_ input: FormatInput, options: ReadOptions) throws -> any FeatureReader {
    if ZipArchive.isZip(input.head) {
      let archive = try openArchive(input)
      let entry = try ZippedShapefile.choose(archive, layer: options.layer)
      let (folder, path) = try ZippedShapefile.extract(archive, entry)
      return try ShapefileReader(
        path: path, name: "\(input.name)/\(entry.name)", options: options, folder: folder)
    }
    let path = try input.seekablePath(for: "Shapefile")
    if let layer = options.layer, layer != layerName(path) {
      throw GeoPipeError.usage("\(input.name) has one layer, '\(layerName(path))', not '\(layer)'")
    }
    return try ShapefileReader(path: path, name: input.name, options: options)
  }

  /// Opens the records of a shard's share: the `k`th of the `n` records is at position
  /// `k · size / n` (`InputShare.records(count:)`), read by seeking (the `.shx` gives each
  /// shape's offset, `.dbf` records have a fixed size).
  ///
  /// A zip archive splits too: each shard extracts the layer's files and reads its records.
  @Sendable
  static func openShare(_ path: String, options: ReadOptions, share: InputShare) throws
    -> any FeatureReader
  {
    try FeatureReaders.openShare(path, options: options, share: share, as: ShapefileReader.self) {
      $0.restrict(to: share.records(count: $0.recordCount))
      return $0
    }
  }

  static func layers(_ input: FormatInput, options: ReadOptions) throws -> [LayerInfo] {
    if ZipArchive.isZip(input.head) {
      let archive = try openArchive(input)
      let entries = ZippedShapefile.layers(archive)
      if entries.isEmpty { throw ZippedShapefile.noShapefile(input.name) }
      return try entries.map { entry in
        let (folder, path) = try ZippedShapefile.extract(archive, entry)
        return try withExtendedLifetime(folder) {
          try describe(path, name: ZippedShapefile.layerName(entry), options: options)
        }
      }
    }
    let path = try input.seekablePath(for: "Shapefile")
    return [try describe(path, name: layerName(path), options: options)]
  }

  /// The layer name of a `.shp` path: its file name without the extension.
  static func layerName(_ path: String) -> String {
    let file = path.split(separator: "/").last.map(String.init) ?? path
    return ShapefileTable.baseName(file)
  }

  private static func describe(_ path: String, name: String, options: ReadOptions) throws
    -> LayerInfo
  {
    let table = try ShapefileTable(path: path, name: name, diagnostics: options.diagnostics)
    let type = table.geometryType + (table.hasZ ? " Z" : "")
    return LayerInfo(
      name: name, geometryType: type, count: table.count,
      crs: table.prj == nil ? nil : (table.crs ?? "EPSG:4326"),
      fields: table.fields.map { ($0.name, $0.typeDescription) }, bounds: table.bounds)
  }

  private static func openArchive(_ input: FormatInput) throws -> ZipArchive {
    if input.path == "-" || input.isCompressed {
      throw GeoPipeError.data(
        "the input is a zip archive; geopipe reads zipped shapefiles from a file: give its path",
        at: SourceLocation(file: input.name, line: 1, column: 1))
    }
    do {
      return try ZipArchive(path: input.path, name: input.name)
    } catch let error as GeoPipeError where error.status == .dataError {
      throw GeoPipeError.data(
        "the input is a zip archive that cannot be read (\(error.message)); unzip it first",
        at: SourceLocation(file: input.name, line: 1, column: 1))
    }
  }
}
