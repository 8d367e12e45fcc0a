import GeoPipeCore
import GeoPipeIO

/// GeoParquet 1.1 (`.parquet`, `.geoparquet`): read and written with geopipe's own Parquet
/// decoder and encoder (Thrift compact footers, Snappy, gzip and Zstandard pages).
public enum GeoParquet {
  /// The format's description for the registry.
  public static let format = FeatureFormat(
    name: "parquet", title: "GeoParquet", extensions: ["parquet", "geoparquet"],
    recognize: { head in head.starts(with: ParquetFile.magic) },
    open: { input, options in try GeoParquetReader(input: input, options: options) },
    create: { output, options in try GeoParquetWriter(output: output, options: options) },
    layers: { input, options in
      [try GeoParquetReader(input: input, options: options).layer]
    },
    writeOptions: [
      FormatOption(
        "row-group-size", .integer,
        help:
          "GeoParquet: features per row group (default \(GeoParquetWriter.defaultRowGroupSize); "
          + "a row group also ends at about 128 MB of encoded data). Readers skip whole row "
          + "groups by their statistics, so smaller groups of spatially sorted features make "
          + "--bbox reads cheaper."),
      FormatOption(
        "compression", .choice(PageCodec.compressionNames.map { $0.0 }),
        help: "GeoParquet: the page codec (default zstd)."),
      FormatOption(
        "no-covering", .flag,
        help:
          "GeoParquet: leave out the GeoParquet 1.1 bbox covering column (xmin, ymin, xmax, "
          + "ymax per row), written by default so that readers can filter rows by box."),
    ]
  ).splitting(by: openShare)

  /// Opens the row groups of a shard's share, so that each shard decodes whole row groups.
  ///
  /// The `k`th of the file's `n` row groups is at position `k · size / n`
  /// (`InputShare.records(count:)`). A file read through a reprojection (a CRS other than
  /// WGS84) does not split: the shard whose share holds its start reads it whole.
  @Sendable
  static func openShare(_ path: String, options: ReadOptions, share: InputShare) throws
    -> any FeatureReader
  {
    let reader = try FeatureReaders.open(path, options: options)
    guard let parquet = reader as? GeoParquetReader else {
      return share.readsWhole ? reader : EmptyFeatureReader()
    }
    parquet.restrict(toRowGroups: share.records(count: parquet.rowGroupCount))
    return parquet
  }
}
