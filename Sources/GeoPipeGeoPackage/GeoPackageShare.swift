import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

/// The rows of a GeoPackage table that one shard reads (`run --shard`): a range of fids.
///
/// A table splits when its integer primary key is its rowid, so that it is read in fid order
/// and a fid range is read from the table's B-tree without scanning the rest. The `k`th of the
/// table's `n` rows in fid order is at position `k · size / n` (`InputShare.records(count:)`),
/// so gaps in the fids do not unbalance the shares. The share's bounds are the fids of its
/// first row and of the first row after it, found by stepping over the fids before them in the
/// table's B-tree (no row is decoded).
struct GeoPackageShare {
  /// The first fid of the share; nil from the table's first row.
  var lower: Int64?
  /// The fid after the share's last row; nil to the table's end.
  var upper: Int64?
  /// Whether the share holds no row.
  var isEmpty = false

  /// Whether `key`, the integer primary key of `table`, is its rowid (not in a table WITHOUT
  /// ROWID, a view, or an `INTEGER PRIMARY KEY DESC`), as SQLite's query plan for a fid range
  /// shows; a table that is not read in rowid order does not split.
  static func splits(_ table: String, key: String, in database: SQLiteDatabase) throws -> Bool {
    let plan = try database.statement(
      "EXPLAIN QUERY PLAN SELECT \(quoted(key)) FROM \(quoted(table)) WHERE \(quoted(key)) >= 0 "
        + "AND \(quoted(key)) < 1")
    defer { plan.reset() }
    while try plan.step() {
      if plan.text(3).contains("USING INTEGER PRIMARY KEY") { return true }
    }
    return false
  }

  /// The fid range of `share` in `table`, whose rowid is `key`.
  init(_ share: InputShare, table: String, key: String, in database: SQLiteDatabase) throws {
    let counting = try database.statement("SELECT count(*) FROM \(quoted(table))")
    defer { counting.reset() }
    let count = try counting.step() ? Int(counting.int64(0)) : 0
    let rows = share.records(count: count)
    guard !rows.isEmpty else {
      isEmpty = true
      return
    }
    if rows.lowerBound > 0 {
      lower = try Self.fid(after: nil, skipping: rows.lowerBound, table: table, key: key, database)
      if lower == nil { isEmpty = true }
    }
    if rows.upperBound < count {
      upper = try Self.fid(
        after: lower, skipping: rows.count, table: table, key: key, database)
    }
  }

  /// The SQL conditions on `key` that select the share's rows.
  func conditions(key: String) -> [String] {
    if isEmpty { return ["0"] }
    return [lower.map { "\(quoted(key)) >= \($0)" }, upper.map { "\(quoted(key)) < \($0)" }]
      .compactMap { $0 }
  }

  /// The fid `skipping` rows after the first one at or above `from` (the table's first row
  /// when nil), in fid order; nil past the last row.
  private static func fid(
    after from: Int64?, skipping: Int, table: String, key: String, _ database: SQLiteDatabase
  ) throws -> Int64? {
    let k = quoted(key)
    let statement = try database.statement(
      "SELECT \(k) FROM \(quoted(table))\(from == nil ? "" : " WHERE \(k) >= ?") ORDER BY \(k) "
        + "LIMIT 1 OFFSET ?")
    defer { statement.reset() }
    try statement.bind((from.map { [SQLiteValue.integer($0)] } ?? []) + [.integer(Int64(skipping))])
    return try statement.step() ? statement.int64(0) : nil
  }
}
