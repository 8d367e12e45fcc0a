import GeoPipeCore
import Testing

@testable import GeoPipeIO

@Suite struct CSVReaderTests {
  private func csv(_ text: String, _ configure: (inout ReadOptions) -> Void = { _ in }) throws
    -> [Feature]
  {
    var options = ReadOptions()
    options.format = .csv
    configure(&options)
    return try readAll(text, options: options, capacity: 16, chunk: 5)
  }

  @Test func readsQuotesNewlinesBOMAndSemicolons() throws {
    let text =
      "\u{FEFF}name;lat;lon;note\r\n\"Zürich; CH\";47,37;8,54;\"line one\nline \"\"two\"\"\"\r\n"
    var options = ReadOptions()
    options.format = nil
    let features = try openAll(Array(text.utf8), options: options)
    #expect(features.count == 1)
    #expect(features[0].geometry == .point(Position(x: 8.54, y: 47.37)))
    #expect(
      features[0].properties == [
        "name": .string("Zürich; CH"), "note": .string("line one\nline \"two\""),
      ])
  }

  @Test func emptyCoordinatesGiveNoGeometry() throws {
    let features = try csv("id,latitude,longitude\n1,,\n2, 10 , 20 \n")
    #expect(features[0].geometry == nil)
    #expect(features[1].geometry == .point(Position(x: 20, y: 10)))
    #expect(throws: GeoPipeError.self) { try csv("id,lat,lon\n1,,5\n") }
  }

  @Test func valuesStayStringsUnlessInferred() throws {
    let text = "zip,n,x1,flag,empty,big\n007,42,1.5,true,,123456789012345678901\n"
    let plain = try csv(text)
    #expect(plain[0].properties?["zip"] == .string("007"))
    #expect(plain[0].properties?["n"] == .string("42"))
    let inferred = try csv(text) { $0.csv.inferTypes = true }
    let p = try #require(inferred[0].properties)
    #expect(p["zip"] == .string("007"))
    #expect(p["n"] == .integer(42))
    #expect(p["x1"] == .double(1.5))
    #expect(p["flag"] == .bool(true))
    #expect(p["empty"] == .null)
    #expect(p["big"] == .bigInteger("123456789012345678901"))
  }

  @Test func readsWKTColumns() throws {
    let features = try csv(
      "id,wkt\n1,\"POLYGON Z ((0 0 1, 1 0 1, 1 1 1, 0 0 1))\"\n2,POINT EMPTY\n")
    guard case .polygon(let rings)? = features[0].geometry else {
      Issue.record("not a polygon")
      return
    }
    #expect(rings[0][1] == Position(x: 1, y: 0, z: 1))
    #expect(features[1].geometry == nil)
  }

  @Test func withoutCoordinateColumnsFeaturesHaveNoGeometry() throws {
    let features = try csv("city,country\nParis,France\n")
    #expect(features[0].geometry == nil)
    #expect(features[0].properties?.keys == ["city", "country"])
  }

  @Test(arguments: [
    ("id,lat,latitude,lon\n1,2,3,4\n", "ambiguous latitude columns"),
    ("a,b\n1,2,3\n", "test:2:5: error: row has 3 fields, the header has 2"),
    ("lat,lon\n\"1,2\n", "unterminated quoted field"),
    ("lat,lon\nabc,2\n", "test:2:1: error: latitude \"abc\" is not a number"),
    ("lat,lon\n95,2\n", "test:2:1: error: latitude 95 is out of range"),
    ("a,a\n1,2\n", "duplicate column name"),
    ("id,wkt\n1,POINT (1)\n", "invalid WKT"),
  ])
  func reportsBadInput(text: String, fragment: String) {
    do {
      _ = try csv(text)
      Issue.record("no error for \(text)")
    } catch {
      #expect("\(error)".contains(fragment), "\(error)")
    }
  }

  @Test func namedColumnsOverrideDetection() throws {
    let features = try csv("b,l,x\n10,20,30\n") {
      $0.csv.latitudeColumn = "b"
      $0.csv.longitudeColumn = "l"
    }
    #expect(features[0].geometry == .point(Position(x: 20, y: 10)))
    #expect(features[0].properties?.keys == ["x"])
  }
}
