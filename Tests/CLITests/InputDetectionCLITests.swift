import Foundation
import Testing

/// What `read` makes of a file: the extension decides the format, content that contradicts
/// it or that no reader reads is named, broken sequence records are reported where they are,
/// CSV coordinate columns are found by their usual names, and long runs of whitespace or very
/// wide objects cost neither memory nor quadratic time.
@Suite("Input detection")
struct InputDetectionCLITests {
  static let point =
    #"{"type":"Feature","properties":{"a":1},"geometry":{"type":"Point","coordinates":[1,2]}}"#

  // MARK: The extension decides

  @Test func proseInAGeoJSONFileIsAnError() throws {
    try withTemporaryDirectory { dir in
      try write("This is a line of prose.\n", to: dir.appendingPathComponent("notes.geojson"))
      let run = try geopipe(["read", "notes.geojson"], in: dir)
      #expect(run.status == 65, "\(run)")
      #expect(
        run.errLines.first
          == #"notes.geojson:1:1: error: expected GeoJSON (the file name ends in .geojson), "#
          + #"but the file starts with plain text: "This is a line of prose.""#)
      #expect(run.outLines.last?.hasPrefix("!geopipe-error ") == true)
      // --input-format still reads it as what the user says it is.
      let forced = try geopipe(["read", "--input-format", "csv", "notes.geojson"], in: dir)
      #expect(forced.status == 0, "\(forced)")
    }
  }

  @Test func compressedFilesAreJudgedByTheNameWithoutGz() throws {
    try withTemporaryDirectory { dir in
      try write("name,lat,lon\nA,1,2\n", to: dir.appendingPathComponent("p.geojson"))
      let gzip = try shell("gzip p.geojson", in: dir)
      #expect(gzip.status == 0)
      let run = try geopipe(["read", "p.geojson.gz"], in: dir)
      #expect(run.status == 65)
      #expect(run.err.contains("starts with CSV text"), "\(run.err)")
      #expect(run.err.contains("use --input-format csv"))
    }
  }

