import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeXML
import Testing

/// KML: placemarks through folders, shared and inline styles back into simplestyle properties,
/// ExtendedData, geometry kinds, skipped overlays, GDAL's reading as the oracle, and documents
/// that try entity tricks.
@Suite struct KMLReaderTests {
  static let hiking = fixture("kml/hiking.kml")

  private func hikingFeatures(
    diagnostics: @escaping @Sendable (ReadDiagnostic) -> Void = { _ in }
  ) throws -> [Feature] {
    var options = ReadOptions()
    options.diagnostics = diagnostics
    return try readKML(Array(Data(contentsOf: Self.hiking)), options: options)
  }

  @Test func readsPlacemarksWithFoldersStylesAndData() throws {
    let features = try hikingFeatures()
    #expect(features.count == 6)
    let hut: JSONObject = [
      "title": .string("Cabane du Mont Fort"),
      "description": .string("<p>Open <b>June–September</b></p>"),
      "marker-color": .string("#ff0000"), "marker-size": .string("large"),
      "beds": .string("62"), "folder": .string("Alps/Huts"),
    ]
    #expect(features[0].properties == hut)
    #expect(features[0].id == .string("h1"))
    #expect(features[0].geometry == .point(Position(x: 7.3172, y: 46.0936, z: 2457)))
    // The inline style's colour over the StyleMap's normal style, whose scale stays.
    #expect(features[1][property: "marker-color"] == .string("#00ff00"))
    #expect(features[1][property: "marker-size"] == .string("large"))
    #expect(features[1].geometry == .point(Position(x: 6.8652, y: 45.8326)))
    let trail: JSONObject = [
      "title": .string("Tour du Mont Blanc (stage 1)"), "stroke": .string("#f07814"),
      "stroke-opacity": .double(0.75), "stroke-width": .integer(4), "begin": .string("2023-07-01"),
      "end": .string("2023-07-02"), "folder": .string("Alps"),
    ]
    #expect(features[2].properties == trail)
    let reserve: JSONObject = [
      "title": .string("Reserve"), "stroke": .string("#000000"), "fill": .string("#00ff00"),
      "fill-opacity": .double(0.3), "protected": .string("yes"), "since": .string("1964"),
      "folder": .string("Areas"),
    ]
    #expect(features[3].properties == reserve)
    if case .polygon(let rings) = features[3].geometry {
      #expect(rings.count == 2)
    } else {
      Issue.record("not a polygon: \(String(describing: features[3].geometry))")
    }
    #expect(features[4].geometry?.typeName == "MultiPoint")
    #expect(features[5].geometry?.typeName == "LineString")
    #expect(features[5][property: "folder"] == nil)
    #expect(
      features[5][property: "times"]
        == .array([.string("2023-07-01T08:00:00Z"), .string("2023-07-01T08:10:00Z")]))
  }

  @Test func skippedOverlaysAndLinksAreCountedInANote() throws {
    let notes = Notes()
    _ = try hikingFeatures { notes.add($0) }
    #expect(
      notes.all.map(\.description) == [
        "note: test.kml: skipped 1 GroundOverlay, 1 NetworkLink (geopipe reads Placemarks)"
      ])
  }

  @Test func coordinatesAndNamesMatchGDAL() throws {
    guard let gdal = try gdalFeatures(Self.hiking.path) else { return }
    let ours = try hikingFeatures()
    // GDAL makes a layer of each folder: compare by name. Its KML drivers also list overlays.
    for feature in ours {
      let title = feature[property: "title"]?.stringValue
      let match = try #require(gdal.first { $0.name == title }, "\(String(describing: title))")
      #expect(close(nested(feature.geometry), match.coordinates), "\(feature)")
    }
    #expect(gdal.count { $0.coordinates is NSNull == false } == ours.count)
  }

  @Test func readsTheSameThroughTinyReads() throws {
    let bytes = Array(try Data(contentsOf: Self.hiking))
    #expect(try readKML(bytes, chunk: 5) == readKML(bytes))
  }

  @Test func geometryKinds() throws {
    let kml = """
      <kml><Document>
      <Placemark><MultiGeometry><Point><coordinates>1,2</coordinates></Point>
        <LineString><coordinates>1,2 3,4</coordinates></LineString></MultiGeometry></Placemark>
      <Placemark><MultiGeometry><LineString><coordinates>1,2,3 3,4</coordinates></LineString>
        <LineString><coordinates>5,6 7,8</coordinates></LineString></MultiGeometry></Placemark>
      <Placemark><LinearRing><coordinates>0,0 1,0 1,1 0,0</coordinates></LinearRing></Placemark>
      <Placemark><name>none</name></Placemark>
      <Placemark><MultiGeometry/></Placemark>
      </Document></kml>
      """
    let features = try readKML(Array(kml.utf8))
    #expect(
      features.map { $0.geometry?.typeName } == [
        "GeometryCollection", "MultiLineString", "Polygon", nil, "GeometryCollection",
      ])
    // A tuple without an altitude in a list that has them has none (GDAL gives it 0).
    #expect(
      features[1].geometry
        == .multiLineString([
          CoordinateArray([Position(x: 1, y: 2, z: 3), Position(x: 3, y: 4)]),
          CoordinateArray([Position(x: 5, y: 6), Position(x: 7, y: 8)]),
        ]))
  }

  @Test func badCoordinatesAreErrorsWithTheirPlace() throws {
    let cases: [(String, String)] = [
      (
        "<kml><Placemark><Point><coordinates>1;2</coordinates></Point></Placemark></kml>",
        "error: <coordinates> holds '1;2' where a number belongs"
      ),
      (
        "<kml><Placemark><Point><coordinates>7</coordinates></Point></Placemark></kml>",
        "error: a <coordinates> tuple has one number"
      ),
      (
        "<kml>\n<Placemark><Point><coordinates>200,1</coordinates></Point></Placemark></kml>",
        "test.kml:2:"
      ),
      (
        "<kml><Placemark><name>a</Placemark></kml>",
        "test.kml:1:36: error: malformed XML: Opening and ending tag mismatch"
      ),
      ("<gpx/>", "error: the root element is <gpx>, not <kml>"),
    ]
    for (text, message) in cases {
      do {
        _ = try readKML(Array(text.utf8))
        Issue.record("no error for \(text)")
      } catch let error as GeoPipeError {
        #expect(error.status == .dataError)
        #expect("\(error)".contains(message), "\(error)")
      }
    }
  }

  /// An external entity (XXE) and nested entities (billion laughs) are refused before they are
  /// loaded or expanded.
  @Test(arguments: ["xxe.kml", "entities.kml"])
  func entityTricksAreRefused(name: String) throws {
    let bytes = Array(try Data(contentsOf: fixture("kml/\(name)")))
    do {
      _ = try readKML(bytes)
      Issue.record("no error")
    } catch let error as GeoPipeError {
      #expect(error.status == .dataError)
      #expect(error.message.contains("which is not expanded"), "\(error)")
      #expect(!error.message.contains("root:"), "\(error)")
    }
  }
}

/// Collects diagnostics from a reader.
final class Notes: @unchecked Sendable {
  private let lock = NSLock()
  private var notes: [ReadDiagnostic] = []

  func add(_ note: ReadDiagnostic) {
    lock.lock()
    notes.append(note)
    lock.unlock()
  }

  var all: [ReadDiagnostic] {
    lock.lock()
    defer { lock.unlock() }
    return notes
  }
}

/// A MultiGeometry nested without end is an error, not a stack overflow.
@Test func deeplyNestedMultiGeometryIsAnError() throws {
  let depth = 1000
  let kml =
    "<kml><Placemark>" + String(repeating: "<MultiGeometry>", count: depth)
    + "<Point><coordinates>1,2</coordinates></Point>"
    + String(repeating: "</MultiGeometry>", count: depth) + "</Placemark></kml>"
  #expect {
    _ = try readKML(Array(kml.utf8))
  } throws: { error in
    "\(error)".contains("MultiGeometry nested more than 100 deep")
  }
}
