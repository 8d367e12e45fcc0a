import GeoPipeSpatialIndex
import Testing

/// The packed R-tree finds exactly the boxes a brute-force scan finds, in index order.
@Suite struct BoxTreeTests {
  @Test(arguments: [0, 1, 2, 15, 16, 17, 257, 5000])
  func searchFindsWhatAScanFinds(count: Int) {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(count)
    func random() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(state >> 11) / Double(1 << 53)
    }
    let boxes = (0..<count).map { _ -> BoxTree.Box in
      let x = random() * 360 - 180
      let y = random() * 180 - 90
      return BoxTree.Box(minX: x, minY: y, maxX: x + random() * 20, maxY: y + random() * 10)
    }
    let tree = BoxTree(boxes, nodeSize: 4)
    for _ in 0..<200 {
      let x = random() * 360 - 180
      let y = random() * 180 - 90
      let query = BoxTree.Box(minX: x, minY: y, maxX: x + random() * 40, maxY: y + random() * 30)
      let expected = boxes.indices.filter { boxes[$0].meets(query) }
      #expect(tree.search(query) == expected)
    }
    // A point query on a box's corner meets it.
    if let first = boxes.first {
      let corner = BoxTree.Box(
        minX: first.maxX, minY: first.maxY, maxX: first.maxX, maxY: first.maxY)
      #expect(tree.search(corner).contains(0))
    }
  }
}
