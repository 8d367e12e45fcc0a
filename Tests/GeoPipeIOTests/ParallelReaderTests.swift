import GeoPipeCore
import Testing

@testable import GeoPipeIO

/// The parallel reader must give exactly what the one-thread reader gives: the same features,
/// or the same error at the same place, whatever the text looks like around batch cuts and
/// the splitter's 64-byte blocks.
@Suite struct ParallelReaderTests {
  private func randomString(_ g: inout SplitMix64) -> String {
    let pieces = [
      "a", "bc", "{", "}", "[", "]", "\\\"", "\\\\", "\\n", "é", "\\u00e9", ",", ":", " ",
    ]
    let count = Int.random(in: 0...90, using: &g)
    return (0..<count).map { _ in pieces.randomElement(using: &g) ?? "" }.joined()
  }

  private func randomCollection(_ g: inout SplitMix64) -> String {
    "{\"type\":\"FeatureCollection\",\"features\":[" + randomFeatures(&g) + "]}"
  }

  /// Up to twelve features separated by commas.
  private func randomFeatures(_ g: inout SplitMix64) -> String {
    var features: [String] = []
    for k in 0..<Int.random(in: 1...12, using: &g) {
      let name = randomString(&g)
      let nested =
        Bool.random(using: &g) ? ",\"n\":{\"a\":[1,[2,{\"b\":\"\(randomString(&g))\"}]]}" : ""
      let geometry =
        k % 3 == 0
        ? "null"
        : "{\"type\":\"LineString\",\"coordinates\":[[1.5,2],[3,4.25]]}"
      let separator = Bool.random(using: &g) ? "\n" : ""
      features.append(
        "\(separator){\"type\":\"Feature\",\"id\":\(k),\"properties\":{\"name\":\"\(name)\"\(nested)},"
          + "\"geometry\":\(geometry)}")
    }
    return features.joined(separator: ",")
  }

  private func outcome(
    _ text: String, parallel: Bool, batch: Int, capacity: Int = 32, chunk: Int = 13
  ) -> String {
    do {
      let features =
        parallel
        ? try readAllParallel(text, batchBytes: batch, capacity: capacity, chunk: chunk)
        : try readAll(text)
      return "\(features)"
    } catch {
      return "\(error)"
    }
  }

  @Test func matchesTheOneThreadReaderOnRandomCollections() {
    var g = SplitMix64(seed: 42)
    for round in 0..<300 {
      var text = randomCollection(&g)
      if round % 3 == 1 {
        // Cut it short, or damage one byte, to compare errors too.
        let utf8 = Array(text.utf8)
        let cut = Int.random(in: 1..<utf8.count, using: &g)
        text = String(decoding: utf8[..<cut], as: UTF8.self)
      } else if round % 3 == 2 {
        var utf8 = Array(text.utf8)
        utf8[Int.random(in: 0..<utf8.count, using: &g)] =
          [0x22, 0x7D, 0x5D, 0x2C, 0x5C, 0x7B]
          .randomElement(using: &g) ?? 0x22
        text = String(decoding: utf8, as: UTF8.self)
      }
      let expected = outcome(text, parallel: false, batch: 0)
      for batch in [1, 100, 1 << 20] {
        #expect(outcome(text, parallel: true, batch: batch) == expected, "\(text)")
      }
      // Windows large enough for the splitter to scan whole runs of features 64 bytes at a time.
      for (batch, capacity) in [(1, 1 << 16), (150, 1 << 16), (1 << 20, 1 << 16), (300, 256)] {
        #expect(
          outcome(text, parallel: true, batch: batch, capacity: capacity, chunk: .max)
            == expected, "\(text)")
      }
    }
  }

  @Test func matchesTheOneThreadReaderOnLongCollections() {
    // Many features, so that runs of them cross 64-byte blocks, window refills and batches.
    var g = SplitMix64(seed: 7)
    for round in 0..<40 {
      var runs: [String] = []
      for _ in 0..<8 { runs.append(randomFeatures(&g)) }
      let body = runs.joined(separator: ",\n")
      var text = "{\"type\":\"FeatureCollection\",\"features\":[" + body + "],\"name\":\"x\"}\n"
      if round % 2 == 1 {
        var utf8 = Array(text.utf8)
        utf8[Int.random(in: 0..<utf8.count, using: &g)] =
          [0x22, 0x7D, 0x5D, 0x2C, 0x5C, 0x7B, 0x0A].randomElement(using: &g) ?? 0x22
        text = String(decoding: utf8, as: UTF8.self)
      }
      let expected = outcome(text, parallel: false, batch: 0)
      for (batch, capacity) in [(1, 1 << 16), (700, 1 << 16), (700, 512), (1 << 20, 1 << 20)] {
        #expect(
          outcome(text, parallel: true, batch: batch, capacity: capacity, chunk: .max)
            == expected, "\(text)")
      }
    }
  }
}
