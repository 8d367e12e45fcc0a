import Foundation
import GeoPipeCore
import GeoPipeIO
import Testing

@testable import GeoPipeFlatGeobuf

/// The packed Hilbert R-tree: searches against brute force, and bounding-box reads that read
/// only a small share of the file.
@Suite struct FlatGeobufIndexTests {
  /// Random boxes (four numbers each) in [0, 1000)².
  static func boxes(_ count: Int, seed: UInt64) -> [Double] {
    var random = SplitMix64(seed: seed)
    var boxes: [Double] = []
    for _ in 0..<count {
      let x = Double.random(in: 0..<1000, using: &random)
      let y = Double.random(in: 0..<1000, using: &random)
      let w = Double.random(in: 0..<20, using: &random)
      let h = Double.random(in: 0..<20, using: &random)
      boxes += [x, y, x + w, y + h]
    }
    return boxes
  }

  @Test(arguments: [1, 2, 15, 16, 17, 255, 256, 257, 5000])
  func searchFindsExactlyTheBoxesThatMeetTheQuery(count: Int) throws {
    let boxes = Self.boxes(count, seed: UInt64(count))
    let offsets = (0..<count).map { $0 * 10 }
    for nodeSize in [2, 16] {
      let tree = PackedRTree.build(boxes: boxes, offsets: offsets, nodeSize: nodeSize)
      #expect(tree.count == PackedRTree.size(items: count, nodeSize: nodeSize))
      for query in Self.boxes(20, seed: 99).chunked() {
        let hits = try PackedRTree.search(items: count, nodeSize: nodeSize, box: query) {
          Array(tree[$0 * 40..<($0 + $1) * 40])
        }
        let expected = (0..<count).filter { k in
          boxes[4 * k] <= query[2] && boxes[4 * k + 2] >= query[0]
            && boxes[4 * k + 1] <= query[3] && boxes[4 * k + 3] >= query[1]
        }
        #expect(hits.map(\.index) == expected)
        #expect(hits.map(\.offset) == expected.map { $0 * 10 })
      }
    }
  }

  @Test func levelsFollowTheSpecification() {
    #expect(PackedRTree.levelBounds(items: 1, nodeSize: 16) == [1..<2, 0..<1])
    #expect(PackedRTree.levelBounds(items: 17, nodeSize: 16) == [3..<20, 1..<3, 0..<1])
    #expect(PackedRTree.levelBounds(items: 5, nodeSize: 1) == nil)
    #expect(PackedRTree.levelBounds(items: 0, nodeSize: 16) == nil)
  }

  @Test func hilbertValuesWalkTheCurve() {
    // Values of flatbush's (and FlatGeobuf's) JavaScript function on a 2^16 grid.
    #expect(PackedRTree.hilbert(0, 0) == 0)
    #expect(PackedRTree.hilbert(1, 0) == 1)
    #expect(PackedRTree.hilbert(1, 1) == 2)
    #expect(PackedRTree.hilbert(0, 1) == 3)
    #expect(PackedRTree.hilbert(65535, 0) == 0xFFFF_FFFF)
    #expect(PackedRTree.hilbert(12345, 54321) == 1_555_040_834)
    #expect(PackedRTree.hilbert(40000, 777) == 3_958_706_411)
  }

  /// 50,000 points spread over the world; a box of 1% of its area.
  @Test func aBoxReadReadsOnlyItsShareOfTheFile() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    var random = SplitMix64(seed: 7)
    var features: [Feature] = []
    for k in 0..<50_000 {
      let x = Double.random(in: -180..<180, using: &random)
      let y = Double.random(in: -90..<90, using: &random)
      features.append(
        Feature(
          geometry: .point(Position(x: x, y: y)),
          properties: ["k": .integer(Int64(k)), "name": .string("point \(k)")]))
    }
    let path = try scratch.write(features, to: "points.fgb")
    let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    let box = BBox(west: 10, south: 20, east: 46, north: 38)
    let (found, bytesRead) = try readAll(path, bbox: box)
    let expected = features.filter { feature in
      guard case .point(let p) = feature.geometry else { return false }
      return box.contains(x: p.x, y: p.y)
    }
    #expect(expected.count > 250)
    #expect(Set(found) == Set(expected))
    #expect(found.count == expected.count)
    #expect(bytesRead < size / 20, "read \(bytesRead) of \(size) bytes")
    let all = try readAll(path)
    #expect(all.bytesRead == size)
    #expect(Set(all.features) == Set(features))
  }

  @Test func aBoxAcrossTheAntimeridianSearchesBothSides() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let xs: [Double] = [-179.5, -100, 0, 100, 179.5]
    let features = xs.map { Feature(geometry: .point(Position(x: $0, y: 0)), properties: [:]) }
    let path = try scratch.write(features, to: "dateline.fgb")
    let found = try readAll(path, bbox: BBox(west: 170, south: -1, east: -170, north: 1))
    let foundXs = found.features.compactMap { feature -> Double? in
      if case .point(let p) = feature.geometry { p.x } else { nil }
    }
    #expect(Set(foundXs) == [-179.5, 179.5])
  }
}

extension Array where Element == Double {
  /// Groups of four.
  func chunked() -> [[Double]] {
    stride(from: 0, to: count, by: 4).map { Array(self[$0..<$0 + 4]) }
  }
}
