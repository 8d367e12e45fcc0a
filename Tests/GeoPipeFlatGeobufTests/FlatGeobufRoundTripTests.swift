import Foundation
import GeoPipeCore
import GeoPipeFlatGeobuf
import GeoPipeIO
import Testing

/// geopipe → FlatGeobuf → geopipe gives back the same features.
@Suite struct FlatGeobufRoundTripTests {
  /// Every geometry type, 2D, Z and M runs side by side, null and empty geometries, and
  /// properties of each kind (every feature has every key, in the same order, as a table
  /// does; one column holds a mixture and becomes Json).
  static let features: [Feature] = {
    let geometries: [Geometry?] = [
      .point(Position(x: 8.5, y: 47.25, z: 408.5)),
      .point(Position(x: -0.0, y: 1e-300)),
      .multiPoint(run([1, 2, 3, 4])),
      .lineString(run([0, 0, 10, 1, 2, 3, 1, 1, 4], dimension: 3)),
      .lineString(CoordinateArray()),
      .polygon([
        run([0, 0, 10, 0, 10, 10, 0, 10, 0, 0]), run([2, 2, 2, 4, 4, 4, 4, 2, 2, 2]),
      ]),
      .polygon([]),
      .multiLineString([run([1, 1, 2, 2]), run([3, 3, 4, 4, 5, 5])]),
      .multiPolygon([
        [run([-10, -10, -9, -10, -9, -9, -10, -10])],
        [run([20, 20, .nan, 7, 21, 20, .nan, 8, 21, 21, .nan, 9, 20, 20, .nan, 7], dimension: 4)],
      ]),
      .geometryCollection([
        .point(Position(x: 1, y: 2)), .lineString(run([0, 0, 0, 1, 1, 1], dimension: 3)),
        .geometryCollection([.polygon([run([5, 5, 6, 5, 6, 6, 5, 5])])]),
      ]),
      nil,
      .multiPolygon([]),
    ]
    var features: [Feature] = []
    for (k, geometry) in geometries.enumerated() {
      let properties: JSONObject = [
        "i": .integer(Int64(k)),
        "name": k % 3 == 0 ? .string("Zürich \"東京\" 😀\n\(k)") : .null,
        "real": k % 4 == 1 ? .null : .double(Double(k) / 3),
        "flag": .bool(k % 2 == 0),
        "big": .integer(k == 2 ? Int64.min : Int64.max - Int64(k)),
        "nested": k % 5 == 0 ? .object(["a": .array([.integer(1), .double(2.5), .null])]) : .null,
        "mixed": [JSONValue.string("text"), .integer(7), .double(7.5), .bool(true)][k % 4],
        "huge": k == 3 ? .bigInteger("123456789012345678901234567890") : .null,
      ]
      features.append(Feature(geometry: geometry, properties: properties))
    }
    return features
  }()

  @Test func withoutIndexFeaturesComeBackInOrderUnchanged() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try scratch.write(Self.features, to: "plain.fgb", index: false)
    let back = try readAll(path).features
    #expect(back.count == Self.features.count)
    for (a, b) in zip(back, Self.features) { #expect(a == b) }
  }

  @Test func withIndexTheSameFeaturesComeBackInHilbertOrder() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try scratch.write(Self.features, to: "indexed.fgb")
    let back = try readAll(path).features
    #expect(back.count == Self.features.count)
    let byIndex = Dictionary(uniqueKeysWithValues: back.map { ($0[property: "i"], $0) })
    for feature in Self.features {
      #expect(byIndex[feature[property: "i"]] == feature)
    }
    #expect(back != Self.features, "the index orders features along its Hilbert curve")
  }

  @Test func aStreamReadsLikeAFile() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try scratch.write(Self.features, to: "stream.fgb")
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(try readAll(bytes: bytes) == readAll(path).features)
  }

  @Test func integersAndRealsInOneColumnBecomeReals() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let features = [
      Feature(geometry: .point(Position(x: 1, y: 1)), properties: ["v": .integer(2)]),
      Feature(geometry: .point(Position(x: 2, y: 2)), properties: ["v": .double(2.5)]),
    ]
    let path = try scratch.write(features, to: "reals.fgb", index: false)
    #expect(try readAll(path).features.map { $0[property: "v"] } == [.double(2), .double(2.5)])
  }

  @Test func noFeaturesMakeAnEmptyLayer() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try scratch.write([], to: "empty.fgb")
    #expect(try readAll(path).features.isEmpty)
    #expect(try readAll(path, bbox: BBox(west: -1, south: -1, east: 1, north: 1)).features.isEmpty)
  }
}
