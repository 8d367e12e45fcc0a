import GeoPipeCore
import Testing

@testable import GeoPipeIO

/// How an input's format is decided (extension, then bytes), what foreign formats are called,
/// which CSV column names are coordinates, and where a broken sequence record is reported.
@Suite struct InputDetectionTests {
  @Test(arguments: [
    ("a.geojson", TextFormat.geojson), ("dir.v2/A.JSON", .geojson), ("a.geojson.gz", .geojson),
    ("a.geojsonl", .geojsonseq), ("a.geojsons", .geojsonseq), ("a.ndjson.gz", .geojsonseq),
    ("a.jsonl", .geojsonseq), ("a.csv", .csv), ("a.tsv", .csv), ("a.txt.gz", .csv),
  ])
  func knownExtensionsNameTheirFormat(_ path: String, format: TextFormat) {
    #expect(FeatureFormats.reading(path)?.text == format)
  }

  @Test(arguments: ["-", "a.kml", "a", "a.gz", ".geojson", "dir.csv/a", "/dev/stdin"])
  func otherNamesNameNoFormat(_ path: String) {
    #expect(FeatureFormats.reading(path)?.text == nil)
  }

  /// The format detected, or the error's text.
  private func detect(_ text: [UInt8], expected: TextFormat?) -> String {
    do {
      let name =
        switch expected {
        case .geojson: "x.geojson"
        case .geojsonseq: "x.geojsonl"
        case .csv: "x.csv"
        case nil: "x"
        }
      return try FeatureReaders.detect(
        text, name: name, location: SourceLocation(file: "x", line: 1, column: 1),
        expected: expected
      ).rawValue
    } catch {
      return "\(error)"
    }
  }

