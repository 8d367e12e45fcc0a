import Foundation
import GeoPipeClustering
import GeoPipeCore
import GeoPipeSpatialIndex
import Testing

/// `FixedRadiusNeighbours` and `KDBush.traversalRanks` against per-item tree queries: together
/// they must give what `within` gives, in `within`'s order.
@Suite("All-pairs radius search against tree queries")
struct FixedRadiusNeighboursTests {
  /// Query points in `Double` next to their `Float`-rounded stored points, as the cluster index
  /// has for cluster centroids.
  struct Items {
    var queryX: [Double] = []
    var queryY: [Double] = []
    var pointX: [Float] { queryX.map { Float($0) } }
    var pointY: [Float] { queryY.map { Float($0) } }

    func neighbours(radius: Double) -> FixedRadiusNeighbours? {
      let px = pointX
      let py = pointY
      return queryX.withUnsafeBufferPointer { qx in
        queryY.withUnsafeBufferPointer { qy in
          px.withUnsafeBufferPointer { px in
            py.withUnsafeBufferPointer { py in
              FixedRadiusNeighbours(queryX: qx, queryY: qy, pointX: px, pointY: py, radius: radius)
            }
          }
        }
      }
    }
  }

  /// Points in [0, 1]², a third of them in tight groups, some repeated exactly.
  static func items(count: Int, seed: UInt64) -> Items {
    var random = SplitMix64(seed: seed)
    var items = Items()
    let centres = (0..<6).map { _ in
      (Double.random(in: 0...1, using: &random), Double.random(in: 0...1, using: &random))
    }
    for _ in 0..<count {
      switch Int.random(in: 0..<6, using: &random) {
      case 0, 1:
        let (cx, cy) = centres[Int.random(in: 0..<centres.count, using: &random)]
        items.queryX.append(cx + Double.random(in: -1e-4...1e-4, using: &random))
        items.queryY.append(cy + Double.random(in: -1e-4...1e-4, using: &random))
      case 2 where !items.queryX.isEmpty:
        let k = Int.random(in: 0..<items.queryX.count, using: &random)
        items.queryX.append(items.queryX[k])
        items.queryY.append(items.queryY[k])
      default:
        items.queryX.append(Double.random(in: 0...1, using: &random))
        items.queryY.append(Double.random(in: 0...1, using: &random))
      }
    }
    return items
  }

  @Test(
    "every item's neighbours are the tree's within() results, in within() order by rank",
    arguments: [1e-6, 3e-5, 1e-3, 0.05, 0.7])
  func matchesTreeQueries(radius: Double) throws {
    let items = Self.items(count: 4000, seed: UInt64(radius.bitPattern))
    let tree = KDBush(xs: items.queryX, ys: items.queryY, nodeSize: 16)
    let ranks = tree.traversalRanks()
    let found = try #require(items.neighbours(radius: radius))
    var pairs = 0
    var wrong: [Int] = []
    for i in 0..<items.queryX.count {
      let expected = tree.within(x: items.queryX[i], y: items.queryY[i], radius: radius)
        .filter { $0 != i }
      let got = found.neighbours(of: i).map(Int.init).sorted { ranks[$0] < ranks[$1] }
      if got != expected { wrong.append(i) }
      pairs += expected.count
    }
    #expect(wrong.isEmpty, "\(wrong.count) items differ, such as \(wrong.prefix(5))")
    #expect(pairs > 0)
  }

  @Test("ranks order range() results too, and number the items 0..<n")
  func ranksOrderRangeResults() {
    let items = Self.items(count: 3000, seed: 11)
    let tree = KDBush(xs: items.queryX, ys: items.queryY, nodeSize: 9)
    let ranks = tree.traversalRanks()
    #expect(ranks.map(Int.init).sorted() == Array(0..<3000))
    var random = SplitMix64(seed: 12)
    for _ in 0..<100 {
      let x = Double.random(in: 0...1, using: &random)
      let y = Double.random(in: 0...1, using: &random)
      let found = tree.range(minX: x, minY: y, maxX: x + 0.3, maxY: y + 0.2)
      #expect(found == found.sorted { ranks[$0] < ranks[$1] })
    }
  }

  @Test("the cluster index falls back to tree queries when the grid cannot hold the points")
  func clusterIndexFallsBackToTreeQueries() throws {
    // An infinite longitude leaves the grid without bounds; the rest still cluster.
    let index = ClusterIndex(coordinates: [(0, 10), (.infinity, 10), (0, 10), (0, 10)])
    let clusters = index.itemsAcrossZooms().compactMap { entry -> (id: Int, count: Int)? in
      if case .cluster(let id, let count, _, _) = entry.item { (id, count) } else { nil }
    }
    let cluster = try #require(clusters.first, "no cluster formed")
    #expect(clusters.count == 1 && cluster.count == 3, "\(clusters)")
    #expect(try index.leaves(of: cluster.id).sorted() == [0, 2, 3])
    #expect(index.itemsAcrossZooms().contains { $0.item == .point(index: 1) })
  }

  @Test("no items, one item, and coordinates the grid cannot hold")
  func edgeCases() throws {
    #expect(try #require(Items().neighbours(radius: 0.1)).neighbours.isEmpty)
    let one = Items(queryX: [0.5], queryY: [0.5])
    #expect(try #require(one.neighbours(radius: 0.1)).neighbours(of: 0).isEmpty)
    let far = Items(queryX: [0, 1e300], queryY: [0, 0])
    #expect(far.neighbours(radius: 1e-6) == nil)
    let infinite = Items(queryX: [0, .infinity], queryY: [0, 0])
    #expect(infinite.neighbours(radius: 1e-6) == nil)
  }
}
