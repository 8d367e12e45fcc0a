import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite
import Testing

@testable import GeoPipeGeoPackage

/// A shard of a GeoPackage table reads the rows `InputShare.records(count:)` gives it, in fid
/// order, with gaps in the fids: shard readers laid end to end read the whole table once.
@Suite struct GeoPackageShareTests {
  /// A table of 300 points whose fids have gaps (the first and last rows deleted too).
  static func tableWithGaps(in folder: URL) throws -> String {
    let path = folder.appendingPathComponent("gaps.gpkg").path
    let writer = try GeoPackage.format.create?(
      FormatOutput(path: path, file: try OutputFile(path: path)), WriteOptions())
    for k in 0..<300 {
      try writer?.write(
        Feature(
          geometry: .point(Position(x: Double(k % 120) - 60, y: Double(k % 50))),
          properties: ["k": .integer(Int64(k))]))
    }
    try writer?.finish()
    let database = try SQLiteDatabase(path: path)
    // The R-tree's triggers call GeoPackage SQL functions that plain SQLite does not have.
    for suffix in ["insert", "delete"] + (1...7).map({ "update\($0)" }) {
      try database.execute("DROP TRIGGER IF EXISTS rtree_gaps_geom_\(suffix)")
    }
    try database.execute(
      "DELETE FROM gaps WHERE fid IN (1, 2, 300) OR fid BETWEEN 40 AND 120 OR fid % 7 = 0")
    return path
  }

  static func ids(_ path: String, bbox: BBox? = nil, share: InputShare? = nil) throws -> [Int64] {
    var options = ReadOptions()
    options.bbox = bbox
    let reader = try GeoPackageReader(path: path, name: "gaps.gpkg", options: options, share: share)
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
