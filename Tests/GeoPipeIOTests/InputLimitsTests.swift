import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeIO

/// Memory stays bounded by the longest record: whitespace between records is never kept, a
/// record longer than `maxRecordSize` is an error at its start, and objects with many keys are
/// checked in linear time.
@Suite struct InputLimitsTests {
  static let feature =
    #"{"type":"Feature","properties":{"a":1},"geometry":{"type":"Point","coordinates":[1,2]}}"#

  /// Reads `text` through a window that may hold at most `limit` bytes of one record.
  private func read(_ text: String, limit: Int, parallel: Bool, chunk: Int = 7) throws
    -> [Feature]
  {
    let buffer = try InputBuffer(
      source: MemoryByteSource(Array(text.utf8), chunkLimit: chunk), name: "test",
      capacity: 32, maxRecordSize: limit)
    let reader: any FeatureReader =
      parallel
      ? ParallelGeoJSONReader(
        buffer: buffer, options: ReadOptions(), workers: 2, batchBytes: 100)
      : GeoJSONReader(buffer: buffer)
    var features: [Feature] = []
    while let feature = try reader.next() { features.append(feature) }
    return features
  }

  /// Texts with much whitespace between records, and how many features they hold.
  static let spaced: [(String, Int)] = {
    let f = feature
    let blank = String(repeating: " ", count: 5000)
    let lines = String(repeating: "\n", count: 5000)
    return [
      (f + lines + f + lines, 2),
      (lines + f + "\n" + lines + "\u{1E}" + f, 2),
      (
        #"{"type":"FeatureCollection","features":["# + blank + f + blank + "," + blank + f
          + blank + "]}", 2
      ),
      (
        #"{"type":"FeatureCollection","features":["# + f + "," + lines + f + "," + blank + f
          + "]}" + blank, 3
      ),
      (#"{"type":"FeatureCollection","features":["# + f + "]" + blank + "}" + lines + f, 2),
    ]
  }()

  @Test(arguments: spaced)
  func whitespaceBetweenRecordsIsNotKept(_ text: String, count: Int) throws {
    // Each record fits the limit; the whitespace around it is 50 times longer.
    for parallel in [false, true] {
      let features = try read(text, limit: 100, parallel: parallel)
      #expect(features.count == count, "parallel: \(parallel)")
    }
  }

  @Test(arguments: [false, true])
  func manySmallRecordsPassASmallLimit(parallel: Bool) throws {
    // Batches of several records are handed over before the window would have to keep them.
    let text = Array(repeating: Self.feature, count: 50).joined(separator: "\n")
    #expect(try read(text, limit: 100, parallel: parallel).count == 50)
  }

  @Test(arguments: [false, true])
  func recordLongerThanTheLimitIsAnErrorAtItsStart(parallel: Bool) throws {
    let long =
      #"{"type":"Feature","properties":{"text":""# + String(repeating: "x", count: 300)
      + #""},"geometry":null}"#
    let text = Self.feature + "\n" + long + "\n"
    #expect(throws: Never.self) { try read(text, limit: 1000, parallel: parallel) }
    do {
      _ = try read(text, limit: 200, parallel: parallel)
      Issue.record("a 340-byte record passed a 200-byte limit")
    } catch let error as GeoPipeError {
      #expect(error.status == .dataError)
      #expect(error.location == SourceLocation(file: "test", line: 2, column: 1))
      #expect(error.message.contains("a record longer than 200 bytes starts here"))
    }
  }

  @Test func csvRowLongerThanTheLimitIsAnError() throws {
    let text = "name,lat,lon\n\"" + String(repeating: "y", count: 500) + "\",1,2\n"
    let buffer = try InputBuffer(
      source: MemoryByteSource(Array(text.utf8)), name: "test", maxRecordSize: 256)
    let reader = try CSVReader(buffer: buffer)
    #expect(throws: GeoPipeError.self) { _ = try reader.next() }
  }

  @Test func sizesAreDescribedInTheirUnit() {
    #expect(InputBuffer.describeSize(256 << 20) == "256 MiB")
    #expect(InputBuffer.describeSize(1 << 30) == "1 GiB")
    #expect(InputBuffer.describeSize(64 << 10) == "64 KiB")
    #expect(InputBuffer.describeSize(1000) == "1000 bytes")
  }

  @Test func objectWithManyKeysIsCheckedInLinearTime() throws {
    // 200,000 keys: a quadratic check compares 2·10¹⁰ pairs, minutes; a linear one takes
    // well under a second.
    let count = 200_000
    var text = #"{"type":"Feature","geometry":null,"properties":{"#
    text += (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    text += "}}"
    let start = ContinuousClock.now
    let features = try readAll(text, capacity: 1 << 22)
    let elapsed = ContinuousClock.now - start
    #expect(features.first?.properties?.count == count)
    #expect(elapsed < .seconds(20), "took \(elapsed)")
  }

  @Test func duplicateKeyInALargeObjectIsStillFound() throws {
    let keys = (0..<100).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    let properties = #"{"type":"Feature","geometry":null,"properties":{"# + keys + #","k7":0}}"#
    #expect(readError(properties)?.contains(#"duplicate key "k7""#) == true)
    let foreign = #"{"type":"Feature","geometry":null,"properties":{},"# + keys + #","k99":0}"#
    #expect(readError(foreign)?.contains(#"duplicate key "k99""#) == true)
  }
}
