import Foundation
import GeoPipeCore
import GeoPipeGEOS
import GeoPipeSpatialIndex
import Testing

/// `PointInAreaLocator` against GEOS's prepared `contains` and `intersects`, both ways: every
/// interior point GEOS contains, every boundary point it intersects but does not contain.
@Suite struct PointInAreaLocatorTests {
  /// A star-shaped ring around (cx, cy) with `n` vertices at random radii, counterclockwise.
  private static func star(
    _ cx: Double, _ cy: Double, radius: ClosedRange<Double>, n: Int,
    _ random: inout SplitMix64
  ) -> [Double] {
    var ring: [Double] = []
    for k in 0..<n {
      let angle = Double(k) / Double(n) * 2 * .pi
      let r = Double.random(in: radius, using: &random)
      // Snapped to a grid of 1/64 so that points can fall exactly on vertices and edges.
      ring.append(((cx + r * cos(angle)) * 64).rounded() / 64)
      ring.append(((cy + r * sin(angle)) * 64).rounded() / 64)
    }
    ring.append(ring[0])
    ring.append(ring[1])
    return ring
  }

  private static func coordinates(_ ring: [Double]) -> CoordinateArray {
    CoordinateArray(storage: ring, dimension: 2)
  }

  @Test(arguments: 0..<6)
  func agreesWithGEOSOnRandomPolygons(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let shell = Self.star(0, 0, radius: 4...10, n: 40 + Int(seed) * 30, &random)
    let hole = Self.star(0, 0, radius: 1...3, n: 12, &random).reversed2D()
    let island = Self.star(30, 5, radius: 2...6, n: 25, &random)
    let geometry = Geometry.multiPolygon([
      [Self.coordinates(shell), Self.coordinates(hole)], [Self.coordinates(island)],
    ])
    let locator = PointInAreaLocator(rings: [shell, hole, island])
    let geos = try GEOSContext()
    let prepared = try geos.prepare(geometry)
    var points: [(Double, Double)] = []
    for _ in 0..<3000 {
      points.append(
        (Double.random(in: -12...38, using: &random), Double.random(in: -12...12, using: &random)))
    }
    // On the 1/64 grid: many on vertices and edges.
    for _ in 0..<3000 {
      points.append(
        (
          Double(Int.random(in: -768...2432, using: &random)) / 64,
          Double(Int.random(in: -768...768, using: &random)) / 64
        ))
    }
    for ring in [shell, hole, island] {
      for k in stride(from: 0, to: ring.count - 2, by: 2) {
        points.append((ring[k], ring[k + 1]))
        points.append(((ring[k] + ring[k + 2]) / 2, (ring[k + 1] + ring[k + 3]) / 2))
      }
    }
    var boundary = 0
    for (x, y) in points {
      let point = Geometry.point(Position(x: x, y: y))
      let location = locator.locate(x: x, y: y)
      let contains = try prepared.contains(point)
      let intersects = try prepared.intersects(point)
      #expect((location == .interior) == contains, "\(x), \(y): \(location)")
      #expect((location != .exterior) == intersects, "\(x), \(y): \(location)")
      if location == .boundary { boundary += 1 }
    }
    // The grid and the vertices put hundreds of points on the boundary.
    #expect(boundary > 100)
  }

  @Test func decidesNearlyCollinearPointsExactly() {
    // c lies on the line through a and b to within far less than a double's rounding of the
    // floating-point determinant; the exact expansion decides.
    let a = (0.1, 0.1)
    let b = (0.3, 0.3)
    #expect(Orientation.of(a.0, a.1, b.0, b.1, 0.2, 0.2) == .collinear)
    #expect(
      Orientation.of(a.0, a.1, b.0, b.1, 0.2, 0.2.nextUp) == .counterclockwise)
    #expect(Orientation.of(a.0, a.1, b.0, b.1, 0.2, 0.2.nextDown) == .clockwise)
    #expect(Orientation.of(0, 0, 1, 0, 0.5, 0x1p-1000) == .counterclockwise)
    #expect(Orientation.of(12.5, 1, 12.5, 3, 12.5, 2) == .collinear)
  }

  @Test func emptyRingsBoundNothing() {
    let locator = PointInAreaLocator(rings: [[0, 0, 1, 1]])
    #expect(locator.locate(x: 0, y: 0) == .exterior)
  }
}

extension Array where Element == Double {
  /// A ring of x, y pairs in the opposite direction.
  fileprivate func reversed2D() -> [Double] {
    stride(from: count - 2, through: 0, by: -2).flatMap { [self[$0], self[$0 + 1]] }
  }
}
