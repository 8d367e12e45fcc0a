import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeIO

/// Inputs that once crashed a fuzz target (Fixtures/fuzz/<reader>/) must now read cleanly:
/// a result or an error, and a result that survives a write/read round trip.
@Suite struct FuzzRegressionTests {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/fuzz")

  static func files(_ folder: String) -> [String] {
    let directory = root.appendingPathComponent(folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
  }

  @Test(arguments: files("wkt"))
  func wktCrashersReadBackUnchanged(name: String) throws {
    let data = try Data(contentsOf: Self.root.appendingPathComponent("wkt/\(name)"))
    let text = String(decoding: data, as: UTF8.self)
    guard let geometry = try? WKTReader.parse(text, checkRanges: false) else { return }
    let written = WKTWriter.string(geometry)
    #expect(try WKTReader.parse(written, checkRanges: false) == geometry, "\(written)")
  }

  @Test(arguments: files("wkb"))
  func wkbCrashersReadBackUnchanged(name: String) throws {
    let data = try Data(contentsOf: Self.root.appendingPathComponent("wkb/\(name)"))
    guard let geometry = try? WKBReader.parse(Array(data)).geometry else { return }
    #expect(try WKBReader.parse(WKBWriter.bytes(geometry)).geometry == geometry)
  }

  @Test(arguments: files("geojson"))
  func geojsonCrashersReadOrFail(name: String) throws {
    let data = try Data(contentsOf: Self.root.appendingPathComponent("geojson/\(name)"))
    var options = ReadOptions()
    options.format = .geoJSON
    var parallel = options
    parallel.threads = 2
    parallel.batchBytes = 24
    #expect(outcome(Array(data), options) == outcome(Array(data), parallel))
    guard let features = try? openAll(Array(data), options: options) else { return }
    var write = WriteOptions()
    write.rewind = false
    #expect(try readAll(try encodeSeq(features, options: write)) == features)
  }

  private func outcome(_ bytes: [UInt8], _ options: ReadOptions) -> String {
    do {
      return "\(try openAll(bytes, options: options))"
    } catch {
      return "\(error)"
    }
  }

  @Test(arguments: files("csv"))
  func csvCrashersReadOrFail(name: String) throws {
    let data = try Data(contentsOf: Self.root.appendingPathComponent("csv/\(name)"))
    var options = ReadOptions()
    options.format = .csv
    _ = try? openAll(Array(data), options: options)
  }
}
