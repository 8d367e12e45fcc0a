import Foundation
import GeoPipeCore
import GeoPipeIO
import Testing

@testable import GeoPipeGeoPackage

@Suite struct GeoPackageBlobTests {
  static let line = Geometry.lineString(
    CoordinateArray(storage: [1, 2, 3, 4, 5, 6], dimension: 3))

  @Test func writtenBlobReadsBack() throws {
    var out: [UInt8] = []
    let box = GeoPackageBlob.append(Self.line, srsID: 4326, to: &out)
    #expect(box == BBox(west: 1, south: 2, east: 4, north: 5))
    #expect(Array(out[0..<4]) == [0x47, 0x50, 0, 0x05])  // little-endian, xyz envelope
    let decoded = try out.withUnsafeBytes { try GeoPackageBlob.decode($0) }
    #expect(decoded.geometry == Self.line)
    #expect(decoded.srsID == 4326)
  }

  @Test func pointsHaveNoEnvelope() throws {
    var out: [UInt8] = []
    GeoPackageBlob.append(.point(Position(x: 1, y: 2)), srsID: 4326, to: &out)
    #expect(out[3] == 0x01)
    #expect(out.count == 8 + 21)
  }

  @Test func emptyGeometriesCarryTheEmptyFlag() throws {
    var out: [UInt8] = []
    #expect(GeoPackageBlob.append(.multiPolygon([]), srsID: 4326, to: &out) == nil)
    #expect(out[3] == 0x11)
    #expect(out.count == 8 + 9)
    #expect(try out.withUnsafeBytes { try GeoPackageBlob.decode($0) }.geometry == nil)
  }

  /// A big-endian header with an xym envelope (type 3), then big-endian WKB with M.
  @Test func readsBigEndianHeadersAndEveryEnvelopeType() throws {
    var bytes: [UInt8] = [0x47, 0x50, 0, 3 << 1]
    bytes += [0, 0, 0x0F, 0x6C]  // srs_id 3948
    bytes += [UInt8](repeating: 0, count: 48)
    bytes += [0, 0, 0, 0x07, 0xD1]  // big-endian Point M (2001)
    for value in [1.5, -2.0, 9.0] {
      withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes += $0 }
    }
    let decoded = try bytes.withUnsafeBytes { try GeoPackageBlob.decode($0) }
    #expect(decoded.srsID == 3948)
    #expect(decoded.geometry == .point(Position(x: 1.5, y: -2, m: 9)))
  }

  @Test(
    arguments: [
      ([0x47, 0x50, 0, 1], "too few"),
      ([0x48, 0x50, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0], "magic"),
      ([0x47, 0x50, 1, 1, 0, 0, 0, 0], "version 1"),
      ([0x47, 0x50, 0, 0x0B, 0, 0, 0, 0], "envelope type 5"),
      ([0x47, 0x50, 0, 0x21, 0, 0, 0, 0], "extended"),
      ([0x47, 0x50, 0, 0x03, 0, 0, 0, 0, 0, 0], "envelope (type 1, 32 bytes) does not fit"),
      ([0x47, 0x50, 0, 0x01, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0], "bad WKB"),
    ] as [([UInt8], String)])
  func refusesCorruptBlobs(_ bytes: [UInt8], _ message: String) {
    #expect {
      try bytes.withUnsafeBytes { try GeoPackageBlob.decode($0) }
    } throws: { error in
      "\(error)".contains(message)
    }
  }

  @Test func fuzzRegressionsFailCleanly() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/fuzz/gpkg-blob")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    for name in names where !name.hasPrefix(".") && name != "README.md" {
      let data = try Data(contentsOf: folder.appendingPathComponent(name))
      _ = try? [UInt8](data).withUnsafeBytes { try GeoPackageBlob.decode($0) }
    }
  }
}
