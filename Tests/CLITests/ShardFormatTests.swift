import Foundation
import Testing

/// GeoPackage tables split by fid ranges and shapefiles by record ranges in sharded runs:
/// shards plus a merge write what one run writes, and each shard reads only its share.
@Suite("Sharded GeoPackage and Shapefile reads")
struct ShardFormatTests {
  /// 90 points, in an order unlike their fids' once rows are deleted.
  static let points: String =
    (0..<90).map { k in
      "{\"type\":\"Feature\",\"properties\":{\"k\":\(k),\"name\":\"p\(k)\"},"
        + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(Double(k) * 0.5 - 20),\(k * 7 % 60)]}}"
    }.joined(separator: "\n") + "\n"

  /// GDAL writes `gdal.gpkg`, `gdal.shp` and `gdal.zip` (the shapefile zipped); geopipe writes
  /// `ours.gpkg`; rows are deleted from `gaps.gpkg` (GDAL's) and `ours.gpkg`, so that their
  /// fids have gaps (the first and last rows among them).
  static let prepare = """
    set -e
    ogr2ogr -f GPKG gdal.gpkg points.geojsonl -nln points
    cp gdal.gpkg gaps.gpkg
    ogr2ogr gdal.shp points.geojsonl
    zip -q gdal.zip gdal.shp gdal.shx gdal.dbf gdal.prj
    "$GEOPIPE" convert points.geojsonl ours.gpkg --layer points
    /usr/bin/python3 -c '
    import sqlite3
    for name in ("gaps.gpkg", "ours.gpkg"):
        with sqlite3.connect(name) as db:
            db.execute("DELETE FROM points WHERE fid IN (1, 2, 3, 90) OR fid BETWEEN 20 AND 41 "
                       "OR fid % 9 = 0")
    '
    """

  static let pipeline = """
    version: 1
    vars:
      out: out
    stages:
      - read: {path: gdal.gpkg}
      - write: {path: "${out}/gdal-gpkg.geojsonl"}
      - read: {path: gaps.gpkg}
      - write: {path: "${out}/gaps.geojsonl"}
      - read: {path: ours.gpkg, layer: points}
      - write: {path: "${out}/ours.geojsonl"}
      - read: {path: gdal.gpkg, bbox: "-12,5,10,40"}
      - write: {path: "${out}/bbox.geojsonl"}
      - read: {path: gdal.shp}
      - write: {path: "${out}/gdal-shp.geojsonl"}
      - read: {path: gdal.zip}
      - write: {path: "${out}/zip.geojsonl"}
      - read: {path: [gaps.gpkg, gdal.shp]}
      - write: {path: "${out}/both.csv"}
    """

  @Test(.enabled(if: GeoPackageCLITests.hasGDAL))
  func shardsReadFidAndRecordRangesThatMergeToTheOneRun() throws {
    try withTemporaryDirectory { directory in
      try Data(Self.points.utf8).write(to: directory.appendingPathComponent("points.geojsonl"))
      let prepared = try shell(Self.prepare, in: directory)
      try #require(prepared.status == 0, "\(prepared)")
      try Data(Self.pipeline.utf8).write(to: directory.appendingPathComponent("formats.yaml"))
      for threads in ["1", "2"] {
        let folder = directory.appendingPathComponent("threads-\(threads)")
        try ShardTests.expectShardsMatchOneRun(
          "formats.yaml", counts: [1, 2, 3, 7], in: folder, root: directory,
          environment: ["GEOPIPE_THREADS": threads])
      }
      let one = directory.appendingPathComponent("threads-1/one-run")
      let shards = directory.appendingPathComponent("threads-1/shards-7")
      for (output, step, rows) in [
        ("gdal-gpkg", 2, 90), ("gaps", 4, 57), ("ours", 6, 57), ("gdal-shp", 10, 90),
        ("zip", 12, 90),
      ] {
        #expect(try Self.lines(one.appendingPathComponent("\(output).geojsonl")) == rows)
        // Each shard reads a seventh of the rows (fid gaps do not unbalance them).
        let counts = try Self.partLines(in: shards, "\(output).geojsonl", step: step, count: 7)
        #expect(counts.reduce(0, +) == rows, "\(output): \(counts)")
        #expect(
          (counts.max() ?? 0) - (counts.min() ?? 0) <= 1, "\(output) in 7 shards: \(counts)")
      }
    }
  }

  /// A table whose integer primary key is not its rowid is read whole by the first shard.
  @Test func tableWithoutRowidKeyIsReadByOneShard() throws {
    try withTemporaryDirectory { directory in
      try Data(Self.points.utf8).write(to: directory.appendingPathComponent("points.geojsonl"))
      let prepared = try shell(
        """
        set -e
        "$GEOPIPE" convert points.geojsonl plain.gpkg --layer points
        /usr/bin/python3 -c '
        import sqlite3
        with sqlite3.connect("plain.gpkg") as db:
            db.execute("CREATE TABLE keyed (id INTEGER, name TEXT, PRIMARY KEY (id DESC)) "
                       "WITHOUT ROWID")
            db.execute("INSERT INTO keyed SELECT fid, name FROM points ORDER BY fid DESC")
            db.execute("INSERT INTO gpkg_contents (table_name, data_type, identifier) "
                       "VALUES (\\"keyed\\", \\"attributes\\", \\"keyed\\")")
        '
        """, in: directory)
      try #require(prepared.status == 0, "\(prepared)")
      let pipeline = """
        version: 1
        vars:
          out: out
        stages:
          - read: {path: plain.gpkg, layer: keyed}
          - write: {path: "${out}/keyed.geojsonl"}
        """
      try Data(pipeline.utf8).write(to: directory.appendingPathComponent("keyed.yaml"))
      try ShardTests.expectShardsMatchOneRun(
        "keyed.yaml", counts: [1, 3], in: directory, root: directory)
      let shards = directory.appendingPathComponent("shards-3")
      #expect(try Self.partLines(in: shards, "keyed.geojsonl", step: 2, count: 3) == [90, 0, 0])
    }
  }

  /// The number of lines of a file.
  static func lines(_ file: URL) throws -> Int {
    try Data(contentsOf: file).count { $0 == 0x0A }
  }

  /// The number of lines of each shard's part of `output` written at pipeline step `step`.
  static func partLines(in folder: URL, _ output: String, step: Int, count: Int) throws -> [Int] {
    try (0..<count).map { index in
      try lines(
        folder.appendingPathComponent("\(output).step\(step).part-\(index)-of-\(count).geojsonl"))
    }
  }
}
