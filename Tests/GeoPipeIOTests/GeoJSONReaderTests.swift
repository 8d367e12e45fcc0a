import GeoPipeCore
import Testing

@testable import GeoPipeIO

@Suite struct GeoJSONReaderTests {
  static let everyGeometry = """
    {"type":"FeatureCollection","name":"x","features":[
    {"type":"Feature","id":"a","properties":{"n":1},"geometry":{"type":"Point","coordinates":[1.5,2.25,3]}},
    {"type":"Feature","id":2,"properties":null,"geometry":{"type":"MultiPoint","coordinates":[[1,2],[3,4]]}},
    {"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]}},
    {"type":"Feature","properties":{},"geometry":{"type":"MultiLineString","coordinates":[[[1,2],[3,4]],[[5,6],[7,8]]]}},
    {"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]],[[0.1,0.1],[0.2,0.1],[0.2,0.2],[0.1,0.1]]]}},
    {"type":"Feature","properties":{},"geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]]]}},
    {"type":"Feature","properties":{},"geometry":{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[0,0]},{"type":"GeometryCollection","geometries":[]}]}},
    {"type":"Feature","properties":{"k":"v"},"geometry":null,"extra":{"a":[1,2]}},
    {"geometry":{"coordinates":[[1,2],[3,4]],"type":"LineString"},"properties":{},"type":"Feature"}
    ],"bbox":[0,0,7,8]}
    """

