import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeIO

/// Shards of an input read every record once, in order: the features of shards 0 to N-1, one
/// after another, are the features of the whole input.
@Suite struct ShardReaderTests {
  static func write(_ text: String, name: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "geopipe-shards-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  static func features(_ path: String, share: InputShare? = nil) throws -> [Feature] {
    var options = ReadOptions()
    options.share = share
    let reader = try FeatureReaders.open(path, options: options)
    var result: [Feature] = []
    while let feature = try reader.next() { result.append(feature) }
    return result
  }

  static func expectShardsCoverTheInput(
    _ path: String, counts: [Int], sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) throws {
    let whole = try features(path)
    let size = try FeatureReaders.shareSizes([path])[0]
    for count in counts {
      var joined: [Feature] = []
      for index in 0..<count {
        let share = try Shard(index: index, count: count).shares(of: [size])[0]
        joined += try features(path, share: share)
      }
      #expect(joined == whole, "\(count) shards of \(path)", sourceLocation: sourceLocation)
    }
  }

  /// A random CSV field: plain, or quoted with delimiters, doubled quotes and every kind of
  /// line break inside.
  static func field(_ random: inout SplitMix64) -> String {
    let pieces = ["a", "b", "1", ",", "\"\"", "\n", "\r\n", "\r", " "]
    let length = Int(random.next() % 6)
    if random.next() % 2 == 0 {
      return String((0..<length).map { _ in "abc1 ".randomElement(using: &random) ?? "a" })
    }
    return "\"" + (0..<length).map { _ in pieces.randomElement(using: &random) ?? "a" }.joined()
      + "\""
  }

  @Test(arguments: 0..<40)
  func csvShardsReadEveryRowOnce(seed: Int) throws {
    var random = SplitMix64(seed: UInt64(seed))
    var text = "name,note\n"
    let ends = ["\n", "\r\n", "\r"]
    for _ in 0..<Int(random.next() % 60) {
      text += Self.field(&random) + "," + Self.field(&random)
      text += ends.randomElement(using: &random) ?? "\n"
    }
    let path = try Self.write(text, name: "rows.csv")
    try Self.expectShardsCoverTheInput(path, counts: Array(1...12) + [500])
  }

  @Test func sequenceShardsReadEveryFeatureOnce() throws {
    var text = ""
    for k in 0..<50 {
      text +=
        "{\"type\":\"Feature\",\"properties\":{\"k\":\(k),\"s\":\"\(String(repeating: "x", count: k % 7))\"},"
      text += "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(k),1]}}\n"
      if k % 9 == 0 { text += "\n" }
    }
    try Self.expectShardsCoverTheInput(
      try Self.write(text, name: "seq.geojsonl"), counts: Array(1...12) + [5000])
    let separated = text.split(separator: "\n").map { "\u{1E}" + $0 + "\n" }.joined()
    try Self.expectShardsCoverTheInput(
      try Self.write(separated, name: "seq.geojsons"), counts: [1, 2, 3, 7, 60])
  }

  @Test func featureCollectionShardsReadEveryFeatureOnce() throws {
    let features = (0..<30).map {
      "{\"type\":\"Feature\",\"properties\":{\"k\":\($0)},\"geometry\":null}"
    }
    let text =
      "{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",")
      + "]}"
    try Self.expectShardsCoverTheInput(
      try Self.write(text, name: "c.geojson"), counts: Array(1...8) + [1000])
  }

  /// A share's records for numbered records: every record in exactly one shard, in order.
  @Test(arguments: [0, 1, 5, 64, 1000])
  func numberedRecordsSplitExactly(count: Int) throws {
    for shards in [1, 2, 3, 7, 2000] {
      var next = 0
      for index in 0..<shards {
        let share = try Shard(index: index, count: shards).shares(of: [12345])[0]
        let records = share.records(count: count)
        #expect(records.lowerBound == next)
        next = records.upperBound
      }
      #expect(next == count)
    }
  }

  /// A row whose position is in one shard and whose bytes run into the next is read by the
  /// first and skipped by the second, with true line numbers in errors.
  @Test func errorsInAShardNameTheirLine() throws {
    let text = "name,lat,lon\na,1,2\nb,1,2\n\"c\nc\",1,2\nd,91,2\n"
    let path = try Self.write(text, name: "bad.csv")
    let size = text.utf8.count
    let first = try Shard(index: 0, count: 2).shares(of: [size])[0]
    let names = try Self.features(path, share: first).map { $0.properties?["name"] }
    #expect(names == [.string("a"), .string("b")])
    let last = try Shard(index: 1, count: 2).shares(of: [size])[0]
    #expect {
      _ = try Self.features(path, share: last)
    } throws: { error in
      (error as? GeoPipeError)?.location?.line == 6
    }
  }
}
