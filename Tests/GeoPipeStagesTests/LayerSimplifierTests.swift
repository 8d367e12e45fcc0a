import GeoPipeCore
import GeoPipeGeometry
import Testing

/// Visvalingam, weighted Visvalingam and Douglas-Peucker ranks, the layer-wide share, shared
/// borders and keep-shapes, on shapes small enough to work out by hand.
@Suite struct LayerSimplifierTests {
  static func line(_ points: [(Double, Double)]) -> CoordinateArray {
    CoordinateArray(points.map { Position(x: $0.0, y: $0.1) })
  }

  static func points(_ geometry: Geometry?) -> [[Double]] {
    switch geometry {
    case .lineString(let c)?: c.map { [$0.x, $0.y] }
    case .polygon(let rings)?: rings.flatMap { $0.map { [$0.x, $0.y] } }
    default: []
    }
  }

  // Effective areas: (1,1) 1; (2,0) 0.55; (3,0.1) 0.1. Removing (3,0.1) first makes (2,0)'s
  // triangle 1, tied with (1,1), which goes first (the earlier vertex); then (2,0)'s area is 0,
  // below the last removed, so its rank is 1 as well.
  static let zigzag = line([(0, 0), (1, 1), (2, 0), (3, 0.1), (4, 0)])

  @Test func visvalingamRemovesTheSmallestTriangleFirst() throws {
    let third = try LayerSimplifier.simplify(
      [.lineString(Self.zigzag)], metric: .visvalingam, amount: .share(1.0 / 3))
    #expect(Self.points(third[0]) == [[0, 0], [1, 1], [4, 0]])
    let none = try LayerSimplifier.simplify(
      [.lineString(Self.zigzag)], metric: .visvalingam, amount: .share(0))
    #expect(Self.points(none[0]) == [[0, 0], [4, 0]])
    let all = try LayerSimplifier.simplify(
      [.lineString(Self.zigzag)], metric: .visvalingam, amount: .share(1))
    #expect(Self.points(all[0]).count == 5)
  }

  @Test func visvalingamToleranceIsMapshapersLinearEquivalent() throws {
    // 0.65 × √1 = 0.65 keeps (1,1) and (2,0); 0.65 × √0.1 ≈ 0.21 does not keep (3,0.1).
    let kept = try LayerSimplifier.simplify(
      [.lineString(Self.zigzag)], metric: .visvalingam, amount: .tolerance(0.6))
    #expect(Self.points(kept[0]) == [[0, 0], [1, 1], [2, 0], [4, 0]])
    let fewer = try LayerSimplifier.simplify(
      [.lineString(Self.zigzag)], metric: .visvalingam, amount: .tolerance(0.66))
    #expect(Self.points(fewer[0]) == [[0, 0], [4, 0]])
  }

  @Test func weightingRemovesSpikesBeforeRightAngles() throws {
    // The spike at (6,6) makes a larger triangle (6) than the right angle at (2,2) (5 once
    // (4,0) has gone), so plain Visvalingam keeps the spike; weighted by 1 - 0.7 cos, the
    // spike's sharp angle ranks it below the right angle.
    let shape = Self.line([(0, 0), (2, 2), (4, 0), (5, 0), (6, 6), (7, 0)])
    let plain = try LayerSimplifier.simplify(
      [.lineString(shape)], metric: .visvalingam, amount: .share(0.5))
    #expect(Self.points(plain[0]) == [[0, 0], [5, 0], [6, 6], [7, 0]])
    let weighted = try LayerSimplifier.simplify(
      [.lineString(shape)], metric: .weightedVisvalingam(weighting: 0.7), amount: .share(0.5))
    #expect(Self.points(weighted[0]) == [[0, 0], [2, 2], [5, 0], [7, 0]])
  }

