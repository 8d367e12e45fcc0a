import Foundation
import GeoPipeCore
import GeoPipeGEOS
import Testing

@testable import GeoPipeTiles

/// The quick validity proof never calls a polygon valid that GEOS rejects, and proves most
/// valid ones.
@Suite struct RoundedPolygonCheckTests {
  /// A star-shaped ring of `points` around (cx, cy), rounded to whole units, as flat x, y.
  static func ring(
    _ random: inout SplitMix64, cx: Double, cy: Double, radius: Double, points: Int,
    clockwise: Bool
  ) -> [Int32] {
    var ring: [Int32] = []
    for k in 0..<points {
      let angle = (clockwise ? -2 : 2) * Double.pi * Double(k) / Double(points)
      let r = radius * (0.4 + 0.6 * random.unit())
      let x = Int32((cx + r * cos(angle)).rounded())
      let y = Int32((cy + r * sin(angle)).rounded())
      // Repeated points are dropped, as when tiles are rounded.
      if ring.count >= 2 && ring[ring.count - 2] == x && ring[ring.count - 1] == y { continue }
      ring.append(x)
      ring.append(y)
    }
    return ring
  }

  static func randomPolygons(_ random: inout SplitMix64) -> [[[Int32]]] {
    var polygons: [[[Int32]]] = []
    let scale = [3.0, 8, 30, 200][Int.random(in: 0...3, using: &random)]
    for _ in 0..<Int.random(in: 1...3, using: &random) {
      let cx = Double(Int.random(in: -2...2, using: &random)) * scale * 1.5
      let cy = Double(Int.random(in: -2...2, using: &random)) * scale * 1.5
      var rings = [
        ring(
          &random, cx: cx, cy: cy, radius: scale, points: Int.random(in: 3...40, using: &random),
          clockwise: false)
      ]
      for _ in 0..<Int.random(in: 0...2, using: &random) {
        rings.append(
          ring(
            &random, cx: cx + (random.unit() - 0.5) * scale * 0.6,
            cy: cy + (random.unit() - 0.5) * scale * 0.6, radius: scale * 0.25,
            points: Int.random(in: 3...12, using: &random), clockwise: true))
      }
      polygons.append(rings)
    }
    return polygons
  }

  static func geometry(_ polygons: [[[Int32]]]) -> Geometry {
    .multiPolygon(
      polygons.map { rings in
        rings.map { ring in
          var storage = ring.map(Double.init)
          storage += [storage[0], storage[1]]
          return CoordinateArray(storage: storage, dimension: 2)
        }
      })
  }

  @Test func neverCallsAnInvalidPolygonValid() throws {
    let geos = try GEOSContext()
    var random = SplitMix64(seed: 4096)
    var valid = 0
    var proved = 0
    var invalid = 0
    for n in 0..<4000 {
      let polygons = Self.randomPolygons(&random)
      // Rings that rounding left under three points are dropped before this check.
      if polygons.contains(where: { $0.contains { $0.count < 6 } }) { continue }
      let quick = RoundedPolygonCheck.isCertainlyValid(polygons)
      let truth = try geos.isValid(Self.geometry(polygons))
      if quick { #expect(truth, "case \(n): \(polygons)") }
      if truth { valid += 1 } else { invalid += 1 }
      if quick && truth { proved += 1 }
    }
    // The random shapes include both kinds, and most valid ones are proved without GEOS.
    #expect(invalid > 500 && valid > 500, "\(valid) valid, \(invalid) invalid")
    #expect(Double(proved) > 0.8 * Double(valid), "\(proved) of \(valid) proved")
  }

  @Test func refusesTouchingRingsSpikesAndNesting() {
    let square: [Int32] = [0, 0, 10, 0, 10, 10, 0, 10]
    #expect(RoundedPolygonCheck.isCertainlyValid([[square]]))
    // A hole touching the exterior at a vertex, a spike, a hole outside, nested exteriors.
    #expect(!RoundedPolygonCheck.isCertainlyValid([[square, [0, 0, 5, 2, 2, 5]]]))
    #expect(!RoundedPolygonCheck.isCertainlyValid([[[0, 0, 10, 0, 5, 0, 10, 10, 0, 10]]]))
    #expect(!RoundedPolygonCheck.isCertainlyValid([[square, [20, 20, 22, 20, 21, 22]]]))
    #expect(!RoundedPolygonCheck.isCertainlyValid([[square], [[2, 2, 4, 2, 3, 4]]]))
    // An island in a lake is fine.
    #expect(
      RoundedPolygonCheck.isCertainlyValid([
        [square, [2, 2, 8, 2, 8, 8, 2, 8]], [[4, 4, 6, 4, 5, 6]],
      ]))
  }
}
