import Foundation
import Testing

/// GeoParquet through the command line: detection, --bbox, --by-hilbert, options and errors.
/// (Feature-by-feature comparisons with pyarrow, GeoPandas and DuckDB are in
/// Scripts/test-geoparquet.sh.)
@Suite struct GeoParquetCLITests {
  static let pyarrow = CLI.fixtures("geoparquet/pyarrow-zstd.parquet").path
  static let geopandas3857 = CLI.fixtures("geoparquet/geopandas-3857.parquet").path

  /// A GeoJSONSeq grid of `side` × `side` points over the world, in row order.
  static func grid(_ side: Int) -> Data {
    var text = ""
    for row in 0..<side {
      for column in 0..<side {
        let x = -179.5 + 359.0 * Double(column) / Double(side - 1)
        let y = -89.5 + 179.0 * Double(row) / Double(side - 1)
        text +=
          "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(x),\(y)]},"
        text += "\"properties\":{\"n\":\(row * side + column)}}\n"
      }
    }
    return Data(text.utf8)
  }

  @Test func fileWithAnotherExtensionIsRecognisedByItsBytes() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.copyItem(
        atPath: Self.pyarrow, toPath: dir.appendingPathComponent("data.bin").path)
      let run = try geopipe(["read", "data.bin"], in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(run.outLines.count == 40)
      let piped = try geopipe(
        ["read"], stdin: try Data(contentsOf: URL(fileURLWithPath: Self.pyarrow)))
      #expect(piped.out == run.out)
    }
  }

  @Test func projectedFileIsReprojectedToWGS84() throws {
    let run = try geopipe(["read", Self.geopandas3857, "--bbox", "-120.5,-60.5,-119.5,-59.5"])
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.count == 1)
    // -120, -60 in EPSG:3857 and back, to within PROJ's rounding.
    #expect(run.out.contains("\"coordinates\":[-119.99999999999"), "\(run.out)")
  }

  @Test func hilbertSortedFileSkipsRowGroupsForASmallBox() throws {
    try withTemporaryDirectory { dir in
      let grid = Self.grid(100)
      let sorted = try geopipe(["sort", "--by-hilbert"], stdin: grid)
      #expect(sorted.status == 0, "\(sorted)")
      let written = try geopipe(
        ["write", "grid.parquet", "--row-group-size", "100"], stdin: Data(sorted.out.utf8), in: dir)
      #expect(written.status == 0, "\(written)")
      let all = try geopipe(["read", "grid.parquet"], in: dir)
      #expect(all.outLines.count == 10_000)
      let box = try geopipe(["read", "grid.parquet", "--bbox", "0,0,36,18"], in: dir)
      #expect(box.status == 0, "\(box)")
      // 1% of the area: 100 points, from 2 of the 100 row groups.
      #expect(box.outLines.count == 100, "\(box.outLines.count)")
      #expect(box.err.contains("--bbox read 2 of 100 row groups"), "\(box.err)")
    }
  }

  @Test func optionsAreChecked() throws {
    try withTemporaryDirectory { dir in
      let zero = try geopipe(
        ["write", "a.parquet", "--row-group-size", "0"], stdin: Self.grid(3), in: dir)
      #expect(zero.status == 64, "\(zero)")
      let codec = try geopipe(
        ["write", "a.parquet", "--compression", "lz4"], stdin: Self.grid(3), in: dir)
      #expect(codec.status == 64, "\(codec)")
      let gz = try geopipe(["write", "a.parquet.gz"], stdin: Self.grid(3), in: dir)
      #expect(gz.status == 64, "\(gz)")
      #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("a.parquet").path))
      let sort = try geopipe(["sort"], stdin: Self.grid(3))
      #expect(sort.status == 64, "\(sort)")
    }
  }

  @Test func truncatedFileIsADataErrorNamingIt() throws {
    try withTemporaryDirectory { dir in
      let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.pyarrow))
      try bytes.prefix(bytes.count - 3).write(to: dir.appendingPathComponent("cut.parquet"))
      let run = try geopipe(["read", "cut.parquet"], in: dir)
      #expect(run.status == 65, "\(run)")
      #expect(run.err.contains("cut.parquet: the file does not end with PAR1"), "\(run.err)")
    }
  }
}
