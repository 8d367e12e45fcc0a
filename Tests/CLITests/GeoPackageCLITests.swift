import Foundation
import Testing

/// GeoPackage read and write, checked against GDAL (ogr2ogr, ogrinfo, validate_gpkg.py) as the
/// oracle both ways.
@Suite struct GeoPackageCLITests {
  static let source = CLI.fixtures("gpkg/mixed.geojson")
  static let validator = "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py"

  /// Whether GDAL's command-line tools are installed.
  static let hasGDAL = FileManager.default.isExecutableFile(atPath: "/usr/bin/ogr2ogr")

  // MARK: GDAL's files read by geopipe

  @Test(.enabled(if: hasGDAL)) func gdalWrittenGeoPackageReadsAsGDALReadsIt() throws {
    try withTemporaryDirectory { dir in
      try gdal(["ogr2ogr", "-f", "GPKG", "g.gpkg", Self.source.path, "-nln", "places"], in: dir)
      let ours = try geopipe(["read", "g.gpkg"], in: dir)
      #expect(ours.status == 0, "\(ours)")
      let theirs = try oracle("g.gpkg", in: dir)
      try expectSameFeatures(JSON.parseSequence(ours.stdout), theirs)
      #expect(ours.outLines.count == 10)
    }
  }

  @Test(.enabled(if: hasGDAL)) func projectedGeoPackageIsReprojectedToWGS84() throws {
    try withTemporaryDirectory { dir in
      try gdal(
        ["ogr2ogr", "-f", "GPKG", "m.gpkg", Self.source.path, "-t_srs", "EPSG:3857"], in: dir)
      let ours = try geopipe(["read", "m.gpkg"], in: dir)
      #expect(ours.status == 0, "\(ours)")
      let theirs = try oracle("m.gpkg", extra: ["-t_srs", "EPSG:4326"], in: dir)
      try expectSameFeatures(JSON.parseSequence(ours.stdout), theirs)
      // As stored, with --keep-crs: Web Mercator metres.
      let kept = try geopipe(["read", "--keep-crs", "m.gpkg"], in: dir)
      #expect(kept.outLines.first?.contains("[950668.45137455") == true, "\(kept)")
    }
  }

  // MARK: geopipe's files read by GDAL

  @Test(.enabled(if: hasGDAL)) func geopipeWrittenGeoPackageValidatesAndReadsInGDAL() throws {
    try withTemporaryDirectory { dir in
      let written = try readWrite(Self.source.path, ["out.gpkg"], in: dir)
      #expect(written.status == 0, "\(written)")
      if FileManager.default.fileExists(atPath: Self.validator) {
        let valid = try gdal(["/usr/bin/python3", Self.validator, "out.gpkg"], in: dir)
        #expect(valid.status == 0 && !valid.err.contains("rror"), "\(valid)")
      }
      let info = try gdal(["ogrinfo", "-al", "out.gpkg"], in: dir)
      #expect(info.out.contains("Feature Count: 10"))
      #expect(info.out.contains("Geometry: Unknown (any)"))
      #expect(info.out.contains("capital: Integer(Boolean)"))
      #expect(info.out.contains("pop: Integer64"))
      #expect(info.out.contains("area: Real"))
      let ours = try geopipe(["read", "out.gpkg"], in: dir)
      try expectSameFeatures(JSON.parseSequence(ours.stdout), try oracle("out.gpkg", in: dir))
      // The same features as the source, numbered from 1.
      let source = try geopipe(["read", Self.source.path], in: dir)
      let withoutIDs = try JSON.parseSequence(ours.stdout).map(\.droppingID)
      #expect(withoutIDs == (try JSON.parseSequence(source.stdout)))
    }
  }

  @Test func roundTripIsExact() throws {
    try withTemporaryDirectory { dir in
      try readWrite(Self.source.path, ["a.gpkg"], in: dir)
      let first = try geopipe(["read", "a.gpkg"], in: dir)
      let copied = try readWrite("a.gpkg", ["b.gpkg"], in: dir)
      #expect(copied.status == 0, "\(copied)")
      let second = try geopipe(["read", "b.gpkg"], in: dir)
      #expect(first.status == 0 && !first.stdout.isEmpty)
      #expect(second.stdout == first.stdout)
    }
  }

