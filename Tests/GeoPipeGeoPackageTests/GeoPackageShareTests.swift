import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite
import Testing

@testable import GeoPipeGeoPackage

/// A shard of a GeoPackage table reads the rows `InputShare.records(count:)` gives it, in fid
/// order, with gaps in the fids: shard readers laid end to end read the whole table once.
@Suite struct GeoPackageShareTests {
  /// `GeoPackageReaderTests.grid`'s 400 points, with gaps in their fids (the first and last
  /// rows deleted too).
  static func tableWithGaps(in folder: URL) throws -> String {
    let path = try GeoPackageReaderTests.grid(in: folder)
    let database = try SQLiteDatabase(path: path)
    // The R-tree's delete trigger calls a GeoPackage SQL function plain SQLite does not have.
    try database.execute("DROP TRIGGER rtree_grid_geom_delete")
    try database.execute(
      "DELETE FROM grid WHERE fid IN (1, 2, 400) OR fid BETWEEN 40 AND 120 OR fid % 7 = 0")
    return path
  }

  static func ids(_ path: String, bbox: BBox? = nil, share: InputShare? = nil) throws -> [Int64] {
    var options = ReadOptions()
    options.bbox = bbox
    let reader = try GeoPackageReader(path: path, name: "grid.gpkg", options: options, share: share)
    var ids: [Int64] = []
    while let feature = try reader.next() {
      if case .integer(let id) = feature.id { ids.append(id) }
    }
    return ids
  }

  @Test(arguments: [1, 2, 3, 7, 10, 500])
  func sharesReadTheirRowsInFidOrder(count: Int) throws {
    try withFolder { folder in
      let path = try Self.tableWithGaps(in: folder)
      let size = try FeatureReaders.shareSizes([path])[0]
      for bbox in [nil, BBox(west: -20, south: 5, east: 30, north: 40)] {
        let whole = try Self.ids(path, bbox: bbox)
        #expect(whole == whole.sorted())
        var all: [Int64] = []
        for index in 0..<count {
          let share = try Shard(index: index, count: count).shares(of: [size])[0]
          let ids = try Self.ids(path, bbox: bbox, share: share)
          if bbox == nil {
            // Exactly its rows of the table, by number in fid order.
            #expect(ids == Array(whole[share.records(count: whole.count)]))
          }
          all += ids
        }
        #expect(all == whole, "\(count) shards, bbox \(String(describing: bbox))")
      }
    }
  }

  private func withFolder(_ body: (URL) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("gpkg-share-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try body(folder)
  }
}
