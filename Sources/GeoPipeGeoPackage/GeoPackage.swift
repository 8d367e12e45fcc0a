import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

/// GeoPackage 1.4 (OGC 12-128r19) vector data: feature tables read and written through
/// SQLite, without GDAL.
public enum GeoPackage {
  /// The format as geopipe registers it: `gpkg`, `.gpkg`, recognised by an SQLite header
  /// whose application_id (offset 68) is `GPKG`, `GP10` or `GP11`.
  public static let format = FeatureFormat(
    name: "gpkg", title: "GeoPackage", extensions: ["gpkg"], recognize: recognize,
    open: { input, options in
      try GeoPackageReader(
        path: try input.seekablePath(for: "GeoPackage"), name: input.name, options: options)
    },
    create: { output, options in try GeoPackageWriter(output: output, options: options) },
    layers: { input, _ in
      try layers(path: try input.seekablePath(for: "GeoPackage"), name: input.name)
    },
    writeOptions: [
      FormatOption(
        "append-layer", .flag,
        help: "GeoPackage: add the layer (--layer, else the file's name) to an existing file "
          + "instead of replacing it; a layer of that name already there is an error.")
    ]
  ).splitting(by: openShare)

  /// Opens the rows of a shard's share of the table: a fid range (see `GeoPackageShare`).
  ///
  /// A table whose integer primary key is not its rowid (or that has none) does not split: the
  /// shard whose share holds the file's start reads it whole.
  @Sendable
  static func openShare(_ path: String, options: ReadOptions, share: InputShare) throws
    -> any FeatureReader
  {
    // Opened as any input first, so that a file that is not a GeoPackage fails as it would in
    // one run.
    try FeatureReaders.openShare(path, options: options, share: share, as: GeoPackageReader.self) {
      _ in try GeoPackageReader(path: path, name: path, options: options, share: share)
    }
  }

  /// Whether `head` is the start of an SQLite database whose application_id says GeoPackage.
  @Sendable public static func recognize(_ head: [UInt8]) -> Bool {
    let magic = Array("SQLite format 3\0".utf8)
    guard head.count >= 72, Array(head[0..<16]) == magic else { return false }
    let id = Array(head[68..<72])
    return [Array("GPKG".utf8), Array("GP10".utf8), Array("GP11".utf8)].contains(id)
  }

  /// The feature and attribute tables of a GeoPackage: geometry type (with Z/M), row count,
  /// CRS, fields with their declared types, and the extent gpkg_contents declares.
  public static func layers(path: String, name: String) throws -> [LayerInfo] {
    let database: SQLiteDatabase
    database = try GeoPackageCatalog.open(path: path, name: name)
    let catalog = GeoPackageCatalog(database: database, name: name)
    do {
      return try catalog.tables().map(catalog.layerInfo)
    } catch let error as SQLiteError {
      throw GeoPackageReader.dataError(error, name: name)
    }
  }
}
