import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

/// Writes one feature table of a GeoPackage 1.4 (the whole file, or a layer added to a copy of
/// an existing one), in one transaction on the output's temporary file.
///
/// A table's columns are the union of every feature's properties and their types follow from
/// all the values, but rows are written as they come: the table starts with untyped columns
/// (SQLite keeps each value as it is bound), gains a column whenever a new property appears,
/// and `finish()` gives the columns their declared types (numbers in a TEXT column made text,
/// as inserting them there would), then fills the R-tree index from the features' boxes,
/// sorted in bounded memory, and commits.
final class GeoPackageWriter: FeatureWriter {
  /// A property's value kinds seen, as bits.
  private struct Kinds: OptionSet {
    let rawValue: UInt8
    static let integer = Kinds(rawValue: 1)
    static let real = Kinds(rawValue: 2)
    static let boolean = Kinds(rawValue: 4)
    static let text = Kinds(rawValue: 8)
    static let json = Kinds(rawValue: 16)

    /// The declared type of a column holding these kinds: integers and reals widen to REAL,
    /// any other mixture to TEXT.
    var declaredType: String {
      if self == .integer { return "INTEGER" }
      if !isEmpty && isSubset(of: [.integer, .real]) { return "REAL" }
      if self == .boolean { return "BOOLEAN" }
      return "TEXT"
    }
  }

  private struct Column {
    var name: String
    var kinds: Kinds = []
  }

  static let wgs84 = Int32(4326)

  private let output: FormatOutput
  private var database: SQLiteDatabase?
  private let layer: String
  private let precision: Int?
  private var columns: [Column] = []
  private var columnIndex: [String: Int] = [:]
  /// Lowercased names taken (SQLite compares column names without case).
  private var takenNames: Set<String> = ["fid", "geom"]
  private var insert: SQLiteStatement?
  private let entries: RTreeEntrySorter
  private var blob: [UInt8] = []
  private var row: [(Int32, SQLiteValue)] = []
  private var json = JSONTextWriter()
  private var nextFid: Int64 = 1
  private var largestFid: Int64 = 0
  private var count = 0
  private var extent = BBox.empty
  private var kinds = Set<GeometryKind>()
  private var geometries = 0
  private var withZ = 0
  private var withM = 0

  init(output: FormatOutput, options: WriteOptions) throws {
    self.output = output
    if let crs = options.crs {
      throw GeoPipeError.usage(
        "geopipe writes GeoPackages in WGS84, not \(crs): leave out --crs (reproject to "
          + "EPSG:4326 first)")
    }
    let path = try output.temporaryPath(for: "GeoPackage")
    layer = options.layer ?? Self.baseName(output.path)
    precision = options.precision
    entries = RTreeEntrySorter(folder: OutputPath.parent(of: output.path), output: output.path)
    try Self.checkLayerName(layer)
    let append = options.formatOptions.flag("append-layer")
    let existing = append && FileManager.default.fileExists(atPath: output.path)
    if existing { try Self.copy(output.path, into: output.file) }
    do {
      let database = try SQLiteDatabase(path: path, create: true)
      self.database = database
      // The file is a private temporary copy until it is renamed into place, so SQLite needs
      // no rollback journal nor syncs of its own (the commit syncs the file).
      try database.execute(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = FILE; "
          + "PRAGMA cache_size = -16384")
      if existing {
        try checkExisting(database)
      } else {
        try database.execute(
          "PRAGMA application_id = 1196444487; PRAGMA user_version = 10400")
      }
      try database.execute("BEGIN")
      try database.execute(GeoPackageSchema.metadata)
      // Untyped columns until `finish()` knows their types, and no AUTOINCREMENT (which
      // updates sqlite_sequence after every row) until then either; sqlite_sequence itself
      // appears with the first AUTOINCREMENT table, so one is made and dropped.
      try database.execute(
        "CREATE TABLE \"gpkg_geopipe_sequence\" (id INTEGER PRIMARY KEY AUTOINCREMENT); "
          + "DROP TABLE \"gpkg_geopipe_sequence\"; "
          + "CREATE TABLE \(quoted(layer)) (\"fid\" INTEGER PRIMARY KEY NOT NULL, "
          + "\"geom\" BLOB)")
      try prepareInsert()
    } catch let error as SQLiteError {
      database = nil
      throw GeoPipeError(
        "cannot create '\(output.path)': \(error.message)", status: .cannotCreate)
    } catch {
      database = nil
      throw error
    }
  }

