import Foundation
import Testing

/// Shapefiles read and written by the CLI, with GDAL (`ogr2ogr`) as the oracle both ways.
@Suite struct ShapefileTests {
  static let ogr2ogr = URL(fileURLWithPath: "/usr/bin/ogr2ogr")
  static var hasGDAL: Bool { FileManager.default.isExecutableFile(atPath: ogr2ogr.path) }

  /// Points with every kind of property GDAL writes to dBASE.
  static let points = """
    {"type":"FeatureCollection","features":[
    {"type":"Feature","properties":{"name":"Zürich","count":42,"ratio":0.25,"open":true,"day":"2021-03-04","big":9007199254740993},"geometry":{"type":"Point","coordinates":[8.541694,47.376887]}},
    {"type":"Feature","properties":{"name":"São Paulo","count":-7,"ratio":-1.5e-05,"open":false,"day":"1999-12-31","big":-12},"geometry":{"type":"Point","coordinates":[-46.633309,-23.55052]}},
    {"type":"Feature","properties":{"name":null,"count":null,"ratio":null,"open":null,"day":null,"big":null},"geometry":{"type":"Point","coordinates":[0.1,-0.2]}},
    {"type":"Feature","properties":{"name":"no geometry","count":0,"ratio":1e10,"open":true,"day":"2000-01-01","big":1},"geometry":null}
    ]}
    """

  /// Polygons with holes (one hole listed before a second outer ring) and multipolygons.
  static let polygons = """
    {"type":"FeatureCollection","features":[
    {"type":"Feature","properties":{"id":1},"geometry":{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[1,1],[1,2],[2,2],[2,1],[1,1]],[[5,5],[5,6],[6,6],[6,5],[5,5]]]}},
    {"type":"Feature","properties":{"id":2},"geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1],[0,0]]],[[[20,20],[30,20],[30,30],[20,30],[20,20]],[[21,21],[21,22],[22,22],[22,21],[21,21]]],[[[22.5,22.5],[23,22.5],[23,23],[22.5,23],[22.5,22.5]]]]}},
    {"type":"Feature","properties":{"id":3},"geometry":{"type":"MultiPolygon","coordinates":[[[[-10,-10],[-5,-10],[-5,-5],[-10,-5],[-10,-10]],[[-9,-9],[-9,-8],[-8,-8],[-8,-9],[-9,-9]]],[[[-4,-4],[-1,-4],[-1,-1],[-4,-1],[-4,-4]]]]}}
    ]}
    """

  /// Lines and 3D lines.
  static let lines = """
    {"type":"FeatureCollection","features":[
    {"type":"Feature","properties":{"k":"a"},"geometry":{"type":"LineString","coordinates":[[0,0,1],[1,1,2],[2,0,3.5]]}},
    {"type":"Feature","properties":{"k":"b"},"geometry":{"type":"MultiLineString","coordinates":[[[0,0,0],[1,1,1]],[[5,5,5],[6,6,6.25]]]}}
    ]}
    """

  // MARK: - GDAL's files read as GDAL reads them

  @Test(arguments: [("points", points), ("polygons", polygons), ("lines", lines)])
  func readsGDALShapefilesAsGDALDoes(_ name: String, _ geojson: String) throws {
    guard Self.hasGDAL else { return }
    try withTemporaryDirectory { dir in
      try write(geojson, to: dir.appendingPathComponent("in.geojson"))
      try gdal(["-f", "ESRI Shapefile", "\(name).shp", "in.geojson"], in: dir)
      try expectSameAsGDAL("\(name).shp", in: dir)
    }
  }

