import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeXML
import Testing

/// Inputs kept from fuzzing the XML readers (Fixtures/fuzz/xml/) and the fuzzer's seeds must
/// read to features or an error, through both readers.
@Suite struct XMLFuzzRegressionTests {
  static func files() -> [String] {
    var paths: [String] = []
    for folder in ["fuzz/xml", "gpx", "kml"] {
      let directory = fixture(folder)
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
      paths += names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted().map {
        "\(folder)/\($0)"
      }
    }
    return paths
  }

  @Test(arguments: files())
  func readsOrFails(path: String) throws {
    let bytes = Array(try Data(contentsOf: fixture(path)))
    for pointsOnly in [false, true] {
      _ = try? readGPX(bytes, pointsOnly: pointsOnly)
    }
    let kml = try? readKML(bytes)
    // A document read whole and read a few bytes at a time gives the same features.
    #expect((try? readKML(bytes, chunk: 3)) == kml)
  }

  @Test func commentsDoctypeAndInstructionsArePassedOver() throws {
    let bytes = Array(
      try Data(contentsOf: fixture("fuzz/xml/comments-doctype-and-instructions.gpx")))
    let features = try readGPX(bytes)
    #expect(features.count == 1)
    #expect(features.first?[property: "name"]?.stringValue == "ab")
  }
}
