import Foundation
import GeoPipeCore
import GeoPipeSpatialIndex
import Testing

/// KDBush against a brute-force scan of the same points.
///
/// Both ways: nothing missing, nothing extra, nothing twice. The tree stores `Float`
/// coordinates, so the scan compares the `Float`-rounded values with the `Double` query.
@Suite("KDBush against a brute-force oracle")
struct KDBushTests {
  @Test("range returns exactly the points inside random boxes", arguments: [2, 9, 64])
  func rangeMatchesBruteForce(nodeSize: Int) {
    var random = SplitMix64(seed: 0x6B64_6275_7368 &+ UInt64(nodeSize))
    let points = PointCloud(count: 5000, using: &random)
    let tree = KDBush(xs: points.xs, ys: points.ys, nodeSize: nodeSize)
    var sizes: [Int] = []
    for query in 0..<250 {
      let (minX, minY, maxX, maxY) = points.randomBox(using: &random)
      let found = tree.range(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
      let expected = points.indices { x, y in x >= minX && x <= maxX && y >= minY && y <= maxY }
      expectSameSet(found, expected, "box \(query) [\(minX), \(minY), \(maxX), \(maxY)]")
      sizes.append(expected.count)
    }
    // The queries range from empty to most of the points.
    #expect(
      sizes.count(where: { $0 == 0 }) >= 10 && sizes.count(where: { $0 > 500 }) >= 10,
      "\(sizes.sorted())")
  }

