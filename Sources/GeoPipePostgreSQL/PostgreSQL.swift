import GeoPipeCore
import GeoPipeIO

/// PostgreSQL (with PostGIS) tables and queries, read and written through libpq.
///
/// A `postgresql://` or `postgres://` URL names the database (libpq's connection URI:
/// `postgresql:///db`, `postgresql://user@host:5432/db?sslmode=require`,
/// `postgresql:///db?host=/var/run/postgresql`); libpq's `PG*` environment variables and
/// `~/.pgpass` supply what it leaves out. Messages show the URL without its password.
public enum PostgreSQL {
  /// The format as geopipe registers it: `postgresql`, chosen by the URL schemes
  /// `postgresql` and `postgres`.
  public static let format = FeatureFormat(
    name: "postgresql", title: "PostgreSQL", schemes: ["postgresql", "postgres"],
    openURL: { url, options in try PostgreSQLReader(url: url, options: options) },
    createURL: { url, options in try PostgreSQLWriter(url: url, options: options) },
    readOptions: [
      FormatOption(
        "table", .string,
        help: "PostgreSQL: the table ([schema.]name) to read, or to write (by default the "
          + "--layer, else 'features')."),
      FormatOption(
        "sql", .string,
        help: "PostgreSQL: read the rows of this query instead of a table "
          + "(e.g. \"SELECT * FROM roads WHERE kind = 'motorway'\")."),
      geometryColumn, fidColumn,
    ],
    writeOptions: [
      FormatOption(
        "table", .string,
        help: "PostgreSQL: the table ([schema.]name) to read, or to write (by default the "
          + "--layer, else 'features')."),
      FormatOption(
        "if-exists", .choice(IfExists.allCases.map(\.rawValue)),
        help: "PostgreSQL: when the table exists: fail (the default), replace it (a new table "
          + "swapped in by the same transaction), or append to it."),
      FormatOption(
        "upsert-on", .string,
        help: "PostgreSQL: insert or update (INSERT … ON CONFLICT) by this column, which the "
          + "table has a unique index on (one made with a new table)."),
      geometryColumn, fidColumn,
    ]
  ).splitting(by: PostgreSQLReader.openShare)

  static let geometryColumn = FormatOption(
    "geometry-column", .string,
    help: "PostgreSQL: the geometry column (write: 'geom' by default; read: found from "
      + "geometry_columns or the query's first geometry or geography column).")

  static let fidColumn = FormatOption(
    "fid-column", .string,
    help: "PostgreSQL: the column that holds feature ids (written as its primary key; read "
      + "back as the features' ids). Without it, ids are not written.")

  /// What `write` does when the table exists.
  enum IfExists: String, CaseIterable {
    case fail, replace, append
  }

  /// `url` without a password: the one in its user information and a `password` parameter.
  public static func redacted(_ url: String) -> String {
    guard let schemeEnd = url.range(of: "://") else { return url }
    var text = url
    let rest = text[schemeEnd.upperBound...]
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    if let at = rest[..<authorityEnd].lastIndex(of: "@"),
      let colon = rest[..<at].firstIndex(of: ":")
    {
      text.removeSubrange(colon..<at)
    }
    guard let question = text.firstIndex(of: "?") else { return text }
    let parameters = text[text.index(after: question)...].split(separator: "&")
      .filter { !$0.lowercased().hasPrefix("password=") }
    let base = String(text[..<question])
    return parameters.isEmpty ? base : base + "?" + parameters.joined(separator: "&")
  }

  /// The features in binary COPY data handed over in `chunks`, as the reader decodes them, for
  /// the fuzz target: the columns are a geometry (EWKB), then one of each type decoded as sent
  /// (boolean, smallint, integer, bigint, real, double precision, text, json, jsonb).
  ///
  /// Malformed data throws a `GeoPipeError` with the data-error status.
  public static func features(copyData chunks: [[UInt8]]) throws -> [Feature] {
    let decodings: [PostgreSQLQuery.Decoding] = [
      .geometry, .boolean, .int2, .int4, .int8, .float4, .float8, .text, .json, .jsonb,
    ]
    let decoder = CopyDecoder(
      source: ChunkSource(chunks), columns: decodings.map { ("\($0)", $0) }, fidIndex: 4,
      name: "copy")
    var features: [Feature] = []
    while let feature = try decoder.next() { features.append(feature) }
    return features
  }

  /// COPY data from memory.
  private final class ChunkSource: CopyDataSource {
    private var chunks: ArraySlice<[UInt8]>

    init(_ chunks: [[UInt8]]) { self.chunks = chunks[...] }

    func nextCopyData(_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
      guard let chunk = chunks.popFirst() else { return false }
      try chunk.withUnsafeBytes(body)
      return true
    }
  }

  /// Why `write` refuses an existing table.
  static let tableExists =
    "the table exists: give --if-exists replace or append, or --upsert-on"

  /// A `[schema.]name` table name split in two (no schema: nil, the search path decides).
  static func tableName(_ text: String) throws -> (schema: String?, name: String) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard (1...2).contains(parts.count), !parts.contains(where: \.isEmpty) else {
      throw GeoPipeError.usage(
        "--table '\(text)': give a table name, optionally after its schema (public.roads)")
    }
    return parts.count == 2 ? (parts[0], parts[1]) : (nil, parts[0])
  }
}