  @Test func readsEveryGeometryType() throws {
    let features = try readAll(Self.everyGeometry)
    #expect(features.count == 9)
    #expect(
      features.map { $0.geometry?.typeName ?? "null" } == [
        "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon",
        "GeometryCollection", "null", "LineString",
      ])
    #expect(features[0].id == .string("a"))
    #expect(features[1].id == .integer(2))
    #expect(features[1].properties == nil)
    #expect(features[0].geometry == .point(Position(x: 1.5, y: 2.25, z: 3)))
    #expect(
      features[7].foreignMembers["extra"] == .object(["a": .array([.integer(1), .integer(2)])]))
    #expect(features[8].geometry == features[2].geometry)
  }

  @Test func tinyWindowsGiveTheSameFeatures() throws {
    let whole = try readAll(Self.everyGeometry)
    for capacity in [16, 17, 31, 64] {
      for chunk in [1, 3, 7, 1000] {
        #expect(try readAll(Self.everyGeometry, capacity: capacity, chunk: chunk) == whole)
      }
    }
  }

  @Test func parallelReaderGivesTheSameFeaturesInOrder() throws {
    let whole = try readAll(Self.everyGeometry)
    for batch in [1, 50, 400, 1 << 20] {
      #expect(try readAllParallel(Self.everyGeometry, batchBytes: batch) == whole)
    }
    var lines = ""
    for k in 0..<500 {
      lines += "{\"type\":\"Feature\",\"properties\":{\"k\":\(k)},\"geometry\":null}\n"
    }
    let sequential = try readAll(lines)
    #expect(sequential.count == 500)
    #expect(try readAllParallel(lines, batchBytes: 300) == sequential)
  }

  @Test func numbersKeepTheirKind() throws {
    let text = """
      {"type":"Feature","properties":{"a":1,"b":1.0,"c":-0.0,"d":-0,"e":12345678901234567890123,
      "f":9223372036854775807,"g":-9223372036854775808,"h":9223372036854775808,"i":1e-7,
      "j":5e-324,"k":1.7976931348623157e308,"l":0.1},"geometry":null}
      """
    let p = try #require(try readAll(text).first?.properties)
    #expect(p["a"] == .integer(1))
    #expect(p["b"] == .double(1.0))
    #expect(
      p["c"].flatMap { if case .double(let d) = $0 { d.sign == .minus } else { nil } } == true)
    #expect(p["d"] == .bigInteger("-0"))
    #expect(p["e"] == .bigInteger("12345678901234567890123"))
    #expect(p["f"] == .integer(.max))
    #expect(p["g"] == .integer(.min))
    #expect(p["h"] == .bigInteger("9223372036854775808"))
    #expect(p["j"] == .double(.leastNonzeroMagnitude))
    let written = try encodeSeq(try readAll(text))
    for fragment in [
      "\"a\":1,", "\"b\":1.0,", "\"c\":-0.0,", "\"d\":-0,", "\"e\":12345678901234567890123,",
      "\"i\":1e-07,", "\"j\":5e-324,", "\"k\":1.7976931348623157e+308,", "\"l\":0.1}",
    ] {
      #expect(written.contains(fragment), "\(fragment) in \(written)")
    }
    #expect(try readAll(written) == readAll(text))
  }

  @Test func stringsDecodeEscapesAndSurrogates() throws {
    let text =
      #"{"type":"Feature","properties":{"s":"a\"b\\c\/d\n\t\u0001\u00e9\ud83c\udf0d\ud800x","é":"ü"},"geometry":null}"#
    let p = try #require(try readAll(text).first?.properties)
    #expect(p["s"] == .string("a\"b\\c/d\n\t\u{1}é🌍\u{FFFD}x"))
    #expect(p["é"] == .string("ü"))
    let again = try readAll(try encodeSeq(try readAll(text)))
    #expect(again.first?.properties == p)
  }

  @Test func sequencesAndRecordSeparators() throws {
    let lines =
      "{\"type\":\"Point\",\"coordinates\":[1,2]}\n\n{\"type\":\"Feature\",\"properties\":{},\"geometry\":null}\n"
    #expect(try readAll(lines).count == 2)
    let rs =
      "\u{1E}{\"type\":\"Point\",\"coordinates\":[1,2]}\n\u{1E}{\"type\":\"Point\",\"coordinates\":[3,4]}\n"
    #expect(try readAll(rs).count == 2)
    #expect(try readAllParallel(rs) == readAll(rs))
  }

  @Test(arguments: [
    (
      "{\"type\":\"Feature\" \"properties\":{}}",
      "test:1:19: error: expected ',' or '}' after an object member, found '\"'"
    ),
    (
      "{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1]}}",
      "test:1:76: error: a position needs at least two numbers, found 1 (feature 0)"
    ),
    ("{\"type\":\"Bogus\"}", "test:1:9: error: unknown GeoJSON type \"Bogus\" (feature 0)"),
    (
      "{\"properties\":{}}",
      "test:1:1: error: missing \"type\": expected a GeoJSON Feature, FeatureCollection or geometry (feature 0)"
    ),
    (
      "\n\n  {\"type\":\"Point\",\"coordinates\":[181,0]}",
      "test:3:34: error: longitude 181.0 is out of range [-180, 180] (use --crs if these are not WGS84 degrees) (feature 0)"
    ),
    (
      "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,1]]]}",
      "test:1:34: error: polygon ring is not closed: its first and last positions differ (feature 0)"
    ),
    (
      "{\"type\":\"LineString\",\"coordinates\":[[0,0]]}",
      "test:1:36: error: a LineString needs at least two positions, found 1 (feature 0)"
    ),
    (
      "{\"type\":\"Feature\",\"properties\":{\"a\":1,\"a\":2},\"geometry\":null}",
      "test:1:39: error: duplicate key \"a\" in an object (feature 0)"
    ),
    (
      "{\"type\":\"Feature\",\"properties\":{\"é\":\"ü\" x},\"geometry\":null}",
      "test:1:41: error: expected ',' or '}' after an object member, found 'x'"
    ),
    (
      "[1,2]",
      "test:1:1: error: the input is a JSON array; geopipe reads GeoJSON objects (a FeatureCollection, Features or geometries)"
    ),
    (
      "{\"type\":\"Feature\",\"properties\":{\"a\":01}}",
      "test:1:37: error: numbers cannot have leading zeros"
    ),
    (
      "{\"type\":\"Feature\",\"properties\":{\"a\":\"x",
      "test:1:37: error: unterminated string: add the closing '\"'"
    ),
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{},\"geometry\":null} x]}",
      "test:1:92: error: expected ',' or ']' after a feature, found 'x'"
    ),
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{},\"geometry\":null},{\"type\":\"Feature\",\"properties\":{}",
      "test:1:125: error: unexpected end of input"
    ),
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{},\"geometry\":null},{\"type\":\"Fea",
      "test:1:100: error: unterminated string: add the closing '\"'"
    ),
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"a\":[}},\"geometry\":null}]}",
      "test:1:78: error: expected a JSON value, found '}'"
    ),
  ])
  func reportsErrorsWithLocations(input: String, expected: String) {
    #expect(readError(input) == expected)
    #expect(readError(input, parallel: true) == expected)
  }

  @Test func deepNestingIsAnErrorNotACrash() {
    let deep =
      "{\"type\":\"Feature\",\"properties\":{\"a\":" + String(repeating: "[", count: 100_000)
    #expect(readError(deep)?.contains("nesting deeper than 512 levels") == true)
  }

  @Test(arguments: [
    #"{"a":1,"\u0061":2}"#, #"{"\u0061":1,"a":2}"#, #"{"b":0,"a":1,"c":2,"a":3}"#,
    #"{"é":1,"e\u0301":2}"#,
    "{\"\(String(repeating: "k", count: 60))\":1,\"x\":0,"
      + "\"\(String(repeating: "k", count: 60))\":2}",
  ])
  func duplicateKeysAreFoundHoweverTheyAreWritten(_ properties: String) {
    let text = "{\"type\":\"Feature\",\"properties\":\(properties),\"geometry\":null}"
    #expect(throws: GeoPipeError.self) { try readAll(text) }
  }

  @Test func distinctKeysAreNotDuplicates() throws {
    // Many short keys, so that several share a slot of the key cache.
    let keys = (0..<300).map { "k\($0)" }
    let properties = keys.map { "\"\($0)\":1" }.joined(separator: ",")
    let text = "{\"type\":\"Feature\",\"properties\":{\(properties)},\"geometry\":null}"
    for _ in 0..<2 {
      #expect(try readAll(text).first?.properties?.keys == keys)
    }
  }

  @Test func invalidUTF8IsAnError() throws {
    var bytes = Array("{\"type\":\"Feature\",\"properties\":{\"a\":\"".utf8)
    bytes += [0xC3, 0x28]
    bytes += Array("\"},\"geometry\":null}".utf8)
    #expect(throws: GeoPipeError.self) { try openAll(bytes) }
  }

  @Test func skipModeResumesAfterBadFeatures() throws {
    var options = ReadOptions()
    options.onError = .skip
    let text = """
      {"type":"Feature","properties":{"k":1},"geometry":null}
      {"type":"Feature","properties":{"k":2},"geometry":{"type":"Point","coordinates":[999,0]}}
      {"type":"Feature","properties":{"k":3} broken
      {"type":"Feature","properties":{"k":4},"geometry":null}
      """
    #expect(try readAll(text, options: options).count == 2)
    #expect(try readAllParallel(text, options: options).count == 2)
    let collection =
      "{\"type\":\"FeatureCollection\",\"features\":[" + """
        {"type":"Feature","properties":{"k":1},"geometry":null},
        {"type":"Feature","properties":{"k":2},"geometry":{"type":"Point","coordinates":[0]}},
        {"type":"Feature","properties":{"k":3},"geometry":null}]}
        """
    #expect(try readAll(collection, options: options).count == 2)
    #expect(try readAllParallel(collection, options: options).count == 2)
  }

  @Test func rangeChecksCanBeTurnedOff() throws {
    var options = ReadOptions()
    options.checkRanges = false
    let features = try readAll(
      "{\"type\":\"Point\",\"coordinates\":[500000,6000000]}", options: options)
    #expect(features.first?.geometry == .point(Position(x: 500000, y: 6_000_000)))
  }

  @Test func errorRecordFromUpstreamStopsTheReader() {
    let text =
      "{\"type\":\"Point\",\"coordinates\":[1,2]}\n!geopipe-error {\"status\":66,\"message\":\"x\"}\n"
    do {
      _ = try readAll(text)
      Issue.record("expected an error")
    } catch let error as GeoPipeError {
      #expect(error.status == .noInput)
    } catch {
      Issue.record("unexpected \(error)")
    }
  }
}