  @Test func contentMustAgreeWithTheExtension() {
    let prose = Array("This is a line of prose.\n".utf8)
    #expect(detect(prose, expected: nil) == "csv")
    let message = detect(prose, expected: .geojson)
    #expect(
      message
        == "x:1:1: error: expected GeoJSON (the file name ends in .geojson), but the file starts "
        + "with plain text: \"This is a line of prose.\"")
    let csv = detect(Array("a,b\n1,2\n".utf8), expected: .geojsonseq)
    #expect(csv.contains("CSV text: \"a,b\"") && csv.contains("--input-format csv"))
    let json = detect(Array("{\"type\":1}".utf8), expected: .csv)
    #expect(json.contains("holds JSON") && json.contains("--input-format geojson"))
    #expect(detect(Array("{\"type\":1}".utf8), expected: .geojsonseq) == "geojsonseq")
    #expect(detect(Array("[id],lat\n".utf8), expected: .csv) == "csv")
  }

  @Test func emptyInputIsAnErrorOnlyForGeoJSONFiles() {
    for empty in [[], Array("  \n\n".utf8)] {
      #expect(detect(empty, expected: .geojson) == "x:1:1: error: empty file, expected GeoJSON")
      #expect(detect(empty, expected: .geojsonseq) == "geojsonseq")
      #expect(detect(empty, expected: .csv) == "csv")
      #expect(detect(empty, expected: nil) == "geojson")
    }
  }

  static let foreign: [(bytes: [UInt8], says: String)] = [
    (Array("<?xml version=\"1.0\"?>\n<gml:FeatureCollection>".utf8), "GML"),
    (Array("<osm version=\"0.6\">".utf8), "OpenStreetMap"),
    (Array("<?xml version=\"1.0\"?><root/>".utf8), "an XML document"),
    (Array("PK\u{3}\u{4}rest".utf8), "zip archive"),
    (
      Array("SQLite format 3\0".utf8) + Array(repeating: 0, count: 52) + Array("GPKG".utf8),
      "GeoPackage"
    ),
    (
      Array("SQLite format 3\0".utf8) + Array(repeating: 0, count: 52) + Array("MPBX".utf8),
      "MBTiles"
    ),
    (Array("SQLite format 3\0".utf8) + Array(repeating: 0, count: 60), "SQLite database"),
    (Array("PMTiles".utf8) + [3, 0, 0], "PMTiles"),
    ([0x00, 0x00, 0x27, 0x0A, 0, 0, 0, 0], "shapefile"),
    (Array("PAR1".utf8) + [0x15, 0x04], "Parquet"),
    ([0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62, 0x00], "FlatGeobuf"),
    ([0xFF, 0xFE, 0x6E, 0x00], "UTF-16"),
    ([0x61, 0x2C, 0x62, 0x0A, 0xC3, 0x28, 0x0A], "binary data"),
  ]

  @Test(arguments: foreign)
  func foreignFormatsAreNamedWithoutSuggestingAnotherReader(_ bytes: [UInt8], says: String) {
    for expected in [nil, TextFormat.geojson, .csv] {
      let message = detect(bytes, expected: expected)
      #expect(message.contains(says), "\(message)")
      #expect(message.contains("which geopipe does not read"))
      #expect(!message.contains("--input-format"))
    }
  }

  @Test func invalidUTF8InsideJSONIsLeftToTheReader() {
    #expect(detect([0x7B, 0x22, 0xE9, 0x22], expected: .geojson) == "geojson")
  }

  // MARK: CSV coordinate names

  @Test(arguments: [
    "lat", "Latitude", "LAT", "lat_deg", "latitude_deg", "Latitude (deg)", "lat_dd", "LAT_WGS84",
    "y_coord", "point_y", "pointY", "YCoord", "decimalLatitude", "latdeg", "geo_lat", "y",
  ])
  func latitudeSpellings(_ name: String) {
    #expect(CoordinateName.rank(name, as: .latitude) != nil)
    #expect(CoordinateName.rank(name, as: .longitude) == nil)
  }

  @Test(arguments: [
    "lon", "long", "lng", "Longitude", "lon_deg", "longitude_deg", "x_coord", "point_x",
    "XCoord", "decimalLongitude", "lng_wgs84", "x",
  ])
  func longitudeSpellings(_ name: String) {
    #expect(CoordinateName.rank(name, as: .longitude) != nil)
    #expect(CoordinateName.rank(name, as: .latitude) == nil)
  }

  @Test(arguments: ["pickup_lat", "lat_e7", "lat_lon", "latitude2", "population", "year", "flat"])
  func notCoordinates(_ name: String) {
    #expect(CoordinateName.rank(name, as: .latitude) == nil)
    #expect(CoordinateName.rank(name, as: .longitude) == nil)
  }

  @Test func plainNamesRankAboveQualifiedAndCartesianOnes() throws {
    #expect(CoordinateName.rank("lat", as: .latitude) == 0)
    #expect(CoordinateName.rank("lat_deg", as: .latitude) == 1)
    #expect(CoordinateName.rank("y", as: .latitude) == 2)
    #expect(CoordinateName.rank("point_y", as: .latitude) == 3)
    var options = ReadOptions()
    options.format = .csv
    let features = try readAll("x,y,lat_deg,lon_deg\n500,600,1,2\n", options: options)
    #expect(features.first?.geometry == .point(Position(x: 2, y: 1)))
  }

  @Test func missedCoordinateColumnsAreNamedInAWarning() throws {
    let warnings = Warnings()
    var options = ReadOptions()
    options.format = .csv
    options.diagnostics = { warnings.add($0.description) }
    let features = try readAll("name,pickup_latitude,pickup_longitude\nA,1,2\n", options: options)
    #expect(features.first?.geometry == nil)
    #expect(
      warnings.all == [
        "test:1:1: warning: found no coordinate columns, so the features have no geometry "
          + #"(columns considered: "pickup_latitude", "pickup_longitude"); name the coordinate "#
          + "columns with --lat and --lon"
      ])
    _ = try readAll("name,lat,lng_e7\nA,1,2\n", options: options)
    #expect(
      warnings.all.last?.contains(#"found the latitude column "lat" but no longitude"#) == true)
    _ = try readAll("name,population\nA,1\n", options: options)
    #expect(warnings.all.count == 2)
  }

  @Test func swappedCoordinatesAreSuspected() {
    var options = ReadOptions()
    options.format = .csv
    #expect(
      readError("name,lat,lon\nA,120.5,45\n", options: options)
        == #"test:2:3: error: latitude 120.5 is out of range [-90, 90] ("lon" holds 45): are "#
        + "latitude and longitude swapped?")
    // Not when the longitude would not fit as a latitude either.
    #expect(
      readError("name,lat,lon\nA,120.5,95\n", options: options)?.contains("swapped") == false)
  }

  // MARK: Sequence records

  static let unclosed =
    #"{"type":"Feature","properties":{},"geometry":null}"# + "\n"
    + #"{"type":"Feature","properties":{"a":1},"geometry":{"type":"Point","coordinates":[1,2]}"#
    + "\n\n" + #"{"type":"Feature","properties":{},"geometry":null}"# + "\n"

  @Test(arguments: [false, true])
  func unclosedRecordIsReportedOnItsOwnLine(parallel: Bool) {
    #expect(
      readError(Self.unclosed, parallel: parallel)
        == "test:2:87: error: the record ends before its object closes")
    // Also when it is the last one.
    let last =
      String(Self.unclosed.prefix(while: { $0 != "\n" })) + "\n"
      + #"{"type":"Feature","properties":{"# + "\n\n"
    #expect(
      readError(last, parallel: parallel)
        == "test:2:33: error: the record ends before its object closes")
  }

  @Test func skippingResumesAtTheNextLine() throws {
    var options = ReadOptions()
    options.onError = .skip
    let features = try readAll(Self.unclosed, options: options)
    #expect(features.count == 2)
  }

  @Test func errorsInsideAPrettyPrintedRecordAreNotMoved() {
    let text = "{\"type\": \"Feature\",\n  \"properties\": {}\n  \"geometry\": null}\n"
    #expect(readError(text)?.hasPrefix("test:3:3: error: expected ',' or '}'") == true)
  }
}

/// Collects diagnostics from a reader.
private final class Warnings: @unchecked Sendable {
  private(set) var all: [String] = []
  func add(_ text: String) { all.append(text) }
}
