import Foundation
import Testing

/// FlatGeobuf through the command line, with GDAL (`ogr2ogr`, `ogrinfo`, `osgeo.ogr`) as the
/// oracle both ways.
@Suite struct FlatGeobufTests {
  static let fixture = CLI.fixtures("flatgeobuf/mixed.geojson").path
  static let compare = CLI.fixtures("flatgeobuf/gdal_compare.py").path
  static let python = URL(fileURLWithPath: "/usr/bin/python3")

  /// GDAL and its Python bindings; the GDAL checks are skipped without them.
  static let hasGDAL: Bool = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ogr2ogr") else { return false }
    let probe = try? runProcess(python, ["-c", "from osgeo import ogr"], stdin: nil, in: nil)
    return probe?.status == 0
  }()

  /// Runs `gdal_compare.py` on a FlatGeobuf file and geopipe's reading of it.
  func gdalReads(_ fgb: String, as features: String, spat: [String] = [], in folder: URL)
    throws -> Run
  {
    try runProcess(
      Self.python, [Self.compare] + (spat.isEmpty ? [] : ["--spat"] + spat) + [fgb, features],
      stdin: nil, in: folder)
  }

  @Test(arguments: [[], ["-lco", "SPATIAL_INDEX=NO"]])
  func filesWrittenByGDALReadAsGDALReadsThem(options: [String]) throws {
    guard Self.hasGDAL else { return }
    try withTemporaryDirectory { folder in
      let written = try runProcess(
        URL(fileURLWithPath: "/usr/bin/ogr2ogr"),
        ["-f", "FlatGeobuf", "gdal.fgb", Self.fixture] + options, stdin: nil, in: folder)
      #expect(written.status == 0, "\(written)")
      let read = try geopipe(["convert", "gdal.fgb", "ours.geojsonl"], in: folder)
      #expect(read.status == 0, "\(read)")
      let compared = try gdalReads("gdal.fgb", as: "ours.geojsonl", in: folder)
      // GDAL leaves out the feature without a geometry.
      #expect(compared.out == "ok 9\n", "\(compared)")
    }
  }

  @Test(arguments: [[], ["--no-index"]])
  func filesWrittenByGeopipeReadInGDALAsInGeopipe(options: [String]) throws {
    guard Self.hasGDAL else { return }
    try withTemporaryDirectory { folder in
      let written = try geopipe(["convert", Self.fixture, "ours.fgb"] + options, in: folder)
      #expect(written.status == 0, "\(written)")
      let read = try geopipe(["convert", "ours.fgb", "back.geojsonl"], in: folder)
      #expect(read.status == 0, "\(read)")
      let compared = try gdalReads("ours.fgb", as: "back.geojsonl", in: folder)
      #expect(compared.out == "ok 10\n", "\(compared)")
      let info = try runProcess(
        URL(fileURLWithPath: "/usr/bin/ogrinfo"), ["-so", "-al", "ours.fgb"], stdin: nil,
        in: folder)
      for line in [
        "Layer name: ours", "Geometry: 3D Unknown (any)", "Feature Count: 10", #"ID["EPSG",4326]"#,
        "name: String", "pop: Integer64", "area: Real", "capital: Integer(Boolean)",
        "tags: String", "note: String",
      ] {
        #expect(info.out.contains(line), "\(line)\n\(info)")
      }
    }
  }

  @Test func gdalsSpatialFilterThroughOurIndexFindsWhatBBoxFinds() throws {
    guard Self.hasGDAL else { return }
    try withTemporaryDirectory { folder in
      #expect(try geopipe(["convert", Self.fixture, "ours.fgb"], in: folder).status == 0)
      let read = try geopipe(
        ["convert", "ours.fgb", "box.geojsonl", "--bbox", "0,0,12,12"], in: folder)
      #expect(read.status == 0, "\(read)")
      let found = try String(
        contentsOf: folder.appendingPathComponent("box.geojsonl"), encoding: .utf8)
      #expect(found.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 3)
      let compared = try gdalReads(
        "ours.fgb", as: "box.geojsonl", spat: ["0", "0", "12", "12"], in: folder)
      #expect(compared.out == "ok 3\n", "\(compared)")
      let info = try runProcess(
        URL(fileURLWithPath: "/usr/bin/ogrinfo"),
        ["-q", "-al", "-spat", "0", "0", "12", "12", "ours.fgb"], stdin: nil, in: folder)
      #expect(info.out.components(separatedBy: "OGRFeature(").count - 1 == 3, "\(info)")
    }
  }

  @Test func aRoundTripGivesBackTheSameFeatures() throws {
    try withTemporaryDirectory { folder in
      let script = """
        "$GEOPIPE" read "\(Self.fixture)" > in.geojsonl &&
        "$GEOPIPE" write plain.fgb --no-index < in.geojsonl &&
        "$GEOPIPE" write indexed.fgb < in.geojsonl &&
        "$GEOPIPE" read plain.fgb > plain.geojsonl &&
        "$GEOPIPE" read indexed.fgb > indexed.geojsonl &&
        cmp in.geojsonl plain.geojsonl &&
        sort in.geojsonl > a && sort indexed.geojsonl > b && cmp a b &&
        ! cmp -s in.geojsonl indexed.geojsonl
        """
      let run = try shell(script, in: folder)
      #expect(run.status == 0, "\(run)")
    }
  }

  @Test func aStreamAndAFileWithoutItsExtensionAreRecognised() throws {
    try withTemporaryDirectory { folder in
      let script = """
        "$GEOPIPE" convert "\(Self.fixture)" data.fgb --no-index && cp data.fgb data.bin &&
        "$GEOPIPE" read data.fgb > a && "$GEOPIPE" read data.bin > b &&
        "$GEOPIPE" read - < data.fgb > c && cmp a b && cmp a c && test -s a
        """
      let run = try shell(script, in: folder)
      #expect(run.status == 0, "\(run)")
    }
  }

  @Test func aCorruptFileIsADataErrorNamingTheFeature() throws {
    try withTemporaryDirectory { folder in
      let script = """
        "$GEOPIPE" convert "\(Self.fixture)" data.fgb --no-index &&
        head -c $(( $(wc -c < data.fgb) - 7 )) data.fgb > cut.fgb
        """
      #expect(try shell(script, in: folder).status == 0)
      let read = try geopipe(["read", "cut.fgb"], in: folder)
      #expect(read.status == 65, "\(read)")
      #expect(read.err.contains("error: cut.fgb: feature 9 (byte "), "\(read)")
    }
  }

  @Test func aProjectedCRSIsRecordedAndReprojectedOnRead() throws {
    try withTemporaryDirectory { folder in
      let script = """
        "$GEOPIPE" read "\(Self.fixture)" | "$GEOPIPE" reproject --to EPSG:3857 |
        "$GEOPIPE" write merc.fgb --crs EPSG:3857 &&
        "$GEOPIPE" read merc.fgb --bbox 0,0,12,12 > box && test "$(wc -l < box)" -eq 3
        """
      let run = try shell(script, in: folder)
      #expect(run.status == 0, "\(run)")
      guard Self.hasGDAL else { return }
      let info = try runProcess(
        URL(fileURLWithPath: "/usr/bin/ogrinfo"), ["-so", "-al", "merc.fgb"], stdin: nil,
        in: folder)
      #expect(info.out.contains(#"    ID["EPSG",3857]]"#), "\(info)")
    }
  }

  @Test func gzipOutputIsRefused() throws {
    try withTemporaryDirectory { folder in
      let run = try geopipe(["convert", Self.fixture, "out.fgb.gz"], in: folder)
      #expect(run.status == 64, "\(run)")
      #expect(run.err.contains("FlatGeobuf cannot be written gzip-compressed"), "\(run)")
      #expect(try contents(of: folder).isEmpty)
    }
  }
}
