import Foundation
import Testing

/// `read` of GPX and KML through the binary: KML written by `write` reads back to the same
/// features, standard input and gzip, `--gpx-points`, notes, and the errors (entity tricks,
/// malformed XML) with their exit status and place.
@Suite("xml formats")
struct XMLFormatTests {
  /// Every property KMLWriter writes, in the order the KML reader gives them back.
  static let written = """
    {"type":"Feature","id":"paris","properties":{"title":"Paris & <Île-de-France>","description":"Population 2,148,000","marker-color":"#dd3333","marker-size":"large","name":"Paris","population":"2148000"},"geometry":{"type":"Point","coordinates":[2.3522,48.8566]}}
    {"type":"Feature","properties":{"title":"Brussels","marker-color":"#3366cc","marker-size":"small"},"geometry":{"type":"Point","coordinates":[4.3517,50.8503,13.5]}}
    {"type":"Feature","properties":{"marker-size":"medium"},"geometry":{"type":"MultiPoint","coordinates":[[0,0],[1,1]]}}
    {"type":"Feature","properties":{"title":"Route","stroke":"#0000ff","stroke-opacity":0.5,"stroke-width":3},"geometry":{"type":"LineString","coordinates":[[2.35,48.86],[4.35,50.85]]}}
    {"type":"Feature","properties":{"stroke":"#008800","stroke-width":1.5,"kind":"two, lines"},"geometry":{"type":"MultiLineString","coordinates":[[[0,0],[1,0]],[[0,1],[1,1]]]}}
    {"type":"Feature","properties":{"title":"Park","stroke":"#006600","fill":"#33aa33","fill-opacity":0.25},"geometry":{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,4],[0,0]],[[1,1],[1,2],[2,2],[2,1],[1,1]]]}}
    {"type":"Feature","properties":{"fill":"#abcdef","note":"  spaced\\ttext  "},"geometry":{"type":"MultiPolygon","coordinates":[[[[10,10],[11,10],[11,11],[10,10]]],[[[12,12],[13,12],[13,13],[12,12]]]]}}
    {"type":"Feature","properties":{"kind":"mixed"},"geometry":{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[5,5]},{"type":"LineString","coordinates":[[5,5],[6,6,7]]}]}}
    {"type":"Feature","properties":{"title":"Nowhere"},"geometry":null}

    """

  @Test func kmlWrittenByGeopipeReadsBackTheSame() throws {
    try withTemporaryDirectory { dir in
      let normal = try geopipe(
        ["read", "--input-format", "geojsonseq"], stdin: Data(Self.written.utf8))
      #expect(normal.status == 0, "\(normal)")
      let write = try geopipe(["write", "x.kml"], stdin: normal.stdout, in: dir)
      #expect(write.status == 0, "\(write)")
      let read = try geopipe(["read", "x.kml"], in: dir)
      #expect(read.status == 0, "\(read)")
      #expect(read.outLines == normal.outLines)
      // Through gzip and standard input too.
      let zipped = try shell("gzip -c x.kml > x.kml.gz && \"$GEOPIPE\" read - < x.kml.gz", in: dir)
      #expect(zipped.outLines == normal.outLines, "\(zipped)")
    }
  }

  /// The KML module's format replaces the write-only built-in: one `kml` that reads and writes.
  @Test func oneKMLFormatReadsAndWrites() throws {
    let convert = try geopipe(["convert", "--help"])
    #expect(
      convert.out.contains(
        "--input-format <auto|geojson|geojsonseq|csv|kml|gpkg|shapefile|gpx|flatgeobuf|parquet>"))
    #expect(
      convert.out.contains(
        "--output-format <auto|geojson|geojsonseq|csv|kml|gpkg|shapefile|flatgeobuf|parquet>"))
  }

  @Test func gpxFromStandardInputAndAsPoints() throws {
    let ride = CLI.fixtures("gpx/ride.gpx")
    let lines = try geopipe(["read"], stdinFile: ride)
    #expect(lines.status == 0, "\(lines)")
    #expect(lines.outLines.count == 5)
    #expect(lines.outLines[3].contains(#""gpx_type":"track""#))
    let points = try geopipe(["read", "--gpx-points", ride.path])
    #expect(points.status == 0, "\(points)")
    #expect(points.outLines.count == 2 + 1 + 7)
    #expect(points.outLines.last?.contains(#""point_index":1"#) == true)
    let layer = try geopipe(["read", "--layer", "waypoints", ride.path])
    #expect(layer.outLines.count == 2, "\(layer)")
    let layers = try geopipe(["layers", ride.path])
    #expect(layers.status == 0, "\(layers)")
    #expect(layers.out.contains("GPX, 4 layers"))
    #expect(layers.out.contains("  waypoints: Point, 2 features"))
    #expect(layers.out.contains("  track_points: Point, 7 features"))
  }

  @Test func skippedOverlaysAreNotedOnStandardError() throws {
    let run = try geopipe(["read", CLI.fixtures("kml/hiking.kml").path])
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.count == 6)
    #expect(run.err.contains("skipped 1 GroundOverlay, 1 NetworkLink"), "\(run)")
  }

  @Test(arguments: ["xxe.kml", "entities.kml"])
  func entityTricksAreRefused(name: String) throws {
    let run = try geopipe(["read", CLI.fixtures("kml/\(name)").path])
    #expect(run.status == 65, "\(run)")
    #expect(run.err.contains("which is not expanded"), "\(run)")
    #expect(!run.out.contains("root:"))
    #expect(run.outLines.count == 1)
  }

  @Test func malformedXMLIsExit65WithLineAndColumn() throws {
    try withTemporaryDirectory { dir in
      try Data(
        "<?xml version=\"1.0\"?>\n<gpx><wpt lat=\"1\" lon=\"2\"><name>a</nam></wpt></gpx>\n".utf8
      )
      .write(to: dir.appendingPathComponent("bad.gpx"))
      let run = try geopipe(["read", "bad.gpx"], in: dir)
      #expect(run.status == 65, "\(run)")
      #expect(
        run.errLines.first
          == "bad.gpx:2:40: error: malformed XML: Opening and ending tag mismatch: name line 2 and nam",
        "\(run)")
      let convert = try geopipe(["convert", "bad.gpx", "out.geojson"], in: dir)
      #expect(convert.status == 65)
      #expect(
        !FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.geojson").path))
    }
  }

  @Test func kmlContentUnderAnotherNameIsNamed() throws {
    try withTemporaryDirectory { dir in
      try Data(contentsOf: CLI.fixtures("kml/hiking.kml")).write(
        to: dir.appendingPathComponent("a.geojson"))
      let run = try geopipe(["read", "a.geojson"], in: dir)
      #expect(run.status == 65)
      #expect(run.err.contains("but the file is KML; use --input-format kml"), "\(run)")
      #expect(try geopipe(["read", "--input-format", "kml", "a.geojson"], in: dir).status == 0)
    }
  }
}