  @Test func measuresAndEmptyGeometriesRoundTrip() throws {
    try withTemporaryDirectory { dir in
      let features = """
        {"type":"Feature","id":7,"properties":{"k":1,"none":null},"geometry":{"type":"LineString","coordinates":[[1,2,3,4],[5,6,7,8]]}}
        {"type":"Feature","id":9,"properties":{"k":2},"geometry":{"type":"MultiPolygon","coordinates":[]}}
        {"type":"Feature","id":12,"properties":{"k":3.5},"geometry":{"type":"Point","coordinates":[1.123456789,2]}}

        """
      try write(features, to: dir.appendingPathComponent("in.geojsonl"))
      let run = try readWrite("in.geojsonl", ["--precision", "3", "z.gpkg"], in: dir)
      #expect(run.status == 0, "\(run)")
      let back = try geopipe(["read", "z.gpkg"], in: dir)
      #expect(
        back.outLines == [
          #"{"type":"Feature","id":7,"properties":{"k":1.0,"none":null},"geometry":{"type":"LineString","coordinates":[[1,2,3,4],[5,6,7,8]]}}"#,
          #"{"type":"Feature","id":9,"properties":{"k":2.0,"none":null},"geometry":null}"#,
          #"{"type":"Feature","id":12,"properties":{"k":3.5,"none":null},"geometry":{"type":"Point","coordinates":[1.123,2]}}"#,
        ])
    }
  }

  @Test(.enabled(if: hasGDAL)) func columnTypesFollowEveryValueAsGDALReadsThem() throws {
    try withTemporaryDirectory { dir in
      // `flag` is boolean until an integer comes (then TEXT, the booleans as words), `n` mixes
      // integers and reals (REAL), `t` text and a number (TEXT), `late` appears last.
      let features = """
        {"type":"Feature","properties":{"flag":true,"both":true,"n":1,"t":"x"},"geometry":{"type":"Point","coordinates":[1,2]}}
        {"type":"Feature","properties":{"flag":false,"both":false,"n":2.5,"t":3},"geometry":{"type":"Point","coordinates":[3,4]}}
        {"type":"Feature","properties":{"flag":5,"both":null,"n":-7,"t":1.5,"late":"z"},"geometry":{"type":"Point","coordinates":[5,6]}}

        """
      try write(features, to: dir.appendingPathComponent("in.geojsonl"))
      let run = try readWrite("in.geojsonl", ["kinds.gpkg"], in: dir)
      #expect(run.status == 0, "\(run)")
      let info = try gdal(["ogrinfo", "-so", "kinds.gpkg", "kinds"], in: dir)
      for column in [
        "flag: String", "both: Integer(Boolean)", "n: Real", "t: String", "late: String",
      ] {
        #expect(info.out.contains(column), "\(column): \(info)")
      }
      let ours = try geopipe(["read", "kinds.gpkg"], in: dir)
      try expectSameFeatures(JSON.parseSequence(ours.stdout), try oracle("kinds.gpkg", in: dir))
      #expect(
        ours.outLines.map {
          $0.replacingOccurrences(of: #","geometry".*"#, with: "", options: .regularExpression)
        }
          == [
            #"{"type":"Feature","id":1,"properties":{"flag":"true","both":true,"n":1.0,"t":"x","late":null}"#,
            #"{"type":"Feature","id":2,"properties":{"flag":"false","both":false,"n":2.5,"t":"3","late":null}"#,
            #"{"type":"Feature","id":3,"properties":{"flag":"5","both":null,"n":-7.0,"t":"1.5","late":"z"}"#,
          ], "\(ours)")
      if FileManager.default.fileExists(atPath: Self.validator) {
        let valid = try gdal(["/usr/bin/python3", Self.validator, "kinds.gpkg"], in: dir)
        #expect(valid.status == 0 && !valid.err.contains("rror"), "\(valid)")
      }
    }
  }

  // MARK: Layers

  @Test(.enabled(if: hasGDAL)) func layerIsChosenByNameAndTheErrorListsTheLayers() throws {
    try withTemporaryDirectory { dir in
      try gdal(["ogr2ogr", "-f", "GPKG", "two.gpkg", Self.source.path, "-nln", "alpha"], in: dir)
      try gdal(
        ["ogr2ogr", "-update", "two.gpkg", Self.source.path, "-nln", "beta", "-where", "pop > 3"],
        in: dir)
      let ambiguous = try geopipe(["read", "two.gpkg"], in: dir)
      #expect(ambiguous.status == 64)
      #expect(
        ambiguous.err.contains(
          "two.gpkg holds 2 layers: choose one with --layer ('alpha', 'beta')"), "\(ambiguous)")
      let beta = try geopipe(["read", "--layer", "beta", "two.gpkg"], in: dir)
      #expect(beta.status == 0)
      try expectSameFeatures(
        JSON.parseSequence(beta.stdout), try oracle("two.gpkg", extra: ["beta"], in: dir))
      #expect(beta.outLines.count == 5)
      let missing = try geopipe(["read", "--layer", "gamma", "two.gpkg"], in: dir)
      #expect(missing.status == 64)
      #expect(missing.err.contains("has no layer 'gamma'; its layers: 'alpha', 'beta'"))
    }
  }

  @Test func appendLayerAddsATableAndRefusesAnExistingName() throws {
    try withTemporaryDirectory { dir in
      try readWrite(Self.source.path, ["--layer", "one", "both.gpkg"], in: dir)
      let before = bytes(dir.appendingPathComponent("both.gpkg"))
      let again = try readWrite(
        Self.source.path, ["--layer", "one", "--append-layer", "both.gpkg"], in: dir)
      #expect(again.status == 64)
      #expect(again.err.contains("already has a layer 'one'"), "\(again)")
      #expect(bytes(dir.appendingPathComponent("both.gpkg")) == before)
      #expect(try contents(of: dir) == ["both.gpkg"])
      let added = try readWrite(
        Self.source.path, ["--layer", "two", "--append-layer", "both.gpkg"], in: dir)
      #expect(added.status == 0, "\(added)")
      let one = try geopipe(["read", "--layer", "one", "both.gpkg"], in: dir)
      let two = try geopipe(["read", "--layer", "two", "both.gpkg"], in: dir)
      #expect(one.outLines.count == 10)
      #expect(two.stdout == one.stdout)
      if Self.hasGDAL, FileManager.default.fileExists(atPath: Self.validator) {
        let valid = try gdal(["/usr/bin/python3", Self.validator, "both.gpkg"], in: dir)
        #expect(valid.status == 0, "\(valid)")
      }
    }
  }

  // MARK: The R-tree

  @Test func bboxThroughTheRTreeEqualsReadThenFilter() throws {
    try withTemporaryDirectory { dir in
      var lines = ""
      for k in 0..<2000 {
        let x = Double(k % 50) * 0.5 - 10
        let y = Double(k / 50) * 0.5 - 10
        lines +=
          #"{"type":"Feature","properties":{"k":\#(k)},"geometry":{"type":"LineString","coordinates":[[\#(x),\#(y)],[\#(x + 0.3),\#(y + 0.2)]]}}"#
          + "\n"
      }
      try write(lines, to: dir.appendingPathComponent("grid.geojsonl"))
      try readWrite("grid.geojsonl", ["grid.gpkg"], in: dir)
      // SQLite's own check of the packed tree: every node, box and row id consistent.
      let checked = try gdal(
        [
          "/usr/bin/python3", "-c",
          "import sqlite3; c = sqlite3.connect('grid.gpkg'); print(c.execute(\"SELECT "
            + "rtreecheck('rtree_grid_geom'), (SELECT count(*) FROM rtree_grid_geom_rowid), "
            + "(SELECT count(*) FROM rtree_grid_geom_node) > 2\").fetchone())",
        ], in: dir)
      #expect(checked.out == "('ok', 2000, 1)\n", "\(checked)")
      for box in ["-1,-1,2.2,3", "-10,-10,-9.8,-9.9", "5.1,5.1,5.2,5.2", "-180,-90,180,90"] {
        let indexed = try geopipe(["read", "--bbox", box, "grid.gpkg"], in: dir)
        let filtered = try geopipe(["read", "--bbox", box, "grid.geojsonl"], in: dir)
        #expect(indexed.status == 0, "\(indexed)")
        let ours = try JSON.parseSequence(indexed.stdout).map(\.droppingID)
        #expect(ours == (try JSON.parseSequence(filtered.stdout)), "bbox \(box)")
      }
    }
  }

  // MARK: Bad data

  @Test(arguments: [
    (
      "bad magic", "CAST(X'4758000100000000' || substr(geom, 9) AS BLOB)",
      "the magic is 0x4758, not 'GP'"
    ),
    ("truncated WKB", "substr(geom, 1, length(geom) - 5)", "bad WKB"),
    ("wrong envelope size", "X'47500009E6100000'", "envelope (type 4, 64 bytes) does not fit"),
  ])
  func corruptBlobsAreDataErrorsNamingFileLayerAndFid(
    _ name: String, _ replacement: String, _ message: String
  ) throws {
    try withTemporaryDirectory { dir in
      try readWrite(Self.source.path, ["--layer", "places", "bad.gpkg"], in: dir)
      try gdal(
        [
          "/usr/bin/python3", "-c",
          "import sqlite3; c = sqlite3.connect('bad.gpkg'); "
            // The R-tree triggers call ST_ functions that plain SQLite lacks.
            + "[c.execute('DROP TRIGGER \"%s\"' % n) for (n,) in "
            + "c.execute(\"SELECT name FROM sqlite_master WHERE type = 'trigger'\").fetchall()]; "
            + "c.execute(\"UPDATE places SET geom = \(replacement) WHERE fid = 3\"); c.commit()",
        ], in: dir)
      let run = try geopipe(["read", "bad.gpkg"], in: dir)
      #expect(run.status == 65, "\(name): \(run)")
      #expect(run.err.contains("bad.gpkg: layer 'places', fid 3: "), "\(name): \(run)")
      #expect(run.err.contains(message), "\(name): \(run)")
      // The features before it, then the error record for what reads standard output.
      #expect(run.outLines.count == 3)
      #expect(run.outLines.first?.contains(#""id":1,"#) == true)
    }
  }

  @Test func duplicateIDsFailAndLeaveNoFile() throws {
    try withTemporaryDirectory { dir in
      let features = """
        {"type":"Feature","id":4,"properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}
        {"type":"Feature","id":4,"properties":{},"geometry":{"type":"Point","coordinates":[3,4]}}

        """
      try write(features, to: dir.appendingPathComponent("in.geojsonl"))
      let run = try readWrite("in.geojsonl", ["dup.gpkg"], in: dir)
      #expect(run.status == 65)
      #expect(run.err.contains("two features have the id 4"), "\(run)")
      #expect(try contents(of: dir) == ["in.geojsonl"])
    }
  }

  @Test func truncatedGeoPackageIsADataError() throws {
    try withTemporaryDirectory { dir in
      let head =
        Array("SQLite format 3\0".utf8) + Array(repeating: 0, count: 52) + Array("GPKG".utf8)
        + Array(repeating: 0, count: 28)
      try Data(head).write(to: dir.appendingPathComponent("data.gpkg"))
      let run = try geopipe(["read", "data.gpkg"], in: dir)
      #expect(run.status == 65, "\(run)")
      #expect(run.err.contains("data.gpkg is not a GeoPackage"), "\(run)")
    }
  }

  @Test func anotherCRSIsRefusedOnWrite() throws {
    try withTemporaryDirectory { dir in
      let run = try readWrite(Self.source.path, ["--crs", "EPSG:3857", "m.gpkg"], in: dir)
      #expect(run.status == 64, "\(run)")
      #expect(run.err.contains("geopipe writes GeoPackages in WGS84, not EPSG:3857"), "\(run)")
      #expect(try contents(of: dir) == [])
    }
  }

  @Test func standardInputIsRefused() throws {
    let run = try geopipe(["read", "--input-format", "gpkg", "-"], stdin: Data())
    #expect(run.status == 66)
    #expect(run.err.contains("GeoPackage cannot be read from standard input"))
  }

  // MARK: Helpers

  /// Runs `geopipe read INPUT | geopipe write ARGUMENTS` in `dir`.
  @discardableResult
  private func readWrite(_ input: String, _ arguments: [String], in dir: URL) throws -> Run {
    try shell(
      "$GEOPIPE read \(shellQuoted(input)) | $GEOPIPE write "
        + arguments.map(shellQuoted).joined(separator: " "), in: dir)
  }

  /// Runs a GDAL (or other) program, recording its failure.
  @discardableResult
  private func gdal(
    _ arguments: [String], in dir: URL, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Run {
    let tool = arguments[0].hasPrefix("/") ? arguments[0] : "/usr/bin/" + arguments[0]
    let run = try runProcess(
      URL(fileURLWithPath: tool), Array(arguments.dropFirst()), stdin: nil, in: dir)
    #expect(
      run.status == 0, "\(arguments.joined(separator: " ")): \(run)",
      sourceLocation: sourceLocation)
    return run
  }

  /// The features GDAL reads from a GeoPackage, as GeoJSONSeq with fids as ids.
  private func oracle(_ file: String, extra: [String] = [], in dir: URL) throws -> [JSON] {
    var arguments = [
      "ogr2ogr", "-f", "GeoJSONSeq", "-preserve_fid", "-lco", "COORDINATE_PRECISION=15",
    ]
    if let layer = extra.first, !layer.hasPrefix("-") {
      arguments += ["/vsistdout/", file, layer]
    } else {
      arguments += extra + ["/vsistdout/", file]
    }
    return try JSON.parseSequence(try gdal(arguments, in: dir).stdout)
  }
}

