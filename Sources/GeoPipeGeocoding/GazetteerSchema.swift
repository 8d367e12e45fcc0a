/// The gazetteer file's tables.
///
/// - `meta`: key/value facts: `schema_version`, `built_at`, `sources`, counts and the GeoNames
///   attribution.
/// - `places`: every place, admin1 area and country (`kind`), with its point, codes and
///   population. An area's point is its own row when the dump has one, else its capital or
///   most populous place (`point_source`).
/// - `names`: every name of every place (primary, ASCII and alternate), with its folded form
///   (`NameFolding`) indexed for exact lookups; `names_fts` (tokens, with an index of
///   three-character prefixes) and `names_trigram` (trigrams, for typo candidates; left out
///   by `--no-typo-index`) index the folded forms. Both are external-content FTS5 tables
///   that keep only which names hold a token (`detail = none`, no column sizes), all that
///   the lookups use.
///
/// - `areas` (when the gazetteer was built with boundaries): country and admin1 polygons
///   (`level`, `country_code`, `admin1_code`, `name`, `geometry` as ISO WKB in WGS84), in the
///   order of the boundaries files, with `areas_rtree`, an SQLite R*Tree of their boxes
///   (`id` = the area's rowid). Reverse geocoding loads the areas into memory (`AreaIndex`);
///   the R*Tree serves queries with SQLite's own tools. Files without these tables (built
///   before them, or without boundaries) still open: countries then come from the nearest
///   place only.
///
/// Reverse geocoding needs no table of its own: it loads the populated places into an
/// in-memory kd-tree (`ReverseIndex`). Files built before that carry an unused `places_rtree`
/// table, which readers ignore.
enum GazetteerSchema {
  static let version = "1"

  static let create = """
    PRAGMA journal_mode = OFF;
    PRAGMA synchronous = OFF;
    PRAGMA locking_mode = EXCLUSIVE;
    PRAGMA cache_size = -262144;
    PRAGMA temp_store = MEMORY;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE places (
      id INTEGER PRIMARY KEY,
      kind TEXT NOT NULL,
      geonameid INTEGER NOT NULL,
      name TEXT NOT NULL,
      latitude REAL NOT NULL,
      longitude REAL NOT NULL,
      feature_class TEXT NOT NULL,
      feature_code TEXT NOT NULL,
      country_code TEXT NOT NULL,
      admin1_code TEXT NOT NULL,
      population INTEGER NOT NULL,
      point_source TEXT NOT NULL
    );
    CREATE TABLE names (
      id INTEGER PRIMARY KEY,
      place_id INTEGER NOT NULL,
      name TEXT NOT NULL,
      folded TEXT NOT NULL,
      is_primary INTEGER NOT NULL
    );
    """

  /// The indexes built once the tables are filled.
  ///
  /// Token matches look up whole words and
  /// prefixes of three characters or more, so only 3-character prefixes are indexed. The
  /// full-text indexes take the names in rowid order (without `ORDER BY` SQLite would read
  /// them through `names_by_folded`, and FTS5 writes a segment whenever a rowid goes down:
  /// four times the work).
  static let indexes = """
    CREATE INDEX names_by_folded ON names (folded);
    CREATE INDEX names_by_place ON names (place_id);
    CREATE INDEX places_by_area ON places (country_code, admin1_code);
    CREATE VIRTUAL TABLE names_fts USING fts5 (
      folded, content = 'names', content_rowid = 'id', prefix = '3', detail = 'none',
      columnsize = 0);
    INSERT INTO names_fts (rowid, folded) SELECT id, folded FROM names ORDER BY id;
    """

  /// The trigram index behind typo matches (`TypoMatcher`).
  static let typoIndex = """
    CREATE VIRTUAL TABLE names_trigram USING fts5 (
      folded, content = 'names', content_rowid = 'id', tokenize = 'trigram', detail = 'none',
      columnsize = 0);
    INSERT INTO names_trigram (rowid, folded) SELECT id, folded FROM names ORDER BY id;
    """

  /// The country and admin1 polygons and the R*Tree of their boxes.
  static let areas = """
    CREATE TABLE areas (
      id INTEGER PRIMARY KEY,
      level TEXT NOT NULL,
      country_code TEXT NOT NULL,
      admin1_code TEXT NOT NULL,
      name TEXT NOT NULL,
      geometry BLOB NOT NULL
    );
    CREATE VIRTUAL TABLE areas_rtree USING rtree (id, min_x, max_x, min_y, max_y);
    """

  /// The statistics of the query planner.
  static let statistics = "ANALYZE;"
}