  @Test("within returns exactly the points inside random circles", arguments: [2, 9, 64])
  func withinMatchesBruteForce(nodeSize: Int) {
    var random = SplitMix64(seed: 0x7769_7468_696E &+ UInt64(nodeSize))
    let points = PointCloud(count: 5000, using: &random)
    let tree = KDBush(xs: points.xs, ys: points.ys, nodeSize: nodeSize)
    var sizes: [Int] = []
    for query in 0..<250 {
      let (qx, qy) = points.randomCentre(using: &random)
      let r = Self.logUniform(1e-4, 100, using: &random)
      let found = tree.within(x: qx, y: qy, radius: r)
      let expected = points.indices { x, y in (x - qx) * (x - qx) + (y - qy) * (y - qy) <= r * r }
      expectSameSet(found, expected, "circle \(query) at \(qx), \(qy) radius \(r)")
      sizes.append(expected.count)
    }
    // The queries range from empty to most of the points.
    #expect(
      sizes.count(where: { $0 == 0 }) >= 10 && sizes.count(where: { $0 > 500 }) >= 10,
      "\(sizes.sorted())")
  }

  @Test("box edges and a zero radius include the points exactly on them")
  func edgesAreInclusive() {
    var random = SplitMix64(seed: 42)
    let points = PointCloud(count: 2000, using: &random)
    let tree = KDBush(xs: points.xs, ys: points.ys, nodeSize: 16)
    for _ in 0..<200 {
      let a = Int.random(in: 0..<points.count, using: &random)
      let b = Int.random(in: 0..<points.count, using: &random)
      let (minX, maxX) = (
        min(points.storedX[a], points.storedX[b]), max(points.storedX[a], points.storedX[b])
      )
      let (minY, maxY) = (
        min(points.storedY[a], points.storedY[b]), max(points.storedY[a], points.storedY[b])
      )
      let found = tree.range(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
      let expected = points.indices { x, y in x >= minX && x <= maxX && y >= minY && y <= maxY }
      expectSameSet(found, expected, "box with corners at points \(a) and \(b)")
      let onPoint = tree.within(x: points.storedX[a], y: points.storedY[a], radius: 0)
      let same = points.indices { x, y in x == points.storedX[a] && y == points.storedY[a] }
      expectSameSet(onPoint, same, "zero radius at point \(a)")
      let degenerate = tree.range(
        minX: points.storedX[a], minY: points.storedY[a], maxX: points.storedX[a],
        maxY: points.storedY[a])
      expectSameSet(degenerate, same, "zero-size box at point \(a)")
    }
  }

  @Test("queries see the Float-rounded coordinates, not the Double input")
  func queriesUseFloatCoordinates() {
    let tree = KDBush(xs: [0.1], ys: [0.1])
    let stored = Double(Float(0.1))
    #expect(stored > 0.1)
    #expect(tree.range(minX: stored, minY: stored, maxX: 1, maxY: 1) == [0])
    #expect(tree.range(minX: 0, minY: 0, maxX: 0.1, maxY: 0.1).isEmpty)
    #expect(tree.within(x: stored, y: stored, radius: 0) == [0])
    #expect(tree.within(x: 0.1, y: 0.1, radius: 0).isEmpty)
  }

  @Test("the tree holds every item once, kd-sorted around each node's median", arguments: [2, 64])
  func treeIsKDSorted(nodeSize: Int) {
    var random = SplitMix64(seed: 7)
    let points = PointCloud(count: 3000, using: &random)
    let tree = KDBush(xs: points.xs, ys: points.ys, nodeSize: nodeSize)
    #expect(tree.ids.map(Int.init).sorted() == Array(0..<points.count))
    let placed = tree.ids.indices.allSatisfy { k in
      let id = Int(tree.ids[k])
      return tree.coords[2 * k] == Float(points.xs[id])
        && tree.coords[2 * k + 1] == Float(points.ys[id])
    }
    #expect(placed)
    var misplaced = 0
    func check(_ left: Int, _ right: Int, _ axis: Int) {
      if right - left <= tree.nodeSize { return }
      let m = (left + right) >> 1
      let median = tree.coords[2 * m + axis]
      for i in left..<m where tree.coords[2 * i + axis] > median { misplaced += 1 }
      for i in m + 1...right where tree.coords[2 * i + axis] < median { misplaced += 1 }
      check(left, m - 1, 1 - axis)
      check(m + 1, right, 1 - axis)
    }
    check(0, tree.count - 1, 0)
    #expect(misplaced == 0)
  }

  @Test("an empty index finds nothing")
  func emptyIndexFindsNothing() {
    let tree = KDBush(xs: [Double](), ys: [Double]())
    #expect(tree.count == 0)
    #expect(tree.range(minX: -1e9, minY: -1e9, maxX: 1e9, maxY: 1e9).isEmpty)
    #expect(tree.within(x: 0, y: 0, radius: 1e9).isEmpty)
  }

  @Test("an index of one point finds it only when the query covers it")
  func singlePoint() {
    let tree = KDBush(xs: [3.5], ys: [-2.25])
    #expect(tree.range(minX: 3, minY: -3, maxX: 4, maxY: -2) == [0])
    #expect(tree.range(minX: 3.5, minY: -2.25, maxX: 3.5, maxY: -2.25) == [0])
    #expect(tree.range(minX: 3.6, minY: -3, maxX: 4, maxY: -2).isEmpty)
    #expect(tree.range(minX: 3, minY: -2.2, maxX: 4, maxY: -2).isEmpty)
    #expect(tree.within(x: 3.5, y: -1.25, radius: 1) == [0])
    #expect(tree.within(x: 3.5, y: -1.25, radius: 0.999).isEmpty)
  }

  @Test("identical points are all found, each once", arguments: [2, 64])
  func identicalPoints(nodeSize: Int) {
    let count = 1500
    let tree = KDBush(
      xs: Array(repeating: 12.25, count: count), ys: Array(repeating: 48.5, count: count),
      nodeSize: nodeSize)
    let all = Set(0..<count)
    expectSameSet(tree.range(minX: 12.25, minY: 48.5, maxX: 12.25, maxY: 48.5), all, "range")
    expectSameSet(tree.within(x: 12.25, y: 48.5, radius: 0), all, "within")
    expectSameSet(tree.within(x: 13.25, y: 48.5, radius: 1), all, "within at the radius")
    #expect(tree.range(minX: 12.26, minY: 0, maxX: 20, maxY: 90).isEmpty)
    #expect(tree.within(x: 13.25, y: 48.5, radius: 0.99).isEmpty)
  }

  /// A number between `low` and `high` whose logarithm is uniform: all scales equally likely.
  static func logUniform(
    _ low: Double, _ high: Double, using random: inout some RandomNumberGenerator
  ) -> Double {
    low * pow(high / low, Double.random(in: 0...1, using: &random))
  }
}