/// Expects two feature lists to be the same.
///
/// Same order, ids and properties (numbers of the same kind), coordinates within 1e-9. GDAL
/// rewrites DATETIME values in its own form (without `.000` milliseconds), which geopipe
/// keeps as stored.
func expectSameFeatures(
  _ ours: [JSON], _ theirs: [JSON], sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(ours.count == theirs.count, sourceLocation: sourceLocation)
  for (a, b) in zip(ours, theirs) {
    #expect(a["id"] == b["id"], "\(a) vs \(b)", sourceLocation: sourceLocation)
    #expect(
      a["properties"]?.normalisingTimes == b["properties"]?.normalisingTimes,
      "\(a) vs \(b)", sourceLocation: sourceLocation)
    #expect(
      close(a["geometry"] ?? .null, b["geometry"] ?? .null), "\(a) vs \(b)",
      sourceLocation: sourceLocation)
  }
}

/// Whether two JSON values are equal with numbers within 1e-9.
private func close(_ a: JSON, _ b: JSON) -> Bool {
  switch (a, b) {
  case (.array(let x), .array(let y)):
    return x.count == y.count && zip(x, y).allSatisfy { close($0, $1) }
  case (.object(let x), .object(let y)):
    return x.map(\.key) == y.map(\.key)
      && zip(x, y).allSatisfy { close($0.value, $1.value) }
  default:
    if let x = a.number, let y = b.number { return abs(x - y) <= 1e-9 }
    return a == b
  }
}

extension JSON {
  /// A Feature without its `id` member.
  var droppingID: JSON {
    guard case .object(let members) = self else { return self }
    return .object(members.filter { $0.key != "id" })
  }

  /// Strings with `.000Z` written as `Z`.
  var normalisingTimes: JSON {
    switch self {
    case .string(let s): .string(s.replacingOccurrences(of: ".000Z", with: "Z"))
    case .object(let members):
      .object(members.map { Member(key: $0.key, value: $0.value.normalisingTimes) })
    default: self
    }
  }
}