  /// Written by GDAL in `encoding`, with a `.cpg` saying `cpg` (as other software writes it).
  @Test(arguments: [
    ("ISO-8859-1", "ISO-8859-1"), ("ISO-8859-1", "88591"), ("CP1252", "1252"),
    ("CP1252", "CP1252"), ("UTF-8", "UTF-8"),
  ])
  func readsTheCodePageOfTheCPG(_ encoding: String, _ cpg: String) throws {
    guard Self.hasGDAL else { return }
    try withTemporaryDirectory { dir in
      let name = encoding == "ISO-8859-1" ? "Café Ærø" : "Café Ærø 5 €"
      try write(
        """
        {"type":"Feature","properties":{"name":"\(name)"},"geometry":{"type":"Point","coordinates":[1,2]}}
        """, to: dir.appendingPathComponent("in.geojson"))
      try gdal(
        ["-f", "ESRI Shapefile", "-lco", "ENCODING=\(encoding)", "t.shp", "in.geojson"], in: dir)
      try write(cpg, to: dir.appendingPathComponent("t.cpg"))
      let run = try geopipe(["read", "t.shp"], in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(try JSON.parse(run.out)["properties"]?["name"]?.string == name, "\(run)")
      try expectSameAsGDAL("t.shp", in: dir)
    }
  }

  @Test func readsTheLanguageDriverIDWithoutACPG() throws {
    guard Self.hasGDAL else { return }
    try withTemporaryDirectory { dir in
      try write(
        """
        {"type":"Feature","properties":{"name":"Café €"},"geometry":{"type":"Point","coordinates":[1,2]}}
        """, to: dir.appendingPathComponent("in.geojson"))
      try gdal(["-f", "ESRI Shapefile", "-lco", "ENCODING=CP1252", "t.shp", "in.geojson"], in: dir)
      try FileManager.default.removeItem(at: dir.appendingPathComponent("t.cpg"))
      // Language driver 0x03 is Windows-1252 for GDAL; 0x57 is ISO-8859-1.
      for (ldid, expected) in [(UInt8(0x03), "Café €"), (UInt8(0x57), "Café \u{80}")] {
        var dbf = try Data(contentsOf: dir.appendingPathComponent("t.dbf"))
        dbf[29] = ldid
        try dbf.write(to: dir.appendingPathComponent("t.dbf"))
        let run = try geopipe(["read", "t.shp"], in: dir)
        #expect(try JSON.parse(run.out)["properties"]?["name"]?.string == expected, "\(run)")
        try expectSameAsGDAL("t.shp", in: dir)
      }
      // Neither: UTF-8 when valid, else ISO-8859-1.
      var dbf = try Data(contentsOf: dir.appendingPathComponent("t.dbf"))
      dbf[29] = 0
      try dbf.write(to: dir.appendingPathComponent("t.dbf"))
      let run = try geopipe(["read", "t.shp"], in: dir)
      #expect(try JSON.parse(run.out)["properties"]?["name"]?.string == "Caf\u{E9} \u{80}")
    }
  }

  @Test func reprojectsFromThePRJ() throws {
    guard Self.hasGDAL else { return }
    try withTemporaryDirectory { dir in
      try write(Self.points, to: dir.appendingPathComponent("in.geojson"))
      try gdal(["-f", "ESRI Shapefile", "-t_srs", "EPSG:3857", "m.shp", "in.geojson"], in: dir)
      let run = try geopipe(["read", "m.shp"], in: dir)
      #expect(run.status == 0, "\(run)")
      let features = try JSON.parseSequence(run.stdout)
      let first = try #require(features.first)
      let xy = (first["geometry"]?["coordinates"]?.array ?? []).compactMap { $0.number }
      try #require(xy.count == 2)
      #expect(abs(xy[0] - 8.541694) < 1e-9 && abs(xy[1] - 47.376887) < 1e-9, "\(xy)")
    }
  }

  // MARK: - geopipe's files read by GDAL

  @Test(arguments: [("points", points), ("polygons", polygons), ("lines", lines)])
  func gdalReadsGeopipeShapefiles(_ name: String, _ geojson: String) throws {
    guard Self.hasGDAL else { return }
    try withTemporaryDirectory { dir in
      try write(geojson, to: dir.appendingPathComponent("in.geojson"))
      let run = try geopipe(["convert", "in.geojson", "\(name).shp"], in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(
        try contents(of: dir).filter { $0.hasPrefix(name + ".") }.sorted()
          == ["cpg", "dbf", "prj", "shp", "shx"].map { "\(name).\($0)" })
      #expect(
        try String(contentsOf: dir.appendingPathComponent("\(name).cpg"), encoding: .utf8)
          == "UTF-8")
      try expectSameAsGDAL("\(name).shp", in: dir)
      // And the same features as the input.
      let back = try geopipe(["read", "\(name).shp"], in: dir)
      let input = try geopipe(["read", "in.geojson"], in: dir)
      let features = try JSON.parseSequence(back.stdout)
      let originals = try JSON.parseSequence(input.stdout)
      #expect(features.count == originals.count)
    }
  }

  @Test func fieldNamesAreCutAsGDALCutsThem() throws {
    guard Self.hasGDAL else { return }
    try withTemporaryDirectory { dir in
      let geojson = """
        {"type":"Feature","properties":{"population_2020":1,"population_2021":2,"population_2022":3,"Short":"x"},"geometry":{"type":"Point","coordinates":[1,2]}}
        """
      try write(geojson, to: dir.appendingPathComponent("in.geojson"))
      let run = try geopipe(["convert", "in.geojson", "ours.shp"], in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(run.err.contains("population_2021 → populati_1"), "\(run)")
      try gdal(["-f", "ESRI Shapefile", "theirs.shp", "in.geojson"], in: dir)
      let ours = try gdalRead("ours.shp", in: dir)
      let theirs = try gdalRead("theirs.shp", in: dir)
      #expect(ours.first?["properties"]?.keys == theirs.first?["properties"]?.keys)
      #expect(ours.first?["properties"] == theirs.first?["properties"])
    }
  }

  @Test func featuresWithoutPropertiesGetTheFIDFieldGDALWrites() throws {
    try withTemporaryDirectory { dir in
      let geojson = """
        {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}
        {"type":"Feature","properties":null,"geometry":null}
        {"type":"Feature","geometry":{"type":"Point","coordinates":[3,4]}}
        """
      try write(geojson, to: dir.appendingPathComponent("in.geojsonl"))
      let run = try geopipe(["convert", "in.geojsonl", "ours.shp"], in: dir)
      try #require(run.status == 0, "\(run)")
      let back = try geopipe(["read", "ours.shp"], in: dir)
      #expect(back.status == 0, "\(back)")
      #expect(
        back.out.split(separator: "\n").map(String.init) == [
          #"{"type":"Feature","properties":{"FID":0},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
          #"{"type":"Feature","properties":{"FID":1},"geometry":null}"#,
          #"{"type":"Feature","properties":{"FID":2},"geometry":{"type":"Point","coordinates":[3,4]}}"#,
        ])
      guard Self.hasGDAL else { return }
      try gdal(["-f", "ESRI Shapefile", "theirs.shp", "in.geojsonl"], in: dir)
      let ours = try Data(contentsOf: dir.appendingPathComponent("ours.dbf"))
      let theirs = try Data(contentsOf: dir.appendingPathComponent("theirs.dbf"))
      // The same field and records (the header holds the date and the code page's mark).
      #expect(ours.count == theirs.count)
      #expect(ours.dropFirst(32) == theirs.dropFirst(32))
    }
  }

  // MARK: - Round trips

  @Test func roundTripIsExact() throws {
    try withTemporaryDirectory { dir in
      let geojson = """
        {"type":"Feature","properties":{"name":"a","n":1,"x":0.1,"ok":true,"tags":"[1,\\"b\\"]"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,4],[0,0]],[[1,1],[1,2],[2,2],[2,1],[1,1]]]}}
        {"type":"Feature","properties":{"name":"ü","n":-123456789012,"x":-2.5e-300,"ok":false,"tags":"x"},"geometry":{"type":"MultiPolygon","coordinates":[[[[10,10],[11,10],[11,11],[10,10]]],[[[20,20],[21,20],[21,21],[20,20]]]]}}
        {"type":"Feature","properties":{"name":"c","n":null,"x":null,"ok":null,"tags":null},"geometry":null}
        """
      try write(geojson, to: dir.appendingPathComponent("in.geojsonl"))
      let first = try geopipe(["convert", "in.geojsonl", "a.geojsonl"], in: dir)
      let written = try geopipe(["convert", "in.geojsonl", "rt.shp"], in: dir)
      #expect(written.status == 0, "\(written)")
      let back = try geopipe(["convert", "rt.shp", "b.geojsonl"], in: dir)
      #expect(back.status == 0 && first.status == 0, "\(back)")
      #expect(
        text(dir.appendingPathComponent("b.geojsonl"))
          == text(dir.appendingPathComponent("a.geojsonl")))
    }
  }

