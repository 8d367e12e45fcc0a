import GeoPipeCore
import Testing

@testable import GeoPipeStageKit
@testable import GeoPipeStages

@Suite struct FilterTests {
  private func line(_ points: [(Double, Double)]) -> Geometry {
    .lineString(CoordinateArray(points.map { Position(x: $0.0, y: $0.1) }))
  }

  @Test func boxIntersectionIsExact() {
    let box = BBox(west: 0, south: 0, east: 10, north: 10)
    #expect(GeometryIntersection.intersects(.point(Position(x: 5, y: 5)), box))
    #expect(!GeometryIntersection.intersects(.point(Position(x: 11, y: 5)), box))
    // Crosses the box without a vertex inside it.
    #expect(GeometryIntersection.intersects(line([(-5, 5), (15, 5)]), box))
    // Its bounds overlap the box, but the line passes beside it.
    #expect(!GeometryIntersection.intersects(line([(-5, 20), (20, 11), (11, -5)]), box))
    // A polygon that contains the whole box.
    let big = Geometry.polygon([
      CoordinateArray([
        Position(x: -50, y: -50), Position(x: 50, y: -50), Position(x: 50, y: 50),
        Position(x: -50, y: 50), Position(x: -50, y: -50),
      ])
    ])
    #expect(GeometryIntersection.intersects(big, box))
  }

  @Test func boxesCrossingTheAntimeridian() {
    let box = BBox(west: 170, south: -10, east: -170, north: 10)
    #expect(GeometryIntersection.intersects(.point(Position(x: 175, y: 0)), box))
    #expect(GeometryIntersection.intersects(.point(Position(x: -175, y: 0)), box))
    #expect(!GeometryIntersection.intersects(.point(Position(x: 0, y: 0)), box))
  }

  @Test func filterStageAppliesEveryCondition() throws {
    var values = OptionValues()
    values.set("where", .string("n > 1"))
    values.set("geometry-type", .list(["Point"]))
    let stage = try FilterStage(values)
    var kept: [Feature] = []
    for n in 0..<4 {
      let geometry: Geometry? = n == 3 ? nil : .point(Position(x: 0, y: 0))
      try stage.process(Feature(geometry: geometry, properties: ["n": .integer(Int64(n))])) {
        kept.append($0)
      }
    }
    #expect(kept.map { $0.properties?["n"] } == [.integer(2)])
  }
}