  func write(_ feature: Feature) throws {
    guard let insert else { return }
    var geometry = feature.geometry
    if let precision, let given = geometry { geometry = Self.rounded(given, precision) }
    blob.removeAll(keepingCapacity: true)
    let box = geometry.flatMap { GeoPackageBlob.append($0, srsID: Self.wgs84, to: &blob) }
    if let geometry, let box {
      extent.extend(box)
      kinds.insert(geometry.kind)
      geometries += 1
      if geometry.hasZ { withZ += 1 }
      if Self.hasM(geometry) { withM += 1 }
    }
    let fid: Int64
    if case .integer(let n) = feature.id { fid = n } else { fid = nextFid }
    if fid >= nextFid { nextFid = fid == .max ? fid : fid + 1 }
    largestFid = max(largestFid, fid)
    count += 1
    row.removeAll(keepingCapacity: true)
    if let properties = feature.properties {
      // A property that is always null still gets its (TEXT) column, as it was read.
      for member in properties {
        let k = try column(for: member.key)
        if !member.value.isNull { row.append((Int32(3 + k), try value(member.value, column: k))) }
      }
    }
    do {
      // A new property has prepared a statement with one more column.
      let statement = self.insert ?? insert
      statement.reset()
      try statement.bind(.integer(fid), at: 1)
      // No geometry is NULL; an empty one a BLOB with the empty flag.
      if geometry != nil { try blob.withUnsafeBytes { try statement.bindBlob($0, at: 2) } }
      for (index, value) in row { try statement.bind(value, at: index) }
      try statement.run()
    } catch let error as SQLiteError {
      guard error.code == SQLiteError.constraint else {
        throw GeoPipeError("cannot write '\(output.path)': \(error.message)", status: .ioError)
      }
      throw GeoPipeError.data(
        "\(output.path): layer '\(layer)': two features have the id \(fid), but a GeoPackage's "
          + "fid is unique (integer ids become fids)", at: nil)
    }
    if let box {
      try entries.append(
        RTreeEntry(
          key: GeoPackageRTree.hilbert(box), id: fid,
          box: GeoPackageRTree.Box(
            minX: box.west, maxX: box.east, minY: box.south, maxY: box.north)))
    }
  }

  func finish() throws {
    guard let database else { return }
    do {
      try createTable(database)
      try database.execute("COMMIT")
    } catch let error as SQLiteError {
      abort()
      throw GeoPipeError("cannot write '\(output.path)': \(error.message)", status: .ioError)
    } catch {
      abort()
      throw error
    }
    insert = nil
    self.database = nil
    try output.file.commit()
  }

  func abort() {
    insert = nil
    database = nil
    output.file.abort()
  }

  // MARK: Columns

  /// The column of a property, added when the property is new.
  private func column(for key: String) throws -> Int {
    if let k = columnIndex[key] { return k }
    guard takenNames.insert(key.lowercased()).inserted else {
      throw GeoPipeError.data(
        "\(output.path): layer '\(layer)', feature \(count): property '\(key)' clashes with "
          + "another column (GeoPackage column names ignore case; 'fid' and 'geom' are taken): "
          + "rename it first", at: nil)
    }
    let k = columns.count
    columns.append(Column(name: key))
    columnIndex[key] = k
    try database?.execute("ALTER TABLE \(quoted(layer)) ADD COLUMN \(quoted(key))")
    try prepareInsert()
    return k
  }

  /// A property's value as it is stored, noting its kind: booleans as 1 and 0 while their
  /// column holds nothing else (a BOOLEAN column), else as the words 'true' and 'false' (kept
  /// in a TEXT column); arrays and objects as JSON.
  private func value(_ value: JSONValue, column k: Int) throws -> SQLiteValue {
    let sqlValue: SQLiteValue
    switch value {
    case .null: sqlValue = .null
    case .bool(let b):
      if columns[k].kinds.isSubset(of: .boolean) {
        sqlValue = .integer(b ? 1 : 0)
      } else {
        sqlValue = .text(b ? "true" : "false")
      }
      try note(.boolean, column: k)
    case .integer(let n):
      try note(.integer, column: k)
      sqlValue = .integer(n)
    case .double(let x):
      try note(.real, column: k)
      sqlValue = .real(x)
    case .bigInteger(let digits), .bigNumber(let digits):
      try note(.real, column: k)
      sqlValue = Double(digits).map { .real($0) } ?? .text(digits)
    case .string(let s):
      try note(.text, column: k)
      sqlValue = .text(s)
    case .array, .object:
      try note(.json, column: k)
      json.bytes.removeAll(keepingCapacity: true)
      json.writeValue(value)
      sqlValue = .text(String(decoding: json.bytes, as: UTF8.self))
    }
    return sqlValue
  }

