import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeParquet
import Testing

/// Features written by the GeoParquet writer read back the same through the reader. (Files
/// of other writers — pyarrow, GeoPandas, DuckDB — are checked by Scripts/test-geoparquet.sh.)
@Suite struct GeoParquetRoundTripTests {
  static let features: [Feature] = (0..<100).map { k in
    var properties: JSONObject = [
      "name": .string("feature \(k % 7)"), "k": .integer(Int64(k)),
      "ratio": k % 3 == 0 ? .integer(Int64(k)) : .double(Double(k) / 8),
      "flag": .bool(k % 2 == 0),
    ]
    if k % 5 == 0 { properties["sparse"] = .array([.integer(1), .string("two")]) }
    if k % 4 == 1 { properties["name"] = .null }
    let geometry: Geometry? =
      k % 10 == 9
      ? nil
      : k % 2 == 0
        ? .point(Position(x: Double(k) - 50, y: Double(k) / 4))
        : .polygon([
          CoordinateArray(
            storage: [0, 0, 1, 0, 1, Double(k) / 100 + 1, 0, 0].map { $0 + Double(k) / 2 },
            dimension: 2)
        ])
    return Feature(geometry: geometry, properties: properties)
  }

  /// What the reader gives back: every column in every feature, missing ones null, integers
  /// beside floats as floats, mixed kinds as their JSON values.
  static func expected(_ feature: Feature) -> JSONObject {
    let p = feature.properties ?? JSONObject()
    var out = JSONObject()
    out["name"] = p["name"] ?? .null
    out["k"] = p["k"] ?? .null
    out["ratio"] = p["ratio"]?.numberValue.map { JSONValue.double($0) } ?? .null
    out["flag"] = p["flag"] ?? .null
    out["sparse"] = p["sparse"] ?? .null
    return out
  }

  @Test(arguments: ["zstd", "snappy", "gzip", "none"])
  func featuresSurviveEachCodec(_ codec: String) throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try scratch.write(
      Self.features, to: "a.parquet", options: ["compression": codec, "row-group-size": "16"])
    let read = try readAll(path)
    #expect(read.count == Self.features.count)
    for (a, b) in zip(read, Self.features) {
      #expect(a.geometry == b.geometry)
      #expect(a.properties == Self.expected(b))
    }
  }

  @Test func bboxSkipsRowGroupsAndRows() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try scratch.write(Self.features, to: "b.parquet", options: ["row-group-size": "10"])
    let box = BBox(west: -50, south: 0, east: -40, north: 3)
    let read = try readAll(path, bbox: box)
    let inside = Self.features.filter { feature in
      var b = BBox.empty
      feature.geometry?.forEachXY { x, y in b.extend(x: x, y: y) }
      return !b.isEmpty && box.intersects(b)
    }
    #expect(read.map(\.geometry) == inside.map(\.geometry))
  }

  @Test func readsFromAPipe() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try scratch.write(Self.features, to: "c.parquet")
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(try readAll(bytes: bytes).count == Self.features.count)
  }
}