  @Test func geoJSONInACSVFileIsAnError() throws {
    try withTemporaryDirectory { dir in
      try write(Self.point + "\n", to: dir.appendingPathComponent("points.csv"))
      let run = try geopipe(["read", "points.csv"], in: dir)
      #expect(run.status == 65)
      #expect(
        run.errLines.first
          == "points.csv:1:1: error: expected CSV (the file name ends in .csv), but the file "
          + "holds JSON (it starts with '{'); use --input-format geojson to read it as GeoJSON")
      let forced = try geopipe(["read", "--input-format", "geojson", "points.csv"], in: dir)
      #expect(forced.status == 0)
      #expect(forced.outLines == [Self.point])
    }
  }

  @Test func emptyGeoJSONFileIsAnErrorButEmptySequencesAreNot() throws {
    try withTemporaryDirectory { dir in
      try write("", to: dir.appendingPathComponent("empty.geojson"))
      try write("", to: dir.appendingPathComponent("empty.geojsonl"))
      try write("\n \n", to: dir.appendingPathComponent("blank.geojson"))
      let empty = try geopipe(["read", "empty.geojson"], in: dir)
      #expect(empty.status == 65)
      #expect(empty.errLines.first == "empty.geojson:1:1: error: empty file, expected GeoJSON")
      let blank = try geopipe(["read", "blank.geojson"], in: dir)
      #expect(blank.status == 65)
      #expect(blank.err.contains("empty file, expected GeoJSON"))
      let sequence = try geopipe(["read", "empty.geojsonl"], in: dir)
      #expect(sequence.status == 0, "\(sequence)")
      #expect(sequence.stdout.isEmpty)
      let stdin = try geopipe(["read"], stdin: Data())
      #expect(stdin.status == 0)
      // convert of an empty .geojson leaves nothing behind.
      let convert = try geopipe(["convert", "empty.geojson", "out.geojson"], in: dir)
      #expect(convert.status == 65)
      #expect(
        !FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.geojson").path))
    }
  }

  // MARK: Formats geopipe does not read

  static let foreign: [(name: String, bytes: [UInt8], says: String)] = [
    (
      "map.osm",
      Array(
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\">\n"
          + "<node id=\"1\" lat=\"1\" lon=\"2\"/>\n</osm>\n").utf8),
      "an OpenStreetMap XML file"
    ),
    (
      "roads.gml",
      Array("<?xml version=\"1.0\"?>\n<gml:FeatureCollection></gml:FeatureCollection>\n".utf8),
      "a GML document"
    ),
    ("data.zip", [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00], "a zip archive"),
    ("tiles.pmtiles", Array("PMTiles".utf8) + [3] + Array(repeating: 0, count: 120), "PMTiles"),
    (
      "tiles.mbtiles",
      Array("SQLite format 3\0".utf8) + Array(repeating: 0, count: 52) + Array("MPBX".utf8)
        + Array(repeating: 0, count: 28), "MBTiles"
    ),
  ]

  @Test(arguments: foreign)
  func foreignFormatsAreRefusedByName(_ name: String, bytes: [UInt8], says: String) throws {
    try withTemporaryDirectory { dir in
      try Data(bytes).write(to: dir.appendingPathComponent(name))
      let run = try geopipe(["read", name], in: dir)
      #expect(run.status == 65, "\(run)")
      let first = try #require(run.errLines.first)
      #expect(first.hasPrefix("\(name):1:1: error: the input is "), "\(first)")
      #expect(first.contains(says), "\(first)")
      #expect(!first.contains("--input-format"), "no other reader reads it: \(first)")
      // Never rows of a CSV.
      #expect(run.outLines.count == 1)
      #expect(run.outLines.first?.hasPrefix("!geopipe-error ") == true)
      let stdin = try geopipe(["read"], stdin: Data(bytes))
      #expect(stdin.status == 65)
      #expect(stdin.err.contains(says))
    }
  }

  @Test func adviceNamesTheFile() throws {
    try withTemporaryDirectory { dir in
      try Data(Self.foreign[0].bytes).write(to: dir.appendingPathComponent("map.osm"))
      let run = try geopipe(["read", "map.osm"], in: dir)
      #expect(
        run.errLines.first
          == "map.osm:1:1: error: the input is an OpenStreetMap XML file, which geopipe does not "
          + "read (it reads GeoJSON, GeoJSONSeq, CSV, KML, GeoPackage, Shapefile, GPX, FlatGeobuf and GeoParquet); convert it first, e.g. with "
          + "ogr2ogr -f GeoJSONSeq out.geojsonl map.osm")
    }
  }

  // MARK: Sequence records

  @Test func recordThatDoesNotCloseIsReportedOnItsLine() throws {
    try withTemporaryDirectory { dir in
      let unclosed = String(Self.point.dropLast())
      try write(
        [Self.point, unclosed, Self.point].joined(separator: "\n") + "\n",
        to: dir.appendingPathComponent("broken.geojsonl"))
      let read = try geopipe(["read", "broken.geojsonl"], in: dir)
      #expect(read.status == 65)
      let column = unclosed.count + 1
      #expect(
        read.errLines.first
          == "broken.geojsonl:2:\(column): error: the record ends before its object closes")
      for threads in ["1", "2"] {
        let run = try geopipe(
          ["read", "broken.geojsonl"], in: dir, environment: ["GEOPIPE_THREADS": threads])
        #expect(run.errLines.first == read.errLines.first, "GEOPIPE_THREADS=\(threads)")
      }
      // validate resumes at the next line: the third record is read and counted.
      let validate = try geopipe(["validate", "broken.geojsonl"], in: dir)
      #expect(validate.status == 1)
      #expect(
        validate.outLines == [
          "broken.geojsonl:2:\(column): error[GP001]: the record ends before its object closes",
          "validate: 1 file, 3 features: 1 error, 0 warnings",
        ])
      // Many records after it: neither reader reads on to find where its brackets match.
      try write(
        ([Self.point, unclosed] + Array(repeating: Self.point, count: 2000)).joined(
          separator: "\n") + "\n", to: dir.appendingPathComponent("long.geojsonl"))
      for threads in ["1", "2"] {
        let run = try geopipe(
          ["read", "--max-record-size", "4KiB", "long.geojsonl"], in: dir,
          environment: ["GEOPIPE_THREADS": threads])
        #expect(
          run.errLines.first
            == "long.geojsonl:2:\(column): error: the record ends before its object closes",
          "GEOPIPE_THREADS=\(threads)")
      }
      let skip = try geopipe(["read", "--on-error", "skip", "broken.geojsonl"], in: dir)
      #expect(skip.status == 0)
      #expect(skip.outLines.count == 2)
    }
  }

  // MARK: CSV coordinates

  @Test(arguments: [
    ("lat_deg", "lon_deg"), ("latitude_deg", "longitude_deg"), ("y_coord", "x_coord"),
    ("point_y", "point_x"), ("Latitude", "Longitude"), ("lat", "lng"),
    ("decimalLatitude", "decimalLongitude"),
  ])
  func csvCoordinateSpellingsAreFound(_ lat: String, _ lon: String) throws {
    let csv = "name,\(lat),\(lon)\nA,48.85,2.35\n"
    let run = try geopipe(["read", "-"], stdin: Data(csv.utf8))
    #expect(run.status == 0, "\(run)")
    #expect(
      run.out
        == #"{"type":"Feature","properties":{"name":"A"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}"#
        + "\n")
    #expect(run.err.isEmpty)
  }

  @Test func columnsThatLookLikeCoordinatesAreNamed() throws {
    let csv = "name,pickup_latitude,pickup_longitude\nA,48.85,2.35\n"
    let run = try geopipe(["read", "-"], stdin: Data(csv.utf8))
    #expect(run.status == 0)
    #expect(run.out.contains(#""geometry":null"#))
    #expect(
      run.errLines.first
        == "<stdin>:1:1: warning: found no coordinate columns, so the features have no geometry "
        + #"(columns considered: "pickup_latitude", "pickup_longitude"); name the coordinate "#
        + "columns with --lat and --lon")
    let named = try geopipe(
      ["read", "--lat", "pickup_latitude", "--lon", "pickup_longitude", "-"], stdin: Data(csv.utf8))
    #expect(named.out.contains("[2.35,48.85]"))
    #expect(named.err.isEmpty)
  }

  @Test func swappedCoordinatesAreSuspected() throws {
    let csv = "name,lat,lon\nParis,2.35,48.85\nOslo,10.75,59.91\nTokyo,139.69,35.69\n"
    let run = try geopipe(["read", "-"], stdin: Data(csv.utf8))
    #expect(run.status == 65)
    #expect(
      run.errLines.first
        == #"<stdin>:4:7: error: latitude 139.69 is out of range [-90, 90] ("lon" holds 35.69): "#
        + "are latitude and longitude swapped?")
  }

  // MARK: Memory and time

  @Test func recordLongerThanMaxRecordSizeIsAnErrorAtItsStart() throws {
    try withTemporaryDirectory { dir in
      let long =
        #"{"type":"Feature","properties":{"text":""# + String(repeating: "x", count: 3000)
        + #""},"geometry":null}"#
      try write(
        [Self.point, Self.point, long].joined(separator: "\n") + "\n",
        to: dir.appendingPathComponent("long.geojsonl"))
      let run = try geopipe(["read", "--max-record-size", "2KiB", "long.geojsonl"], in: dir)
      #expect(run.status == 65)
      #expect(
        run.errLines.first
          == "long.geojsonl:3:1: error: a record longer than 2 KiB starts here (the "
          + "--max-record-size limit); raise the limit if records are meant to be this large")
      let enough = try geopipe(["read", "--max-record-size", "4KiB", "long.geojsonl"], in: dir)
      #expect(enough.status == 0, "\(enough)")
      #expect(enough.outLines.count == 3)
      // Every command reading features takes it.
      let info = try geopipe(
        ["info", "--max-record-size", "2048"], stdin: Data((long + "\n").utf8))
      #expect(info.status == 65)
      let bad = try geopipe(["read", "--max-record-size", "lots", "long.geojsonl"], in: dir)
      #expect(bad.status == 64)
      #expect(bad.err.contains("--max-record-size: 'lots' is not a size"))
    }
  }

  @Test func checkRefusesABadMaxRecordSize() throws {
    try withTemporaryDirectory { dir in
      try write(
        "stages:\n  - read: {path: in.csv, max-record-size: lots}\n  - write: {path: out.csv}\n",
        to: dir.appendingPathComponent("p.yaml"))
      let run = try geopipe(["check", "p.yaml"], in: dir)
      #expect(run.status == 78)
      #expect(
        run.errLines.first
          == "p.yaml:2:43: error: 'max-record-size' of 'read': 'lots' is not a size (a whole "
          + "number of bytes, or with KiB, MiB or GiB, e.g. 64MiB)")
    }
  }

  @Test func csvRowLongerThanMaxRecordSizeIsAnError() throws {
    let csv = "name,lat,lon\nA,1,2\n\"" + String(repeating: "y", count: 5000) + "\",1,2\n"
    let run = try geopipe(["read", "--max-record-size", "1KiB", "-"], stdin: Data(csv.utf8))
    #expect(run.status == 65)
    #expect(run.errLines.first?.hasPrefix("<stdin>:3:1: error: a record longer than 1 KiB") == true)
  }

  @Test func binaryZerosAreRefusedAtOnce() throws {
    let zeros = Data(count: 1 << 20)
    let forced = try geopipe(["read", "--input-format", "geojson", "-"], stdin: zeros)
    #expect(forced.status == 65)
    #expect(
      forced.errLines.first == "<stdin>:1:1: error: expected a GeoJSON object, found a NUL byte")
    let csv = try geopipe(
      ["read", "--input-format", "csv", "--max-record-size", "64KiB", "-"], stdin: zeros)
    #expect(csv.status == 65)
    #expect(csv.err.contains("a record longer than 64 KiB"))
  }

  /// A gzipped FeatureCollection with `megabytes` MiB of spaces around a comma, and a gzipped
  /// sequence with as many blank lines between its records.
  private func writeWhitespaceInputs(in dir: URL, megabytes: Int) throws {
    let script = """
      import gzip, sys
      n = \(megabytes)
      point = sys.argv[1].encode()
      block = b" " * (1 << 20)
      with gzip.open("spaces.geojson.gz", "wb", compresslevel=1) as f:
          f.write(b'{"type":"FeatureCollection","features":[' + point)
          for _ in range(n // 2): f.write(block)
          f.write(b",")
          for _ in range(n // 2): f.write(block)
          f.write(point + b"]}")
      lines = b"\\n" * (1 << 20)
      with gzip.open("blank.geojsonl.gz", "wb", compresslevel=1) as f:
          f.write(point + b"\\n")
          for _ in range(n): f.write(lines)
          f.write(point + b"\\n")
      """
    try write(script, to: dir.appendingPathComponent("make.py"))
    let made = try shell("python3 make.py \(shellQuoted(Self.point))", in: dir)
    #expect(made.status == 0, "\(made)")
  }

  @Test func whitespaceBetweenRecordsDoesNotCountTowardsTheLimit() throws {
    try withTemporaryDirectory { dir in
      try writeWhitespaceInputs(in: dir, megabytes: 8)
      for name in ["spaces.geojson.gz", "blank.geojsonl.gz"] {
        for threads in ["1", "2"] {
          let run = try geopipe(
            ["read", "--max-record-size", "64KiB", name], in: dir,
            environment: ["GEOPIPE_THREADS": threads])
          #expect(run.status == 0, "\(name), GEOPIPE_THREADS=\(threads): \(run)")
          #expect(run.outLines == [Self.point, Self.point])
        }
      }
    }
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
  func whitespaceBetweenRecordsKeepsMemoryFlat() throws {
    try withTemporaryDirectory { dir in
      // 128 MiB of whitespace: a window that kept it would pass 128 MiB of memory.
      try writeWhitespaceInputs(in: dir, megabytes: 128)
      for name in ["spaces.geojson.gz", "blank.geojsonl.gz"] {
        let run = try shell(
          "/usr/bin/time -f '%M' \"$GEOPIPE\" read \(name) 2>&1 >/dev/null | tail -n 1", in: dir)
        let kilobytes = try #require(Int(run.out.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kilobytes < 100_000, "\(name): peak RSS \(kilobytes) KB")
      }
    }
  }

  @Test func wideCSVConvertsToGeoJSONAndBack() throws {
    try withTemporaryDirectory { dir in
      // 100,000 columns: a quadratic duplicate-key check took tens of seconds to read them.
      let count = 100_000
      let header = "lat,lon," + (0..<count).map { "c\($0)" }.joined(separator: ",")
      let row = "1,2," + (0..<count).map { "\($0)" }.joined(separator: ",")
      try write(header + "\n" + row + "\n", to: dir.appendingPathComponent("wide.csv"))
      let start = Date()
      let convert = try geopipe(["convert", "wide.csv", "wide.geojson"], in: dir)
      #expect(convert.status == 0, "\(convert)")
      let back = try geopipe(["read", "wide.geojson"], in: dir)
      #expect(back.status == 0, "\(back)")
      let elapsed = Date().timeIntervalSince(start)
      #expect(elapsed < 30, "took \(elapsed) s")
      let feature = try JSON.parse(back.out.trimmingCharacters(in: .newlines))
      guard case .object(let members)? = feature["properties"] else {
        Issue.record("no properties: \(back.out.prefix(200))")
        return
      }
      #expect(members.count == count)
      #expect(members.last == JSON.Member(key: "c99999", value: .string("99999")))
    }
  }
}
