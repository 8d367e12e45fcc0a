import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeIO

/// A binary format for the registry's tests: files start with "TEST", then one name per line,
/// each read as a feature with that name.
private final class NameListReader: FeatureReader {
  private var names: [String]
  init(_ input: FormatInput) throws {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = try chunk.withUnsafeMutableBytes { try input.source.read(into: $0) }
      if n == 0 { break }
      bytes.append(contentsOf: chunk[..<n])
    }
    names = String(decoding: bytes.dropFirst(5), as: UTF8.self).split(separator: "\n")
      .map(String.init).reversed()
  }
  var bytesRead: Int { 0 }
  var skippedCount: Int { 0 }
  var collectionMembers: JSONObject { JSONObject() }
  func next() throws -> Feature? {
    guard let name = names.popLast() else { return nil }
    var properties = JSONObject()
    properties["name"] = .string(name)
    return Feature(geometry: nil, properties: properties)
  }
}

private let nameList = FeatureFormat(
  name: "namelist", title: "Name list", extensions: ["names"],
  recognize: { head in head.starts(with: Array("TEST\n".utf8)) },
  open: { input, _ in try NameListReader(input) })

@Suite(.serialized) struct FormatRegistryTests {
  init() { FeatureFormats.register(nameList) }

  private func file(_ name: String, _ text: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "geopipe-formats-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let path = folder.appendingPathComponent(name).path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  private func names(_ path: String) throws -> [String] {
    let reader = try FeatureReaders.open(path)
    var names: [String] = []
    while let feature = try reader.next() {
      if case .string(let name)? = feature.properties?["name"] { names.append(name) }
    }
    return names
  }

  @Test func theBuiltInFormatsComeFirstInTheirOrder() {
    #expect(
      Array(FeatureFormats.all.map(\.name).prefix(4)) == ["geojson", "geojsonseq", "csv", "kml"])
    #expect(
      FeatureFormats.writable.map(\.name).prefix(4) == ["geojson", "geojsonseq", "csv", "kml"])
    // GeoPipeIO's KML writes only; the KML module registers one that also reads in its place
    // (which other suites in this process may have done already).
    #expect(FeatureFormat.kml.open == nil)
    #expect(FeatureFormats.all.count { $0.name == "kml" } == 1)
  }

  @Test func extensionsNameFormatsForReadingAndWriting() {
    #expect(FeatureFormats.reading("a/B.NAMES")?.name == "namelist")
    #expect(FeatureFormats.writing("a.names") == nil)
    #expect(FeatureFormats.writing("x.kml.gz")?.name == "kml")
    #expect(FeatureFormats.reading("x.osm") == nil)
    #expect(FeatureFormats.writing("x.geojsons")?.name == "geojsonseq")
    #expect(FeatureFormats.fileExtension(of: "dir.csv/a") == nil)
    #expect(textTitles() == "GeoJSON, GeoJSONSeq and CSV")
  }

  private func textTitles() -> String {
    FeatureFormats.titles(FeatureFormats.all.filter { $0.text != nil })
  }

  @Test func aRegisteredFormatIsReadByExtensionAndByItsBytes() throws {
    #expect(try names(file("a.names", "TEST\nOslo\nBergen\n")) == ["Oslo", "Bergen"])
    // No extension: its first bytes tell.
    #expect(try names(file("data", "TEST\nTromsø\n")) == ["Tromsø"])
    // Through gzip as any streamed format.
    let reader = try FeatureReaders.open(
      source: MemoryByteSource(Array("TEST\nA\n".utf8)), name: "<stdin>")
    #expect(try reader.next()?.properties?["name"] == .string("A"))
  }

  @Test func bytesThatContradictTheExtensionAreRefusedByName() throws {
    let wrongBytes = try file("b.names", "name,lat,lon\n")
    #expect(throws: GeoPipeError.self) { try names(wrongBytes) }
    do {
      _ = try names(wrongBytes)
    } catch {
      #expect(
        "\(error)".hasSuffix(
          "b.names:1:1: error: expected Name list (the file name ends in .names), but the file "
            + "starts with text: \"name,lat,lon\""))
    }
    let mislabelled = try file("c.geojson", "TEST\nA\n")
    do {
      _ = try names(mislabelled)
      Issue.record("a name list called .geojson was read")
    } catch {
      #expect(
        "\(error)".contains(
          "expected GeoJSON (the file name ends in .geojson), but the file is Name list; use "
            + "--input-format namelist"))
    }
  }

  @Test func aChosenFormatIsReadWhateverTheName() throws {
    var options = ReadOptions()
    options.format = nameList
    let path = try file("d.csv", "TEST\nA\n")
    let reader = try FeatureReaders.open(path, options: options)
    #expect(try reader.next()?.properties?["name"] == .string("A"))
  }

  @Test func writersAreChosenByTheirExtension() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "geopipe-writers-\(getpid())")
    let path = folder.appendingPathComponent("a.geojsons").path
    let writer = try FeatureWriters.open(path)
    try writer.write(Feature(geometry: .point(Position(x: 1, y: 2)), properties: JSONObject()))
    try writer.finish()
    let written = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(written.first == 0x1E)
    #expect(throws: GeoPipeError.self) { try FeatureWriters.open(folder.path + "/a.unknown") }
    try? FileManager.default.removeItem(at: folder)
  }
}
