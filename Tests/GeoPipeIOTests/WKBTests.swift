import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeIO

/// Well-Known Binary against GDAL's (`Fixtures/wkb/cases.tsv`, written by
/// `Scripts/gen-wkb-fixtures.py` with Debian's python3-gdal): the same bytes written, the same
/// geometry read from either byte order and from the extended (EWKB-style) flags.
@Suite struct WKBTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var wkt: String
    var isoLittle: [UInt8]
    var isoBig: [UInt8]
    var extended: [UInt8]?
    var testDescription: String { wkt }
  }

  static let cases: [Case] = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/wkb/cases.tsv")
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").dropFirst().map { line in
      let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      return Case(
        wkt: columns[0], isoLittle: hex(columns[1]), isoBig: hex(columns[2]),
        extended: columns[3].isEmpty ? nil : hex(columns[3]))
    }
  }()

  static func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
      index = next
    }
    return bytes
  }

  @Test func readsTheCases() { #expect(Self.cases.count >= 18) }

  @Test(arguments: cases)
  func writesWhatGDALWritesAndReadsItBack(_ c: Case) throws {
    let geometry = try #require(try WKTReader.parse(c.wkt, checkRanges: false))
    #expect(WKBWriter.bytes(geometry) == c.isoLittle)
    #expect(try WKBReader.parse(c.isoLittle).geometry == geometry)
    #expect(try WKBReader.parse(c.isoBig).geometry == geometry)
    if let extended = c.extended {
      #expect(try WKBReader.parse(extended).geometry == geometry)
    }
  }

  @Test func extendedWKBCarriesTheSRID() throws {
    let point = Geometry.point(Position(x: 1, y: 2, z: 3))
    let bytes = WKBWriter.bytes(point, flavor: .extended(srid: 4326))
    // Z and SRID flags on the type, then the SRID.
    #expect(Array(bytes[1..<9]) == [1, 0, 0, 0xA0, 0xE6, 0x10, 0, 0])
    let result = try WKBReader.parse(bytes)
    #expect(result.geometry == point && result.srid == 4326)
  }

  @Test func anEmptyPointIsNoGeometry() throws {
    let empty = WKBWriter.bytes(.point(Position(x: .nan, y: .nan)))
    #expect(try WKBReader.parse(empty).geometry == nil)
  }

  @Test(arguments: [
    ([UInt8]([]), "ends early"),
    ([2, 1, 0, 0, 0], "byte order 2"),
    ([1, 9, 0, 0, 0], "unknown geometry type 9"),
    // A line claiming four billion points in a few bytes.
    ([1, 2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0], "does not fit"),
    // A MultiPoint holding a LineString.
    ([1, 4, 0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0], "a LineString inside a MultiPoint"),
    ([1, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 17), "1 bytes after the geometry"),
  ])
  func corruptInputIsAnErrorWithItsOffset(_ bytes: [UInt8], _ message: String) {
    #expect {
      try WKBReader.parse(bytes)
    } throws: { error in
      "\(error)".contains(message)
    }
  }

  @Test func deeplyNestedCollectionsAreRefused() {
    var bytes: [UInt8] = []
    for _ in 0..<600 { bytes += [1, 7, 0, 0, 0, 1, 0, 0, 0] }
    bytes += WKBWriter.bytes(.point(Position(x: 1, y: 2)))
    #expect {
      try WKBReader.parse(bytes)
    } throws: { error in
      "\(error)".contains("nested deeper than 512")
    }
  }
}