  @Test func douglasPeuckerRanksMatchTheTolerance() throws {
    let shape = Self.line([(0, 0), (1, 0.5), (2, -0.2), (3, 2), (4, 0)])
    for tolerance in [0.1, 0.4, 0.6, 1.9, 2.1] {
      let ranked = try LayerSimplifier.simplify(
        [.lineString(shape)], metric: .douglasPeucker, amount: .tolerance(tolerance))
      let plain = LineSimplifier.douglasPeucker(.lineString(shape), tolerance: tolerance)
      #expect(Self.points(ranked[0]) == Self.points(plain), "tolerance \(tolerance)")
    }
  }

  @Test func shareIsCountedOverTheWholeLayer() throws {
    // A busy line and a nearly straight one: the share goes to the busy one's vertices.
    let busy = Self.line([(0, 0), (1, 5), (2, -5), (3, 5), (4, 0)])
    let calm = Self.line([(0, 10), (1, 10.01), (2, 10), (3, 10.01), (4, 10)])
    let out = try LayerSimplifier.simplify(
      [.lineString(busy), .lineString(calm)], metric: .visvalingam, amount: .share(0.5))
    #expect(Self.points(out[0]).count == 5)
    #expect(Self.points(out[1]) == [[0, 10], [4, 10]])
  }

  @Test func sharedBordersKeepTheSameVerticesOnBothSides() throws {
    // Two squares meeting along x = 10, whose border zigzags; the right square starts its
    // ring elsewhere and runs the other way, so its own ranking would differ. (Each keeps its
    // shape: at low shares a square's other corners would go, and it with them.)
    var border: [(Double, Double)] = []
    for k in 0...20 { border.append((10 + (k % 3 == 0 ? 0.3 : -0.2) * Double(k % 4), Double(k))) }
    let left = Self.line([(0, 0)] + border + [(0, 20), (0, 0)])
    let right = Self.line([(20, 0), (20, 20)] + border.reversed() + [(20, 0)])
    for share in [0.0, 0.1, 0.3, 0.5, 0.8, 1.0] {
      let out = try LayerSimplifier.simplify(
        [.polygon([left]), .polygon([right])], metric: .weightedVisvalingam(weighting: 0.7),
        amount: .share(share), keepShapes: true, sharedBorders: true)
      #expect(out[0] != nil && out[1] != nil, "share \(share)")
      let onBorder = Set(border.map { [$0.0, $0.1] })
      let a = Set(Self.points(out[0]).filter(onBorder.contains))
      let b = Set(Self.points(out[1]).filter(onBorder.contains))
      #expect(a == b, "share \(share)")
      #expect(a.contains([border[0].0, border[0].1]) && a.contains([border[20].0, border[20].1]))
    }
  }

  @Test func keepShapesKeepsSmallRings() throws {
    let island = Self.line([(0, 0), (0.1, 0), (0.1, 0.1), (0.05, 0.12), (0, 0.1), (0, 0)])
    let coast = Self.line((0...40).map { (Double($0), 5 + Double($0 % 2)) } + [(40, 10), (0, 5)])
    let dropped = try LayerSimplifier.simplify(
      [.polygon([island]), .lineString(coast)], metric: .visvalingam, amount: .share(0.1))
    #expect(dropped[0] == nil)
    let kept = try LayerSimplifier.simplify(
      [.polygon([island]), .lineString(coast)], metric: .visvalingam, amount: .share(0.1),
      keepShapes: true)
    guard case .polygon(let rings)? = kept[0] else {
      Issue.record("the island went: \(String(describing: kept[0]))")
      return
    }
    #expect(rings[0].count >= 4 && rings[0].signedDoubleArea != 0)
  }

  @Test func rejectsCoordinatesThatAreNotFinite() {
    let bad = Self.line([(0, 0), (.nan, 1), (2, 0)])
    #expect(throws: LayerSimplifier.NonFiniteCoordinate.self) {
      _ = try LayerSimplifier.simplify(
        [nil, .lineString(bad)], metric: .visvalingam, amount: .share(0.5))
    }
  }
}
