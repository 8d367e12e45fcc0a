import Foundation
import GeoPipeCore
import Testing

/// Inputs that once crashed `FuzzFlatGeobuf` (Fixtures/fuzz/flatgeobuf/) read as features or
/// a data error, as a stream and as a file (through the index too).
@Suite struct FlatGeobufFuzzRegressionTests {
  static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/fuzz/flatgeobuf")

  static let files: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".fgb") }.sorted()
  }()

  @Test func thereAreRegressionFiles() {
    #expect(!Self.files.isEmpty)
  }

  @Test(arguments: files)
  func readsAsFeaturesOrADataError(name: String) throws {
    let path = Self.folder.appendingPathComponent(name).path
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    for read in [
      { _ = try readAll(bytes: bytes) }, { _ = try readAll(path) },
      { _ = try readAll(path, bbox: BBox(west: -180, south: -90, east: 180, north: 90)) },
    ] {
      do {
        try read()
      } catch let error as GeoPipeError {
        #expect(error.status == .dataError, "\(error)")
      }
    }
  }
}
