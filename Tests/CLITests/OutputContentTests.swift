import Foundation
import Testing

/// What writers put in files when features differ: CSV columns are the union of all
/// properties (or exactly `--columns`), KML leaves out null values, and a projected GeoJSON
/// names its CRS in the form GDAL reads (and geopipe reprojects back to WGS84).
@Suite("output content")
struct OutputContentTests {
  static func feature(_ properties: String, _ lon: Double = 1, _ lat: Double = 2) -> String {
    #"{"type":"Feature","properties":{\#(properties)},"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}"#
  }

  static let mixed =
    [
      feature(#""a":1"#), feature(#""b":"x,y\nz","a":null"#, 3, 4),
      #"{"type":"Feature","properties":{"c":true},"geometry":null}"#, feature(#""a":5,"c":6"#),
    ].joined(separator: "\n") + "\n"

  @Test func csvColumnsAreTheUnionOfAllProperties() throws {
    try withTemporaryDirectory { dir in
      let run = try geopipe(["write", "out.csv"], stdin: Data(Self.mixed.utf8), in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(
        text(dir.appendingPathComponent("out.csv"))
          == "longitude,latitude,a,b,c\n1,2,1,,\n3,4,,\"x,y\nz\",\n,,,,true\n1,2,5,,6\n")
      // The scratch file for the rows is gone.
      #expect(try contents(of: dir) == ["out.csv"])
    }
  }

  @Test func csvColumnsOptionWritesExactlyThoseColumns() throws {
    try withTemporaryDirectory { dir in
      let run = try geopipe(
        ["write", "--columns", "c,a", "out.tsv"], stdin: Data(Self.mixed.utf8), in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(
        text(dir.appendingPathComponent("out.tsv"))
          == "longitude\tlatitude\tc\ta\n1\t2\t\t1\n3\t4\t\t\n\t\ttrue\t\n1\t2\t6\t5\n")
    }
  }

  /// Rows that wait in the scratch file (more than its 1 MiB buffer), a column first seen in
  /// the last row, and gzip.
  @Test func csvUnionOfALargeInput() throws {
    try withTemporaryDirectory { dir in
      var input = (0..<30_000).map { Self.feature(#""k":\#($0),"name":"place \#($0)""#) }
      input.append(Self.feature(#""late":"yes""#))
      let run = try geopipe(
        ["write", "out.csv.gz"], stdin: Data((input.joined(separator: "\n") + "\n").utf8),
        in: dir)
      #expect(run.status == 0, "\(run)")
      let back = try geopipe(["read", "out.csv.gz"], in: dir)
      #expect(back.status == 0, "\(back)")
      let rows = back.outLines
      #expect(rows.count == 30_001)
      // Without --infer-types CSV cells read back as strings.
      #expect(rows.first?.contains(#""k":"0","name":"place 0","late":"""#) == true, "\(rows[0])")
      #expect(rows.last?.contains(#""k":"","name":"","late":"yes""#) == true)
    }
  }

  @Test func kmlLeavesOutNullValues() throws {
    try withTemporaryDirectory { dir in
      let input = Self.feature(#""name":null,"kind":"city","population":null"#) + "\n"
      let run = try geopipe(["write", "out.kml"], stdin: Data(input.utf8), in: dir)
      #expect(run.status == 0, "\(run)")
      let kml = text(dir.appendingPathComponent("out.kml"))
      #expect(kml.contains(#"<Data name="kind"><value>city</value></Data>"#), "\(kml)")
      #expect(!kml.contains("null"), "\(kml)")
      #expect(!kml.contains(#"name="population""#), "\(kml)")
    }
  }

  @Test func projectedGeoJSONNamesItsCRS() throws {
    try withTemporaryDirectory { dir in
      let polygon =
        #"{"type":"Feature","properties":{"a":1},"geometry":{"type":"Polygon","coordinates":[[[-100,40],[-99,40],[-99,41],[-100,40]]]}}"#
        + "\n"
      try write(polygon, to: dir.appendingPathComponent("in.geojsonl"))
      let run = try shell(
        """
        "$GEOPIPE" read in.geojsonl | "$GEOPIPE" reproject --to EPSG:5070 \
          | "$GEOPIPE" write --crs EPSG:5070 --allow-non-wgs84 p.geojson
        """, in: dir)
      #expect(run.status == 0, "\(run)")
      let written = text(dir.appendingPathComponent("p.geojson"))
      #expect(
        written.hasPrefix(
          #"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::5070"}},"features":["#
        ), "\(written)")

      // GDAL reads the CRS, and an extent in metres.
      let ogrinfo = try runProcess(
        URL(fileURLWithPath: "/usr/bin/ogrinfo"), ["-so", "-al", "p.geojson"], stdin: nil,
        in: dir)
      #expect(ogrinfo.status == 0, "\(ogrinfo)")
      #expect(ogrinfo.out.contains("NAD83 / Conus Albers"), "\(ogrinfo)")
      #expect(ogrinfo.out.contains(#"ID["EPSG",5070]"#), "\(ogrinfo)")
      #expect(ogrinfo.out.contains("Extent: (-338389."), "\(ogrinfo)")

      // geopipe reads it back to WGS84, and says so.
      let back = try geopipe(["read", "p.geojson"], in: dir)
      #expect(back.status == 0, "\(back)")
      #expect(
        back.err.contains(
          #"p.geojson:1:29: note: the legacy "crs" member says the coordinates are in EPSG:5070: reprojecting them to WGS84 longitude/latitude"#
        ), "\(back)")
      #expect(back.out.contains("[[[-100.0000000000"), "\(back)")
    }
  }

  @Test func crsThatTheMemberCannotNameIsAUsageError() throws {
    try withTemporaryDirectory { dir in
      let input = Self.feature(#""a":1"#, 500_000, 600_000) + "\n"
      let run = try geopipe(
        ["write", "--crs", "+proj=merc +datum=WGS84", "--allow-non-wgs84", "x.geojson"],
        stdin: Data(input.utf8), in: dir)
      #expect(run.status == 64, "\(run)")
      #expect(run.err.contains("AUTHORITY:CODE"), "\(run)")
      #expect(try contents(of: dir) == [])
    }
  }

  @Test func geoJSONOfGDALInAnotherCRSIsReprojected() throws {
    try withTemporaryDirectory { dir in
      let gdal = """
        {
        "type": "FeatureCollection",
        "name": "p",
        "crs": { "type": "name", "properties": { "name": "urn:ogc:def:crs:EPSG::3857" } },
        "features": [
        { "type": "Feature", "properties": { "a": 1 }, "geometry": { "type": "Point", "coordinates": [ 261845.7, 6250566.7 ] } }
        ]
        }

        """
      try write(gdal, to: dir.appendingPathComponent("m.geojson"))
      for threads in ["1", "2"] {
        let run = try geopipe(
          ["read", "m.geojson"], in: dir, environment: ["GEOPIPE_THREADS": threads])
        #expect(run.status == 0, "\(run)")
        #expect(run.out.contains(#""coordinates":[2.3521999"#), "\(run)")
        #expect(run.err.contains("m.geojson:4:1: note: the legacy \"crs\" member"), "\(run)")
      }
    }
  }
}
