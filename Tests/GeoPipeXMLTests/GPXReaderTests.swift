import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeXML
import Testing

/// GPX: waypoints, routes and tracks in file order, their properties, times and elevations,
/// --gpx-points, layers, and GDAL's GPX driver as the oracle for coordinates and names.
@Suite struct GPXReaderTests {
  static let ride = fixture("gpx/ride.gpx")

  private func rideFeatures(pointsOnly: Bool = false, layer: String? = nil) throws -> [Feature] {
    var options = ReadOptions()
    options.layer = layer
    return try readGPX(Array(Data(contentsOf: Self.ride)), options: options, pointsOnly: pointsOnly)
  }

  @Test func readsWaypointsRoutesAndTracksInFileOrder() throws {
    let features = try rideFeatures()
    #expect(
      features.map { $0[property: "gpx_type"]?.stringValue } == [
        "waypoint", "waypoint", "route", "track", "track",
      ])
    #expect(
      features.map { $0.geometry?.typeName } == [
        "Point", "Point", "LineString", "MultiLineString", "MultiLineString",
      ])
  }

  @Test func waypointChildrenBecomeTypedProperties() throws {
    let start = try #require(try rideFeatures().first)
    #expect(start.geometry == .point(Position(x: 6.6323, y: 46.5191, z: 372.5)))
    let expected: JSONObject = [
      "gpx_type": .string("waypoint"), "ele": .double(372.5),
      "time": .string("2024-05-04T08:00:00Z"), "name": .string("Start – Ouchy"),
      "cmt": .string("café & bakery"), "desc": .string("Meet at the fountain"),
      "link": .string("https://example.org/ouchy"), "link_text": .string("Ouchy"),
      "sym": .string("Flag, Blue"), "type": .string("start"), "sat": .integer(9),
      "hdop": .double(0.8),
    ]
    #expect(start.properties == expected)
  }

  @Test func tracksKeepSegmentsTimesAndElevations() throws {
    let track = try rideFeatures()[3]
    // One point has no ele: the coordinates are 2D and the elevations say null there.
    #expect(track.geometry?.hasZ == false)
    #expect(
      track[property: "elevations"]
        == .array([
          .array([.double(372.5), .double(375), .null]), .array([.double(390.25), .double(383)]),
        ]))
    #expect(
      track[property: "times"]
        == .array([
          .array([
            .string("2024-05-04T08:00:00Z"), .string("2024-05-04T08:05:00Z"),
            .string("2024-05-04T08:10:00Z"),
          ]), .array([.null, .string("2024-05-04T08:40:00Z")]),
        ]))
    // Extension elements that hold only text become properties by local name.
    #expect(track[property: "DisplayColor"] == .string("Red"))
    let evening = try rideFeatures()[4]
    #expect(evening.geometry?.hasZ == true)
    #expect(evening[property: "times"] == nil)
  }

  @Test func gpxPointsGivesOnePointPerTrackPoint() throws {
    let points = try rideFeatures(pointsOnly: true).filter {
      $0[property: "gpx_type"] == .string("track_point")
    }
    #expect(points.count == 7)
    let first = try #require(points.first)
    #expect(first[property: "track_name"] == .string("Morning ride"))
    #expect(first[property: "hr"] == .string("121"))
    #expect(
      points.map {
        [$0[property: "track_index"], $0[property: "segment_index"], $0[property: "point_index"]]
      }
        == [
          [.integer(0), .integer(0), .integer(0)], [.integer(0), .integer(0), .integer(1)],
          [.integer(0), .integer(0), .integer(2)], [.integer(0), .integer(1), .integer(0)],
          [.integer(0), .integer(1), .integer(1)], [.integer(1), .integer(0), .integer(0)],
          [.integer(1), .integer(0), .integer(1)],
        ])
  }

  @Test func layerPicksOneKind() throws {
    #expect(try rideFeatures(layer: "routes").count == 1)
    #expect(try rideFeatures(layer: "track_points").count == 7)
    #expect(throws: GeoPipeError.self) { try rideFeatures(layer: "lakes") }
  }

  @Test func readsTheSameThroughTinyReads() throws {
    let bytes = Array(try Data(contentsOf: Self.ride))
    #expect(try readGPX(bytes, chunk: 7) == readGPX(bytes))
  }

  @Test(arguments: [
    ("waypoints", false), ("routes", false), ("tracks", false), ("track_points", true),
  ])
  func coordinatesAndNamesMatchGDAL(layer: String, pointsOnly: Bool) throws {
    guard let gdal = try gdalFeatures(Self.ride.path, layers: [layer]) else { return }
    let ours = try rideFeatures(pointsOnly: pointsOnly, layer: layer)
    #expect(ours.count == gdal.count)
    for (feature, expected) in zip(ours, gdal) {
      #expect(close(nested(feature.geometry, z: false), expected.coordinates), "\(feature)")
      if layer != "track_points" {
        #expect(feature[property: "name"]?.stringValue == expected.name)
      }
    }
  }

  @Test func badInputIsAnErrorWithItsPlace() throws {
    let cases: [(String, String)] = [
      ("<gpx><wpt lat=\"1\"></wpt></gpx>", "test.gpx:1:18: error: a point has no lon attribute"),
      (
        "<gpx>\n<wpt lat=\"95\" lon=\"1\"/></gpx>",
        "test.gpx:2:22: error: latitude 95.0 is out of range"
      ),
      ("<gpx><wpt lat=\"1\" lon=\"1\"><ele>high</ele></wpt></gpx>", "error: <ele> is not a number"),
      ("<gpx>\n<wpt lat=\"1\" lon=\"1\">\n</gpx>", "test.gpx:3:7: error: malformed XML"),
      ("<kml/>", "error: the root element is <kml>, not <gpx>"),
    ]
    for (text, message) in cases {
      do {
        _ = try readGPX(Array(text.utf8))
        Issue.record("no error for \(text)")
      } catch let error as GeoPipeError {
        #expect(error.status == .dataError)
        #expect("\(error)".contains(message), "\(error)")
      }
    }
  }
}

/// Trimming keeps characters beyond ASCII whole.
@Test func trimmingKeepsUnicodeWhole() throws {
  let gpx = "<gpx><wpt lat=\"1\" lon=\"2\"><time>\n  café é </time></wpt></gpx>"
  #expect(try readGPX(Array(gpx.utf8)).first?[property: "time"] == .string("café é"))
}
