/// The SQL of the GeoPackage tables geopipe writes (GeoPackage 1.4 Annex C and F.3).
enum GeoPackageSchema {
  /// WGS 84 as GeoPackage 1.4 Table 4 lists it (the definition GDAL writes).
  static let wgs84Definition =
    "GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,298.257223563,"
    + "AUTHORITY[\"EPSG\",\"7030\"]],AUTHORITY[\"EPSG\",\"6326\"]],PRIMEM[\"Greenwich\",0,"
    + "AUTHORITY[\"EPSG\",\"8901\"]],UNIT[\"degree\",0.0174532925199433,"
    + "AUTHORITY[\"EPSG\",\"9122\"]],AXIS[\"Latitude\",NORTH],AXIS[\"Longitude\",EAST],"
    + "AUTHORITY[\"EPSG\",\"4326\"]]"

  /// The required tables (§1.1.2, §1.1.3, §2.1.5) and the extensions table, each made when
  /// missing, and the three required spatial reference systems (4326, -1, 0) added when
  /// missing: for a new file and for a file a layer is added to alike.
  static let metadata = """
    CREATE TABLE IF NOT EXISTS gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, \
    srs_id INTEGER NOT NULL PRIMARY KEY, organization TEXT NOT NULL, \
    organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
    CREATE TABLE IF NOT EXISTS gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, \
    data_type TEXT NOT NULL, identifier TEXT UNIQUE, description TEXT DEFAULT '', \
    last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), \
    min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER, \
    CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
    CREATE TABLE IF NOT EXISTS gpkg_geometry_columns (table_name TEXT NOT NULL, \
    column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, \
    z TINYINT NOT NULL, m TINYINT NOT NULL, \
    CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name), \
    CONSTRAINT uk_gc_table_name UNIQUE (table_name), \
    CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name), \
    CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
    CREATE TABLE IF NOT EXISTS gpkg_extensions (table_name TEXT, column_name TEXT, \
    extension_name TEXT NOT NULL, definition TEXT NOT NULL, scope TEXT NOT NULL, \
    CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
    INSERT OR IGNORE INTO gpkg_spatial_ref_sys VALUES ('Undefined Cartesian SRS', -1, 'NONE', \
    -1, 'undefined', 'undefined Cartesian coordinate reference system');
    INSERT OR IGNORE INTO gpkg_spatial_ref_sys VALUES ('Undefined geographic SRS', 0, 'NONE', \
    0, 'undefined', 'undefined geographic coordinate reference system');
    INSERT OR IGNORE INTO gpkg_spatial_ref_sys VALUES ('WGS 84 geodetic', 4326, 'EPSG', 4326, \
    '\(wgs84Definition)', 'longitude/latitude coordinates in decimal degrees on the WGS 84 \
    spheroid');
    """

  /// The R-tree spatial index of a geometry column (Annex F.3, "gpkg_rtree_index"): its
  /// gpkg_extensions row, the virtual table and the triggers that keep it current when other
  /// programs edit the table (they call the ST_ functions those programs provide).
  static func rtree(table: String, column: String) -> String {
    let t = quoted(table)
    let c = quoted(column)
    let r = quoted("rtree_\(table)_\(column)")
    let name = "rtree_\(table)_\(column)"
    let values =
      "VALUES (NEW.\"fid\", ST_MinX(NEW.\(c)), ST_MaxX(NEW.\(c)), ST_MinY(NEW.\(c)), "
      + "ST_MaxY(NEW.\(c)))"
    func trigger(_ suffix: String, _ body: String) -> String {
      "CREATE TRIGGER \(quoted(name + "_" + suffix)) \(body);\n"
    }
    return "INSERT INTO gpkg_extensions VALUES (\(literal(table)), \(literal(column)), "
      + "'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', "
      + "'write-only');\n"
      + "CREATE VIRTUAL TABLE \(r) USING rtree(id, minx, maxx, miny, maxy);\n"
      + trigger(
        "insert",
        "AFTER INSERT ON \(t) WHEN (NEW.\(c) NOT NULL AND NOT ST_IsEmpty(NEW.\(c))) "
          + "BEGIN INSERT OR REPLACE INTO \(r) \(values); END")
      + trigger(
        "update1",
        "AFTER UPDATE OF \(c) ON \(t) WHEN OLD.\"fid\" = NEW.\"fid\" AND "
          + "(NEW.\(c) NOTNULL AND NOT ST_IsEmpty(NEW.\(c))) "
          + "BEGIN INSERT OR REPLACE INTO \(r) \(values); END")
      + trigger(
        "update2",
        "AFTER UPDATE OF \(c) ON \(t) WHEN OLD.\"fid\" = NEW.\"fid\" AND "
          + "(NEW.\(c) ISNULL OR ST_IsEmpty(NEW.\(c))) "
          + "BEGIN DELETE FROM \(r) WHERE id = OLD.\"fid\"; END")
      + trigger(
        "update3",
        "AFTER UPDATE ON \(t) WHEN OLD.\"fid\" != NEW.\"fid\" AND "
          + "(NEW.\(c) NOTNULL AND NOT ST_IsEmpty(NEW.\(c))) "
          + "BEGIN DELETE FROM \(r) WHERE id = OLD.\"fid\"; "
          + "INSERT OR REPLACE INTO \(r) \(values); END")
      + trigger(
        "update4",
        "AFTER UPDATE ON \(t) WHEN OLD.\"fid\" != NEW.\"fid\" AND "
          + "(NEW.\(c) ISNULL OR ST_IsEmpty(NEW.\(c))) "
          + "BEGIN DELETE FROM \(r) WHERE id IN (OLD.\"fid\", NEW.\"fid\"); END")
      + trigger(
        "delete",
        "AFTER DELETE ON \(t) WHEN OLD.\(c) NOT NULL "
          + "BEGIN DELETE FROM \(r) WHERE id = OLD.\"fid\"; END")
  }

  /// An SQL string literal.
  static func literal(_ text: String) -> String {
    "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''")
      + "'"
  }
}