  /// Adds a kind to a column's; booleans stored as 1 and 0 become words when the column
  /// stops being a BOOLEAN one.
  private func note(_ kind: Kinds, column k: Int) throws {
    let before = columns[k].kinds
    guard !before.contains(kind) else { return }
    columns[k].kinds.insert(kind)
    if before == .boolean, let database {
      let name = quoted(columns[k].name)
      try database.execute(
        "UPDATE \(quoted(layer)) SET \(name) = CASE \(name) WHEN 1 THEN 'true' "
          + "WHEN 0 THEN 'false' END WHERE \(name) IS NOT NULL")
    }
  }

  private func prepareInsert() throws {
    guard let database else { return }
    let parameters = (0..<(2 + columns.count)).map { "?\($0 + 1)" }.joined(separator: ", ")
    insert = try database.statement("INSERT INTO \(quoted(layer)) VALUES (\(parameters))")
    insert?.reset()
  }

  // MARK: The feature table

  /// Gives the feature table's columns their types, describes the table in the metadata
  /// tables and builds its R-tree index.
  private func createTable(_ database: SQLiteDatabase) throws {
    let geometryType =
      kinds.count == 1 ? (kinds.first?.rawValue.uppercased() ?? "GEOMETRY") : "GEOMETRY"
    let table = quoted(layer)
    var definitions = [
      "\"fid\" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL", "\"geom\" \(geometryType)",
    ]
    for column in columns {
      let type = column.kinds.declaredType
      definitions.append("\(quoted(column.name)) \(type)")
      if type == "TEXT" && !column.kinds.isDisjoint(with: [.integer, .real]) {
        // As a TEXT column's affinity turns numbers inserted into it into text.
        let name = quoted(column.name)
        try database.execute(
          "UPDATE \(table) SET \(name) = CAST(\(name) AS TEXT) "
            + "WHERE typeof(\(name)) IN ('integer', 'real')")
      }
    }
    try Self.retype(
      database, table: layer, as: "CREATE TABLE \(table) (\(definitions.joined(separator: ", ")))")
    if count > 0 {
      try database.statement("INSERT INTO sqlite_sequence (name, seq) VALUES (?1, ?2)")
        .bind(.text(layer), .integer(largestFid)).run()
    }
    let contents = try database.statement(
      "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, "
        + "min_x, min_y, max_x, max_y, srs_id) VALUES (?1, 'features', ?1, '', "
        + "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?2, ?3, ?4, ?5, 4326)")
    try contents.bind(.text(layer))
    if !extent.isEmpty {
      try contents.bind(.real(extent.west), at: 2)
      try contents.bind(.real(extent.south), at: 3)
      try contents.bind(.real(extent.east), at: 4)
      try contents.bind(.real(extent.north), at: 5)
    }
    try contents.run()
    let z = withZ == 0 ? 0 : (withZ == geometries ? 1 : 2)
    let m = withM == 0 ? 0 : (withM == geometries ? 1 : 2)
    try database.statement(
      "INSERT INTO gpkg_geometry_columns VALUES (?1, 'geom', ?2, 4326, ?3, ?4)"
    ).bind(.text(layer), .text(geometryType), .integer(Int64(z)), .integer(Int64(m))).run()
    try database.execute(GeoPackageSchema.rtree(table: layer, column: "geom"))
    let leaves = RTreeEntrySorter(folder: OutputPath.parent(of: output.path), output: output.path)
    try GeoPackageRTree.load(database, name: "rtree_\(layer)_geom", leaves: leaves) { add in
      try entries.sorted { entry in try add(entry.id, entry.box) }
    }
  }

  /// Replaces the definition of `table` with `definition`.
  ///
  /// The two may differ only in the columns' declared types and AUTOINCREMENT. The values
  /// stay as they are stored (which is why numbers in TEXT columns are made text first);
  /// SQLite applies a column's new affinity to what it
  /// reads (integers in a REAL column read as reals) and to what is written from then on.
  private static func retype(_ database: SQLiteDatabase, table: String, as definition: String)
    throws
  {
    let version = try database.scalarText("PRAGMA schema_version").flatMap { Int64($0) } ?? 0
    try database.execute("PRAGMA writable_schema = ON")
    defer { try? database.execute("PRAGMA writable_schema = OFF") }
    try database.statement(
      "UPDATE sqlite_master SET sql = ?1 WHERE type = 'table' AND name = ?2"
    ).bind(.text(definition), .text(table)).run()
    // Other connections read the schema anew when its version changes.
    try database.execute("PRAGMA schema_version = \(version + 1)")
  }

