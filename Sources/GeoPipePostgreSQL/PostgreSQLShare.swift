import GeoPipeCore
import GeoPipeIO

/// How a table is read in a fixed order, and split into shards (`run --shard`) by blocks.
///
/// An ordinary table or materialized view stored in heap blocks (`pg_class.relkind` `r` or `m`,
/// access method `heap`) is read in `ctid` order, the order of its blocks and of the rows in
/// each, in one run and in every shard. A sequential scan may start in the middle of the table
/// (`synchronize_seqscans`) or be split among parallel workers, so the reading session turns
/// both off: its sequential and TID range scans then return the rows in `ctid` order without a
/// sort. With `--bbox`, where the planner may pick an index scan, the rows are sorted by
/// `ctid`. A shard's share is a range of the table's blocks: the `k`th of the
/// `pg_relation_size / block_size` blocks is at position `k · size / n`
/// (`InputShare.records(count:)`), read with `ctid` bounds (a TID Range Scan from PostgreSQL 14
/// on, which reads only those blocks); the share that holds the table's end has no upper bound.
/// Views, partitioned and foreign tables and queries do not split: the shard whose share holds
/// the input's start reads them whole. The table must not change during the run.
enum PostgreSQLShare {
  /// The order a table is read in: `q.ctid` for a heap table, nil for other relations.
  static func order(of table: String, connection: PostgreSQLConnection) throws(PostgreSQLError)
    -> String?
  {
    let rows = try connection.execute(
      "SELECT c.relkind IN ('r', 'm') AND a.amname = 'heap' FROM pg_class c "
        + "JOIN pg_am a ON a.oid = c.relam WHERE c.oid = to_regclass($1)", [table])
    return rows.first?.first == "t" ? "q.ctid" : nil
  }

  /// The `ORDER BY` a read of a heap table needs: none when no filter can make the planner
  /// pick an index (the session's scans are then sequential or TID range scans, in `ctid`
  /// order, once it has turned off synchronized and parallel scans), else `order`.
  static func sortedOrder(_ order: String, bbox: BBox?, connection: PostgreSQLConnection)
    throws(PostgreSQLError) -> String?
  {
    guard bbox == nil else { return order }
    _ = try connection.execute("SET synchronize_seqscans = off")
    _ = try connection.execute("SET max_parallel_workers_per_gather = 0")
    return nil
  }

  /// The conditions on `q.ctid` that select a share's blocks of a heap table.
  static func conditions(
    _ share: InputShare, table: String, connection: PostgreSQLConnection
  ) throws(PostgreSQLError) -> [String] {
    let rows = try connection.execute(
      "SELECT pg_relation_size($1::regclass, 'main') / current_setting('block_size')::bigint",
      [table])
    let blocks = share.records(count: rows.first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0)
    var conditions: [String] = []
    if share.lower > 0 { conditions.append("q.ctid >= '(\(blocks.lowerBound),0)'::tid") }
    if share.upper < share.size { conditions.append("q.ctid < '(\(blocks.upperBound),0)'::tid") }
    return conditions
  }
}
