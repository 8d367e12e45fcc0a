import Foundation
import GeoPipeCore
import GeoPipeIO
import Testing

@testable import GeoPipeShapefile

@Suite struct RingAssemblyTests {
  /// A square ring, clockwise (an outer ring) unless `counterClockwise`.
  static func square(_ x: Double, _ y: Double, _ size: Double, counterClockwise: Bool = false)
    -> CoordinateArray
  {
    let points = [(x, y), (x, y + size), (x + size, y + size), (x + size, y), (x, y)]
    let ordered = counterClockwise ? points.reversed() : points
    return CoordinateArray(ordered.map { Position(x: $0.0, y: $0.1) })
  }

  @Test func oneRingIsAPolygonWhateverItsOrientation() {
    let ring = Self.square(0, 0, 1, counterClockwise: true)
    #expect(RingAssembly.geometry([ring]) == .polygon([ring]))
  }

  @Test func holesGoToTheSmallestOuterRingContainingThem() {
    let big = Self.square(0, 0, 100)
    let small = Self.square(10, 10, 20)
    let hole = Self.square(12, 12, 2, counterClockwise: true)
    let holeOfBig = Self.square(50, 50, 2, counterClockwise: true)
    // The hole comes first in the file.
    let geometry = RingAssembly.geometry([hole, big, holeOfBig, small])
    #expect(geometry == .multiPolygon([[big, holeOfBig], [small, hole]]))
  }

  @Test func aCounterClockwiseRingInNoOuterRingIsAnOuterRing() {
    let outer = Self.square(0, 0, 10)
    let stray = Self.square(20, 20, 5, counterClockwise: true)
    #expect(RingAssembly.geometry([outer, stray]) == .multiPolygon([[outer], [stray]]))
  }

  @Test func aHoleTouchingItsOuterRingStaysAHole() {
    let outer = Self.square(0, 0, 10)
    let hole = CoordinateArray(
      [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 0.0)].map { Position(x: $0.0, y: $0.1) })
    #expect(hole.signedDoubleArea > 0)
    #expect(RingAssembly.geometry([outer, hole]) == .polygon([outer, hole]))
  }
}

@Suite struct DBaseSchemaTests {
  @Test func namesAreCutToTenBytesAndMadeUniqueAsGDALDoes() throws {
    var schema = DBaseSchema()
    let names = [
      "population_2020", "population_2021", "Short", "short", "ümlautsüber", "a", "b", "c", "d",
    ]
    for name in names { _ = schema.column(name) }
    for k in 2...12 { _ = schema.column("population_20\(k + 20)") }
    let (fields, renames) = try schema.fields()
    #expect(
      Array(fields.map(\.name).prefix(5)) == [
        "population", "populati_1", "Short", "short_1", "ümlautsü",
      ])
    #expect(fields.map(\.name).contains("populati_9"))
    #expect(fields.map(\.name).contains("populati10"))
    #expect(renames.first! == ("population_2020", "population"))
  }

  @Test func typesComeFromEveryValue() throws {
    var schema = DBaseSchema()
    let (i, r, b, t, m) = (
      schema.column("i"), schema.column("r"), schema.column("b"), schema.column("t"),
      schema.column("m")
    )
    schema.noteInteger(i, width: 12)
    schema.noteInteger(r, width: 3)
    schema.noteReal(r, width: 5)
    schema.noteBool(b, value: true)
    schema.noteText(t, width: 200)
    schema.noteInteger(m, width: 2)
    schema.noteText(m, width: 7)
    let fields = try schema.fields().fields
    #expect(fields.map(\.letter) == Array("NNLCC".utf8))
    #expect(fields.map(\.width) == [12, 24, 1, 200, 7])
    #expect(fields.map(\.decimals) == [0, 15, 0, 0, 0])
  }
}

@Suite struct ShapefileLayersTests {
  @Test func describesTheLayerOfAShapefile() throws {
    FeatureFormats.register(.shapefile)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "geopipe-layers-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("roads.shp").path
    let writer = try FeatureWriters.open(path, format: .shapefile)
    for k in 0..<3 {
      let line = CoordinateArray([Position(x: 0, y: 0), Position(x: Double(k + 1), y: 1)])
      let properties: JSONObject = ["name": .string("r\(k)"), "n": .integer(Int64(k))]
      try writer.write(Feature(geometry: .lineString(line), properties: properties))
    }
    try writer.finish()
    let head = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(512))
    let input = FormatInput(path: path, name: path, source: MemoryByteSource([]), head: head)
    let describe = try #require(FeatureFormat.shapefile.layers)
    let layers = try describe(input, ReadOptions())
    #expect(layers.count == 1)
    #expect(layers[0].name == "roads")
    #expect(layers[0].geometryType == "LineString")
    #expect(layers[0].count == 3)
    #expect(layers[0].crs == "EPSG:4326")
    #expect(layers[0].fields.map(\.name) == ["name", "n"])
    #expect(layers[0].fields.map(\.type) == ["C(2)", "N(1,0)"])
    #expect(layers[0].bounds == BBox(west: 0, south: 0, east: 3, north: 1))
  }
}
