import Foundation
import Testing

/// A conversion from a format decoded in batches (GeoPackage, FlatGeobuf, Shapefile) hands the
/// batches to the GeoJSON writers whole; the output must be what a stage between them (which
/// takes the features one at a time) and one thread give, byte for byte.
@Suite("Conversions of batch-decoded formats")
struct BatchedConversionTests {
  /// 2,600 points: two full batches of 1,024 and a short one, with strings that need escapes.
  static let points: String =
    (0..<2600).map { k in
      let x = Double(k % 360) - 179.5 + Double(k) / 10_000
      let y = Double(k % 170) - 84.25
      let name = k % 7 == 0 ? "quote \\\" and tab \\t \(k)" : "place \(k) é"
      return
        "{\"type\":\"Feature\",\"properties\":{\"name\":\"\(name)\",\"n\":\(k),\"v\":\(Double(k) / 3)},"
        + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(x),\(y)]}}"
    }.joined(separator: "\n") + "\n"

  @Test(arguments: ["gpkg", "fgb", "shp"])
  func batchedReadsWriteWhatOneByOneReadsWrite(format: String) throws {
    try withTemporaryDirectory { dir in
      let source = dir.appendingPathComponent("points.geojsonl")
      try Data(Self.points.utf8).write(to: source)
      let converted = dir.appendingPathComponent("points.\(format)")
      let made = try geopipe(["convert", source.path, converted.path, "-q"])
      try #require(made.status == 0, "\(made)")
      for output in ["out.geojsonl", "out.geojson"] {
        var results: [Data] = []
        for threads in ["1", "2", "3"] {
          let batched = dir.appendingPathComponent("\(threads)-\(output)")
          let run = try geopipe(
            ["convert", converted.path, batched.path, "-q"],
            environment: ["GEOPIPE_THREADS": threads])
          try #require(run.status == 0, "\(run)")
          results.append(try Data(contentsOf: batched))
          // A stage between the read and the write takes the features one at a time.
          let oneByOne = dir.appendingPathComponent("filtered-\(threads)-\(output)")
          let pipeline = dir.appendingPathComponent("p-\(threads)-\(output).yaml")
          try Data(
            """
            version: 1
            stages:
              - read: {path: \(converted.path)}
              - filter: {where: "n >= 0"}
              - write: {path: \(oneByOne.path)}
            """.utf8
          ).write(to: pipeline)
          let filtered = try geopipe(
            ["run", pipeline.path, "-q"], environment: ["GEOPIPE_THREADS": threads])
          try #require(filtered.status == 0, "\(filtered)")
          results.append(try Data(contentsOf: oneByOne))
        }
        #expect(Set(results).count == 1, "\(format) → \(output): the outputs differ")
        let text = String(decoding: results[0], as: UTF8.self)
        #expect(text.components(separatedBy: "\"type\":\"Feature\"").count - 1 == 2600)
      }
    }
  }
}