/// Records how the ids found differ from the expected set: missing, extra or repeated.
func expectSameSet(
  _ found: [Int], _ expected: Set<Int>, _ what: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  let foundSet = Set(found)
  let missing = expected.subtracting(foundSet)
  let extra = foundSet.subtracting(expected)
  #expect(
    missing.isEmpty, "\(what): \(missing.count) missing, such as \(missing.sorted().prefix(5))",
    sourceLocation: sourceLocation)
  #expect(
    extra.isEmpty, "\(what): \(extra.count) extra, such as \(extra.sorted().prefix(5))",
    sourceLocation: sourceLocation)
  #expect(
    found.count == foundSet.count, "\(what): \(found.count - foundSet.count) found twice",
    sourceLocation: sourceLocation)
}

/// Random points that look like places: spread over the world, dense clusters, and repeats.
struct PointCloud {
  var xs: [Double] = []
  var ys: [Double] = []
  /// The coordinates as the tree stores them.
  var storedX: [Double] = []
  var storedY: [Double] = []

  var count: Int { xs.count }

  init(count: Int, using random: inout some RandomNumberGenerator) {
    let centres = (0..<8).map { _ in
      (Double.random(in: -170...170, using: &random), Double.random(in: -80...80, using: &random))
    }
    for _ in 0..<count {
      let (x, y): (Double, Double)
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<5:
        (x, y) = (
          Double.random(in: -180...180, using: &random),
          Double.random(in: -90...90, using: &random)
        )
      case 5..<8:
        let (cx, cy) = centres[Int.random(in: 0..<centres.count, using: &random)]
        (x, y) = (
          cx + Double.random(in: -0.5...0.5, using: &random),
          cy + Double.random(in: -0.5...0.5, using: &random)
        )
      case 8:
        // A coarse grid: many ties on each axis.
        (x, y) = (
          Double(Int.random(in: -18...18, using: &random)) * 10,
          Double(Int.random(in: -9...9, using: &random)) * 10
        )
      default:
        // A repeat of an earlier point.
        let k = xs.indices.randomElement(using: &random)
        (x, y) = k.map { (xs[$0], ys[$0]) } ?? (0, 0)
      }
      xs.append(x)
      ys.append(y)
    }
    storedX = xs.map { Double(Float($0)) }
    storedY = ys.map { Double(Float($0)) }
  }

  /// The points whose stored coordinates satisfy `test`.
  func indices(where test: (Double, Double) -> Bool) -> Set<Int> {
    Set(xs.indices.filter { test(storedX[$0], storedY[$0]) })
  }

  /// A box from a thousandth of a degree to the whole world wide, often with a point on an edge.
  func randomBox(using random: inout some RandomNumberGenerator) -> (
    Double, Double, Double, Double
  ) {
    let (cx, cy) = randomCentre(using: &random)
    let w = KDBushTests.logUniform(1e-3, 400, using: &random)
    let h = w * Double.random(in: 0.25...1, using: &random)
    return (cx, cy - h * Double.random(in: 0...1, using: &random), cx + w, cy + h)
  }

  /// Anywhere, or at a point's stored position half of the time.
  func randomCentre(using random: inout some RandomNumberGenerator) -> (Double, Double) {
    if Bool.random(using: &random), let k = xs.indices.randomElement(using: &random) {
      return (storedX[k], storedY[k])
    }
    return (
      Double.random(in: -190...190, using: &random), Double.random(in: -95...95, using: &random)
    )
  }
}