@Suite struct CompressedInputTests {
  @Test func truncatedGzipIsLocatedWhereTheTextBreaksOff() throws {
    // "{"type":"Point","coordinates":[1,2]}\n" three times, gzip-compressed, then cut short.
    let text = String(repeating: "{\"type\":\"Point\",\"coordinates\":[1,2]}\n", count: 3)
    let sink = MemorySink()
    let gzip = try GzipSink(sink)
    try Array(text.utf8).withUnsafeBytes { try gzip.write($0) }
    try gzip.commit()
    #expect(try openAll(sink.bytes).count == 3)
    let cut = Array(sink.bytes.prefix(sink.bytes.count - 6))
    #expect(throws: GeoPipeError.self) { try openAll(cut) }
    do {
      _ = try openAll(cut)
    } catch let error as GeoPipeError {
      #expect(error.status == .dataError)
      #expect(error.location != nil)
      #expect(error.message.contains("truncated"))
    }
  }

  @Test func numbersBeyondDoubleRangeKeepTheirText() throws {
    let text = #"{"type":"Feature","properties":{"a":1e400,"b":-2E+999},"geometry":null}"#
    let features = try readAll(text)
    #expect(features.first?.properties?["a"] == .bigNumber("1e400"))
    #expect(try encodeSeq(features).contains(#""a":1e400,"b":-2E+999"#))
  }
}