  // MARK: Helpers

  /// Refuses an existing file that is not a GeoPackage, or that has the layer already.
  private func checkExisting(_ database: SQLiteDatabase) throws {
    let catalog = GeoPackageCatalog(database: database, name: output.path)
    let id = try database.scalarText("PRAGMA application_id").flatMap { Int64($0) }
    guard [0x4750_4B47, 0x4750_3130, 0x4750_3131].contains(id ?? 0),
      try catalog.exists("gpkg_contents")
    else {
      throw GeoPipeError(
        "cannot append a layer to '\(output.path)': it is not a GeoPackage",
        status: .cannotCreate)
    }
    let taken = try database.statement(
      "SELECT name FROM sqlite_master WHERE lower(name) = lower(?1) UNION "
        + "SELECT table_name FROM gpkg_contents WHERE lower(table_name) = lower(?1)")
    try taken.bind(.text(layer))
    defer { taken.reset() }
    if try taken.step() {
      throw GeoPipeError.usage(
        "'\(output.path)' already has a layer '\(taken.text(0))': choose another --layer, or "
          + "leave out --append-layer to replace the file")
    }
  }

  /// Copies an existing file into the output's temporary file.
  private static func copy(_ path: String, into file: OutputFile) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw GeoPipeError("cannot read '\(path)' to append a layer to it", status: .cannotCreate)
    }
    defer { try? handle.close() }
    while true {
      let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
      if chunk.isEmpty { break }
      try chunk.withUnsafeBytes { try file.write($0) }
    }
  }

  private static func checkLayerName(_ name: String) throws {
    let lowered = name.lowercased()
    guard !name.isEmpty, !lowered.hasPrefix("gpkg_"), !lowered.hasPrefix("rtree_"),
      !lowered.hasPrefix("sqlite_")
    else {
      throw GeoPipeError.usage(
        "'\(name)' cannot name a GeoPackage layer (names starting gpkg_, rtree_ and sqlite_ "
          + "are reserved): choose another with --layer")
    }
  }

  /// The file's name without its folder and extension.
  static func baseName(_ path: String) -> String {
    let name = (path as NSString).lastPathComponent
    let base = (name as NSString).deletingPathExtension
    return base.isEmpty ? name : base
  }

  /// Whether any position has a measure.
  static func hasM(_ geometry: Geometry) -> Bool {
    func run(_ c: CoordinateArray) -> Bool {
      guard c.dimension > 3 else { return false }
      return stride(from: 3, to: c.storage.count, by: 4).contains { !c.storage[$0].isNaN }
    }
    switch geometry {
    case .point(let p): return !p.m.isNaN
    case .multiPoint(let c), .lineString(let c): return run(c)
    case .multiLineString(let runs), .polygon(let runs): return runs.contains(where: run)
    case .multiPolygon(let polygons): return polygons.contains { $0.contains(where: run) }
    case .geometryCollection(let members): return members.contains(where: hasM)
    }
  }

  /// The geometry with every coordinate rounded to `precision` decimals.
  static func rounded(_ geometry: Geometry, _ precision: Int) -> Geometry {
    let scale = pow(10, Double(min(max(precision, 0), 17)))
    func round(_ x: Double) -> Double {
      let r = (x * scale).rounded() / scale
      return r.isFinite ? r : x
    }
    func run(_ c: CoordinateArray) -> CoordinateArray {
      CoordinateArray(storage: c.storage.map(round), dimension: c.dimension)
    }
    switch geometry {
    case .point(let p):
      return .point(Position(x: round(p.x), y: round(p.y), z: round(p.z), m: round(p.m)))
    case .multiPoint(let c): return .multiPoint(run(c))
    case .lineString(let c): return .lineString(run(c))
    case .multiLineString(let runs): return .multiLineString(runs.map(run))
    case .polygon(let runs): return .polygon(runs.map(run))
    case .multiPolygon(let polygons): return .multiPolygon(polygons.map { $0.map(run) })
    case .geometryCollection(let members):
      return .geometryCollection(members.map { rounded($0, precision) })
    }
  }
}