  @Test func mixedTypesAreSplitOrChosen() throws {
    try withTemporaryDirectory { dir in
      let geojson = """
        {"type":"Feature","properties":{"a":1},"geometry":{"type":"Point","coordinates":[1,2]}}
        {"type":"Feature","properties":{"a":2},"geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]}}
        {"type":"Feature","properties":{"a":3},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}
        {"type":"Feature","properties":{"a":4},"geometry":{"type":"LineString","coordinates":[[5,6],[7,8]]}}
        """
      try write(geojson, to: dir.appendingPathComponent("in.geojsonl"))
      let split = try geopipe(["convert", "in.geojsonl", "out/m.shp"], in: dir)
      #expect(split.status == 0, "\(split)")
      let files = try contents(of: dir.appendingPathComponent("out")).filter {
        $0.hasSuffix(".shp")
      }
      #expect(files.sorted() == ["m_line.shp", "m_point.shp", "m_polygon.shp"])
      let lines = try geopipe(["read", "out/m_line.shp"], in: dir)
      #expect(
        try JSON.parseSequence(lines.stdout).map { $0["properties"]?["a"] } == [
          .integer("2"), .integer("4"),
        ])
      let chosen = try geopipe(
        ["convert", "--geometry-type", "line", "in.geojsonl", "l.shp"], in: dir)
      #expect(chosen.status == 0, "\(chosen)")
      #expect(chosen.err.contains("left out 1 Point, 1 Polygon"), "\(chosen)")
      #expect(try JSON.parseSequence(geopipe(["read", "l.shp"], in: dir).stdout).count == 2)
    }
  }

  @Test func longStringsAreAnErrorUnlessTruncated() throws {
    try withTemporaryDirectory { dir in
      let long = String(repeating: "é", count: 200)
      try write(
        "{\"type\":\"Feature\",\"properties\":{\"s\":\"\(long)\"},\"geometry\":null}\n",
        to: dir.appendingPathComponent("in.geojsonl"))
      let refused = try geopipe(["convert", "in.geojsonl", "s.shp"], in: dir)
      #expect(refused.status == 65, "\(refused)")
      #expect(refused.err.contains("feature 1: property 's' is 400 bytes"), "\(refused)")
      #expect(try contents(of: dir).sorted() == ["in.geojsonl"], "nothing written")
      let cut = try geopipe(["convert", "--truncate-strings", "in.geojsonl", "s.shp"], in: dir)
      #expect(cut.status == 0, "\(cut)")
      let back = try JSON.parse(geopipe(["read", "s.shp"], in: dir).out)
      #expect(back["properties"]?["s"]?.string == String(repeating: "é", count: 127))
    }
  }

  // MARK: - Zip archives

  @Test func readsZippedShapefiles() throws {
    guard Self.hasGDAL else { return }
    try withTemporaryDirectory { dir in
      try write(Self.points, to: dir.appendingPathComponent("p.geojson"))
      try write(Self.polygons, to: dir.appendingPathComponent("q.geojson"))
      try gdal(["-f", "ESRI Shapefile", "roads.shp", "p.geojson"], in: dir)
      try gdal(["-f", "ESRI Shapefile", "parcels.shp", "q.geojson"], in: dir)
      try makeZip("one.zip", ["roads.shp", "roads.shx", "roads.dbf", "roads.prj"], in: dir)
      try makeZip(
        "two.zip",
        ["roads.shp", "roads.shx", "roads.dbf", "parcels.shp", "parcels.shx", "parcels.dbf"],
        in: dir)
      let direct = try geopipe(["read", "roads.shp"], in: dir)
      let one = try geopipe(["read", "one.zip"], in: dir)
      #expect(one.status == 0, "\(one)")
      #expect(one.out == direct.out)
      let several = try geopipe(["read", "two.zip"], in: dir)
      #expect(several.status == 64)
      #expect(
        several.err.contains("holds 2 shapefiles: choose one with --layer (roads, parcels)"),
        "\(several)")
      let chosen = try geopipe(["read", "two.zip", "--layer", "parcels"], in: dir)
      #expect(chosen.status == 0, "\(chosen)")
      #expect(chosen.out == (try geopipe(["read", "parcels.shp"], in: dir)).out)
      // A zip without a shapefile is still refused as a zip archive.
      try makeZip("other.zip", ["p.geojson"], in: dir)
      let other = try geopipe(["read", "other.zip"], in: dir)
      #expect(other.status == 65)
      #expect(other.err.contains("the input is a zip archive"), "\(other)")
    }
  }

  // MARK: - Corrupt files

  @Test func corruptFilesAreDataErrorsNamingTheRecord() throws {
    try withTemporaryDirectory { dir in
      try write(Self.polygons, to: dir.appendingPathComponent("in.geojson"))
      #expect(try geopipe(["convert", "in.geojson", "p.shp"], in: dir).status == 0)
      let shp = try Data(contentsOf: dir.appendingPathComponent("p.shp"))
      let dbf = try Data(contentsOf: dir.appendingPathComponent("p.dbf"))
      for ext in ["shx", "dbf", "shp"] {
        for name in ["cut", "short"] {
          try FileManager.default.copyItem(
            at: dir.appendingPathComponent("p.\(ext)"),
            to: dir.appendingPathComponent("\(name).\(ext)"))
        }
      }
      // The .shp cut inside its second record.
      try shp.prefix(shp.count - 200).write(to: dir.appendingPathComponent("cut.shp"))
      let cut = try geopipe(["read", "cut.shp"], in: dir)
      #expect(cut.status == 65, "\(cut)")
      #expect(cut.err.contains("cut.shp: record 3: the shape cannot be read"), "\(cut)")
      // The .dbf's header counts more records than it holds: its last one is cut short.
      try dbf.prefix(dbf.count - 2).write(to: dir.appendingPathComponent("short.dbf"))
      let short = try geopipe(["read", "short.shp"], in: dir)
      #expect(short.status == 65, "\(short)")
      #expect(short.err.contains("short.shp: record 3: the .dbf record cannot be read"), "\(short)")
      // A record count that disagrees with the .shp.
      var wrong = dbf
      wrong[4] = 200
      try wrong.write(to: dir.appendingPathComponent("short.dbf"))
      let counted = try geopipe(["read", "short.shp"], in: dir)
      #expect(counted.status == 65, "\(counted)")
      #expect(counted.err.contains("short.shp: the .shp holds 3 shapes but the .dbf 200 records"))
      // A .dbf cut inside its header.
      try dbf.prefix(40).write(to: dir.appendingPathComponent("short.dbf"))
      let broken = try geopipe(["read", "short.shp"], in: dir)
      #expect(broken.status == 65, "\(broken)")
      #expect(broken.err.contains("short.shp: the .dbf 'short.dbf' cannot be read"), "\(broken)")
      // Only the header.
      try shp.prefix(100).write(to: dir.appendingPathComponent("cut.shp"))
      let header = try geopipe(["read", "cut.shp"], in: dir)
      #expect(header.status == 65 && !header.signaled, "\(header)")
    }
  }

  /// Bytes changed and files cut at random (a fixed seed): every run reads or fails with a
  /// data error, never crashes.
  @Test func damagedFilesNeverCrash() throws {
    try withTemporaryDirectory { dir in
      try write(Self.polygons, to: dir.appendingPathComponent("in.geojson"))
      #expect(try geopipe(["convert", "in.geojson", "base.shp"], in: dir).status == 0)
      var state: UInt64 = 0x9E37_79B9_7F4A_7C15
      func random(_ n: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(max(n, 1)))
      }
      for round in 0..<40 {
        for ext in ["shp", "shx", "dbf"] {
          var bytes = try Data(contentsOf: dir.appendingPathComponent("base.\(ext)"))
          for _ in 0..<random(4) { bytes[random(bytes.count)] = UInt8(random(256)) }
          if random(6) == 0 { bytes = bytes.prefix(random(bytes.count)) }
          try bytes.write(to: dir.appendingPathComponent("f.\(ext)"))
        }
        let run = try geopipe(["read", "f.shp"], in: dir)
        #expect(!run.signaled && [0, 65, 66].contains(run.status), "round \(round): \(run)")
      }
    }
  }

  @Test func aShapefileUnderAnotherNameIsToldApart() throws {
    try withTemporaryDirectory { dir in
      try Data([0x00, 0x00, 0x27, 0x0A] + Array(repeating: 0, count: 96)).write(
        to: dir.appendingPathComponent("places.geojson"))
      let run = try geopipe(["read", "places.geojson"], in: dir)
      #expect(run.status == 65)
      #expect(
        run.errLines.first
          == "places.geojson:1:1: error: expected GeoJSON (the file name ends in .geojson), but "
          + "the file is Shapefile; use --input-format shapefile to read it as such")
      let bare = try geopipe(["read", "-"], stdin: Data([0x00, 0x00, 0x27, 0x0A]))
      #expect(bare.status == 66)
      #expect(bare.err.contains("Shapefile cannot be read from standard input"), "\(bare)")
    }
  }

  // MARK: - Helpers

  /// Runs ogr2ogr in `dir`, failing the test when it fails.
  private func gdal(_ arguments: [String], in dir: URL) throws {
    let run = try runProcess(Self.ogr2ogr, arguments, stdin: nil, in: dir)
    #expect(run.status == 0, "ogr2ogr \(arguments): \(run)")
  }

  /// The features GDAL reads from `file`, as GeoJSONSeq.
  private func gdalRead(_ file: String, in dir: URL) throws -> [JSON] {
    let run = try runProcess(
      Self.ogr2ogr, ["-f", "GeoJSONSeq", "/vsistdout/", file], stdin: nil, in: dir)
    #expect(run.status == 0, "\(run)")
    return try JSON.parseSequence(run.stdout)
  }

  private func makeZip(_ name: String, _ files: [String], in dir: URL) throws {
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
          for f in sys.argv[2:]: z.write(f)
      """
    let run = try runProcess(
      URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, name] + files, stdin: nil, in: dir)
    #expect(run.status == 0, "\(run)")
  }

  /// geopipe's reading of `file` (written as GeoJSONSeq, so rings are wound as RFC 7946 asks,
  /// as GDAL's GeoJSONSeq has them) is GDAL's: same properties in the same order, coordinates
  /// within 1e-9.
  private func expectSameAsGDAL(
    _ file: String, in dir: URL, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let run = try geopipe(["convert", file, "ours.geojsonl"], in: dir)
    #expect(run.status == 0, "\(run)", sourceLocation: sourceLocation)
    let ours = try JSON.parseSequence(bytes(dir.appendingPathComponent("ours.geojsonl")))
    let theirs = try gdalRead(file, in: dir)
    #expect(ours.count == theirs.count, sourceLocation: sourceLocation)
    for (a, b) in zip(ours, theirs) {
      #expect(
        close(
          logicalsAsGDALReadsThem(a["properties"] ?? .null, b["properties"] ?? .null),
          b["properties"] ?? .null, 1e-12, kinds: true),
        "\(a) vs \(b)", sourceLocation: sourceLocation)
      #expect(
        close(a["geometry"] ?? .null, b["geometry"] ?? .null, 1e-9), "\(a) vs \(b)",
        sourceLocation: sourceLocation)
    }
  }

  /// GDAL 3.6 reads dBASE logical fields as the letters written (`T`, `F`, `?` for null).
  private func logicalsAsGDALReadsThem(_ properties: JSON, _ gdal: JSON) -> JSON {
    guard case .object(let members) = properties else { return properties }
    return .object(
      members.map { member in
        guard case .bool(let b) = member.value else {
          if member.value == .null, gdal[member.key] == .string("?") {
            return JSON.Member(key: member.key, value: .string("?"))
          }
          return member
        }
        return JSON.Member(key: member.key, value: .string(b ? "T" : "F"))
      })
  }

  /// Equal, numbers within `tolerance` (relative above 1), and of the same kind (integer or
  /// float) when `kinds`.
  private func close(_ a: JSON, _ b: JSON, _ tolerance: Double, kinds: Bool = false) -> Bool {
    switch (a, b) {
    case (.array(let x), .array(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { close($0, $1, tolerance, kinds: kinds) }
    case (.object(let x), .object(let y)):
      return x.map(\.key) == y.map(\.key)
        && zip(x, y).allSatisfy { close($0.value, $1.value, tolerance, kinds: kinds) }
    case (.integer(let x), .integer(let y)):
      return x == y
    case (.float, .float), (.float, .integer), (.integer, .float):
      guard !kinds || (a.isFloat == b.isFloat), let x = a.number, let y = b.number else {
        return false
      }
      return abs(x - y) <= tolerance * max(1, abs(x))
    default:
      return a == b
    }
  }
}

extension JSON {
  fileprivate var isFloat: Bool {
    if case .float = self { return true }
    return false
  }
}
