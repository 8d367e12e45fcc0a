import Foundation
import Testing

/// PostgreSQL through the command line against a real server (PostGIS 3).
///
/// The server is the one `Scripts/with-postgres.sh` starts and names in `PGHOST` (`Scripts/test-postgis.sh` runs
/// this suite through it). Without `PGHOST` the suite is skipped.
@Suite(
  .enabled(
    if: ProcessInfo.processInfo.environment["PGHOST"] != nil,
    "no PostgreSQL server: PGHOST is unset (run Scripts/with-postgres.sh Scripts/test-postgis.sh)"))
struct PostgreSQLTests {
  static let database = "postgresql:///\(ProcessInfo.processInfo.environment["PGDATABASE"] ?? "")"

  /// Runs a query with psql and returns its rows, unaligned and tuples only.
  func psql(_ sql: String) throws -> String {
    let run = try runProcess(
      URL(fileURLWithPath: "/usr/bin/psql"),
      ["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
      stdin: nil, in: nil)
    #expect(run.status == 0, "\(run)")
    return run.out.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static let features = """
    {"type":"Feature","id":1,"properties":{"n":1,"x":0.1,"big":9007199254740993,"s":"a \\"q\\" é","b":true,"o":{"k":[1,2.5]},"weird name;":-7},"geometry":{"type":"Point","coordinates":[1.5,2.25,3]}}
    {"type":"Feature","id":2,"properties":{"n":-9223372036854775808,"x":2.5e-300,"big":1,"s":"","b":false,"o":[1,"x",null],"weird name;":0},"geometry":{"type":"Point","coordinates":[-120.12345678901234,45.000000000000014,-0.5]}}
    {"type":"Feature","id":3,"properties":{"n":0,"x":-0.0,"big":2,"s":"line\\nbreak","b":true,"o":{},"weird name;":1},"geometry":{"type":"Point","coordinates":[179.99999999999997,-89.99999999999999,1e-300]}}

    """

  @Test func roundTripKeepsIntegersDoubleBitsAndZ() throws {
    let written = try geopipe(
      ["write", Self.database, "--table", "round_trip", "--fid-column", "id"],
      stdin: Data(Self.features.utf8))
    #expect(written.status == 0, "\(written)")
    let read = try geopipe(
      ["read", Self.database, "--table", "round_trip", "--fid-column", "id"])
    #expect(read.status == 0, "\(read)")
    #expect(read.out == Self.features)
    #expect(
      try psql(
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = "
          + "'round_trip'::regclass AND attnum > 0 ORDER BY attnum")
        == "bigint\ngeometry(PointZ,4326)\nbigint\ndouble precision\nbigint\ntext\nboolean\njsonb\nbigint"
    )
  }

  @Test func queryWithBoxAndTransform() throws {
    let written = try geopipe(
      ["write", Self.database, "--table", "public.boxed"], stdin: Data(Self.features.utf8))
    #expect(written.status == 0, "\(written)")
    let read = try geopipe([
      "read", Self.database, "--sql",
      "SELECT n, ST_Transform(geom, 3857) AS g, now()::date AS day FROM boxed;",
      "--bbox", "-121,44,-119,46",
    ])
    #expect(read.status == 0, "\(read)")
    #expect(read.outLines.count == 1, "\(read)")
    #expect(read.out.contains("\"n\":-9223372036854775808"), "\(read)")
    #expect(read.out.contains("\"day\":\"20"), "\(read)")
  }

  @Test func propertyChangingTypeLeavesNoTable() throws {
    let input = """
      {"type":"Feature","properties":{"v":1},"geometry":null}
      {"type":"Feature","properties":{"v":"one"},"geometry":null}

      """
    let run = try geopipe(["write", Self.database, "--table", "changing"], stdin: Data(input.utf8))
    #expect(run.status == 65, "\(run)")
    #expect(run.err.contains("feature 2: property 'v' is a string"), "\(run)")
    #expect(try psql("SELECT to_regclass('changing') IS NULL") == "t")
  }

  @Test func failedReplaceLeavesTheOldTable() throws {
    let first = try geopipe(
      ["write", Self.database, "--table", "kept", "--fid-column", "id"],
      stdin: Data(Self.features.utf8))
    #expect(first.status == 0, "\(first)")
    // Duplicate ids break the new table's primary key during the load.
    let duplicate = """
      {"type":"Feature","id":7,"properties":{"n":1},"geometry":null}
      {"type":"Feature","id":7,"properties":{"n":2},"geometry":null}

      """
    let run = try geopipe(
      ["write", Self.database, "--table", "kept", "--fid-column", "id", "--if-exists", "replace"],
      stdin: Data(duplicate.utf8))
    #expect(run.status == 65, "\(run)")
    #expect(run.err.contains("duplicate key"), "\(run)")
    #expect(try psql("SELECT count(*) FROM kept") == "3")
    let again = try geopipe(["write", Self.database, "--table", "kept"], stdin: Data())
    #expect(again.status == 73, "\(again)")
    #expect(again.err.contains("the table exists"), "\(again)")
  }

  @Test func appendAndUpsert() throws {
    let one = #"{"type":"Feature","properties":{"k":"a","v":1},"geometry":null}"# + "\n"
    let two = #"{"type":"Feature","properties":{"k":"a","v":2},"geometry":null}"# + "\n"
    for input in [one, two] {
      let run = try geopipe(
        ["write", Self.database, "--table", "upserted", "--upsert-on", "k"],
        stdin: Data(input.utf8))
      #expect(run.status == 0, "\(run)")
    }
    #expect(try psql("SELECT k || v FROM upserted") == "a2")
    let appended = try geopipe(
      ["write", Self.database, "--table", "upserted", "--if-exists", "append"],
      stdin: Data(two.utf8))
    #expect(appended.status == 65, "\(appended)")
    #expect(try psql("SELECT count(*) FROM upserted") == "1")
  }

  @Test func sqlErrorsGivePostgreSQLsMessageAndPosition() throws {
    let run = try geopipe(["read", Self.database, "--sql", "SELECT nope FROM pg_class"])
    #expect(run.status == 66, "\(run)")
    #expect(
      run.err.contains("column \"nope\" does not exist") && run.err.contains("at character 8"),
      "\(run)")
    let missing = try geopipe(["read", Self.database, "--table", "no_such_table"])
    #expect(missing.status == 66, "\(missing)")
    #expect(missing.err.contains("relation \"no_such_table\" does not exist"), "\(missing)")
  }

  @Test func passwordsAreNeverPrinted() throws {
    let url = "postgresql://someone:s3cret@/nothing?host=/nonexistent&password=s3cret"
    for arguments in [["read", url, "--table", "t"], ["write", url, "--table", "t"]] {
      let run = try geopipe(arguments, stdin: Data())
      #expect(run.status == (arguments[0] == "read" ? 66 : 73), "\(run)")
      #expect(!run.err.contains("s3cret") && run.err.contains("postgresql://someone@/"), "\(run)")
    }
  }
}
