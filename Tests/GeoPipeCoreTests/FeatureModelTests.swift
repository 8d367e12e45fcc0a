import GeoPipeCore
import Testing

@Suite struct FeatureModelTests {
  @Test func objectKeepsInsertionOrder() {
    var object = JSONObject()
    object["b"] = .integer(1)
    object["a"] = .integer(2)
    object["c"] = .null
    #expect(object.keys == ["b", "a", "c"])
    object["a"] = nil
    #expect(object.keys == ["b", "c"])
  }

  @Test func coordinateArrayIsContiguousAndWidens() {
    var line = CoordinateArray()
    line.append(Position(x: 1, y: 2))
    line.append(Position(x: 3, y: 4, z: 5))
    #expect(line.dimension == 3)
    #expect(line.storage.count == 6)
    #expect(line[0].hasZ == false)
    #expect(line[1] == Position(x: 3, y: 4, z: 5))
  }

  @Test func positionsCompareBitPatterns() {
    #expect(Position(x: 0, y: 0) != Position(x: -0.0, y: 0))
    #expect(Position(x: 1, y: 2) == Position(x: 1, y: 2))
  }

  @Test func rewindMakesExteriorCounterClockwiseAndHolesClockwise() {
    let clockwise = CoordinateArray([
      Position(x: 0, y: 0), Position(x: 0, y: 10), Position(x: 10, y: 10), Position(x: 10, y: 0),
      Position(x: 0, y: 0),
    ])
    let hole = CoordinateArray([
      Position(x: 2, y: 2), Position(x: 4, y: 2), Position(x: 4, y: 4), Position(x: 2, y: 2),
    ])
    guard case .polygon(let rings) = Geometry.polygon([clockwise, hole]).rewound() else {
      Issue.record("not a polygon")
      return
    }
    #expect(rings[0].signedDoubleArea > 0)
    #expect(rings[1].signedDoubleArea < 0)
    #expect(rings[0][1] == Position(x: 10, y: 0))
  }

  @Test func bboxHandlesTheAntimeridian() {
    let box = BBox(west: 170, south: -10, east: -170, north: 10)
    #expect(box.crossesAntimeridian)
    #expect(box.contains(x: 175, y: 0))
    #expect(box.contains(x: -175, y: 0))
    #expect(!box.contains(x: 0, y: 0))
  }

  @Test func geometryBoundsCoverEveryPosition() {
    let g = Geometry.geometryCollection([
      .point(Position(x: -5, y: 3)),
      .lineString(CoordinateArray([Position(x: 1, y: -2), Position(x: 7, y: 9)])),
    ])
    #expect(g.bbox == BBox(west: -5, south: -2, east: 7, north: 9))
  }

  @Test func segmentParametersClipToTheBox() throws {
    let box = BBox(west: 0, south: 0, east: 10, north: 10)
    // Across the box from x = -5 to x = 15: inside from a quarter to three quarters.
    let across = try #require(box.segmentParameters(x0: -5, y0: 5, x1: 15, y1: 5))
    #expect(across.0 == 0.25 && across.1 == 0.75)
    let inside = try #require(box.segmentParameters(x0: 1, y0: 1, x1: 9, y1: 9))
    #expect(inside.0 == 0 && inside.1 == 1)
    // Outside, beside the box, and parallel to an edge outside it.
    #expect(box.segmentParameters(x0: -5, y0: 20, x1: 20, y1: 12) == nil)
    #expect(box.segmentParameters(x0: 11, y0: 0, x1: 11, y1: 10) == nil)
    // Touching a corner.
    let corner = try #require(box.segmentParameters(x0: 10, y0: 10, x1: 20, y1: 20))
    #expect(corner.0 == 0 && corner.1 == 0)
  }
}
