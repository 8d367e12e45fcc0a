import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `geopipe write x.kml` through the binary: the golden document, and what an XML parser finds
/// in it (placemarks, names, styles with aabbggrr colours, geometry elements).
@Suite("kml")
struct KMLTests {
  static let folder = CLI.fixtures("kml")

  /// The elements of a KML document as (path, text) pairs, the path joined with '/'.
  final class Collector: NSObject, XMLParserDelegate {
    var stack: [String] = []
    var text = ""
    var elements: [(path: String, text: String)] = []

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName: String?, attributes: [String: String] = [:]
    ) {
      stack.append(elementName)
      text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
      text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName: String?
    ) {
      elements.append((stack.joined(separator: "/"), text))
      stack.removeLast()
      text = ""
    }
  }

  private func written() throws -> Data {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-kml")
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try geopipe(
      ["write", "out.kml"], stdinFile: Self.folder.appendingPathComponent("styled.geojson"),
      in: directory)
    #expect(run.status == 0, "\(run)")
    return try Data(contentsOf: directory.appendingPathComponent("out.kml"))
  }

  private func parsed(_ data: Data) throws -> [(path: String, text: String)] {
    let parser = XMLParser(data: data)
    let collector = Collector()
    parser.delegate = collector
    #expect(parser.parse(), "\(parser.parserError.map(String.init(describing:)) ?? "")")
    return collector.elements
  }

  @Test func matchesTheGoldenDocument() throws {
    let expected = try Data(contentsOf: Self.folder.appendingPathComponent("styled.kml"))
    #expect(try written() == expected)
  }

  @Test func placemarksCarryNamesDescriptionsAndEveryGeometry() throws {
    let elements = try parsed(try written())
    let placemark = "kml/Document/Placemark"
    #expect(elements.count { $0.path == placemark } == 9)
    #expect(
      elements.filter { $0.path == "\(placemark)/name" }.map(\.text) == [
        "Paris & <Île-de-France>", "Brussels", "Route", "Park", "Nowhere",
      ])
    #expect(
      elements.filter { $0.path == "\(placemark)/description" }.map(\.text) == [
        "Population 2,148,000"
      ])
    let points = elements.filter { $0.path.hasSuffix("Point/coordinates") }.map(\.text)
    #expect(points == ["2.3522,48.8566", "4.3517,50.8503,13.5", "0,0", "1,1", "5,5"])
    #expect(elements.contains { $0.path == "\(placemark)/LineString/coordinates" })
    #expect(elements.count { $0.path.hasSuffix("MultiGeometry/LineString/coordinates") } == 3)
    #expect(
      elements.count { $0.path == "\(placemark)/Polygon/innerBoundaryIs/LinearRing/coordinates" }
        == 1)
    #expect(elements.count { $0.path == "\(placemark)/MultiGeometry/Polygon" } == 2)
    let data = elements.filter { $0.path == "\(placemark)/ExtendedData/Data/value" }.map(\.text)
    #expect(data == ["Paris", "2148000", "required", "mixed", #"["a","b"]"#])
  }

  @Test func stylesUseKMLColoursFromSimplestyle() throws {
    let elements = try parsed(try written())
    let style = "kml/Document/Placemark/Style"
    #expect(
      elements.filter { $0.path == "\(style)/IconStyle/color" }.map(\.text) == [
        "ff3333dd", "ffcc6633", "ff00ccff",
      ])
    #expect(
      elements.filter { $0.path == "\(style)/IconStyle/scale" }.map(\.text) == ["1.3", "0.8"])
    #expect(
      elements.filter { $0.path == "\(style)/LineStyle/color" }.map(\.text) == [
        "80ff0000", "ff008800", "ff006600",
      ])
    #expect(
      elements.filter { $0.path == "\(style)/LineStyle/width" }.map(\.text) == ["3", "1.5"])
    // simplestyle's default fill opacity is 0.6 (0x99).
    #expect(
      elements.filter { $0.path == "\(style)/PolyStyle/color" }.map(\.text) == [
        "4033aa33", "99efcdab",
      ])
    #expect(
      elements.filter { $0.path == "\(style)/BalloonStyle/text" }.allSatisfy {
        $0.text.contains("$[name]") && $0.text.contains("$[description]")
      })
  }

  @Test func gdalReadsThePlacemarks() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ogrinfo") else { return }
    let directory = try makeTemporaryDirectory(prefix: "geopipe-kml")
    defer { try? FileManager.default.removeItem(at: directory) }
    try written().write(to: directory.appendingPathComponent("out.kml"))
    let run = try runProcess(
      URL(fileURLWithPath: "/usr/bin/ogrinfo"), ["-ro", "-al", "-so", "out.kml"], stdin: nil,
      in: directory)
    #expect(run.status == 0, "\(run)")
    #expect(run.out.contains("Feature Count: 9"), "\(run)")
    let names = try runProcess(
      URL(fileURLWithPath: "/usr/bin/ogrinfo"), ["-ro", "-al", "-q", "out.kml"], stdin: nil,
      in: directory)
    for name in ["Brussels", "Route", "Park", "Nowhere"] {
      #expect(names.out.contains("Name (String) = \(name)"), "\(names)")
    }
  }
}
