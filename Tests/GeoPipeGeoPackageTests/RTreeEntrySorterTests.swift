import Foundation
import GeoPipeCore
import GeoPipeIO
import Testing

@testable import GeoPipeGeoPackage

@Suite struct RTreeEntrySorterTests {
  private func entry(_ key: Int64, _ id: Int64) -> RTreeEntry {
    RTreeEntry(key: key, id: id, box: GeoPackageRTree.Box(minX: 0, maxX: 1, minY: 0, maxY: 1))
  }

  /// Sorted output of `keys` through a sorter with runs of `chunk` entries: (key, id) pairs.
  private func sorted(_ keys: [Int64], chunk: Int) throws -> [[Int64]] {
    let sorter = RTreeEntrySorter(
      folder: ScratchFile.temporaryFolder, output: "test.gpkg", chunk: chunk)
    for (k, key) in keys.enumerated() { try sorter.append(entry(key, Int64(k))) }
    var out: [[Int64]] = []
    try sorter.sorted { out.append([$0.key, $0.id]) }
    return out
  }

  @Test(arguments: [2, 3, 7, 100, 10_000])
  func runsMergeIntoOneStableOrder(chunk: Int) throws {
    var generator = SplitMix64(seed: 42)
    let keys = (0..<1000).map { _ in Int64(generator.next() % 50) }
    let expected = keys.enumerated().sorted { ($0.element, $0.offset) < ($1.element, $1.offset) }
      .map { [$0.element, Int64($0.offset)] }
    #expect(try sorted(keys, chunk: chunk) == expected)
  }

  @Test func nothingAppendedIsNothingSorted() throws {
    #expect(try sorted([], chunk: 4).isEmpty)
  }
}
