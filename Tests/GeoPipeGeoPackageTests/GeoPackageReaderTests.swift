import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite
import Testing

@testable import GeoPipeGeoPackage

@Suite struct GeoPackageReaderTests {
  /// Writes a grid of 400 points (ids 1…400) to a new GeoPackage.
  static func grid(in folder: URL) throws -> String {
    let path = folder.appendingPathComponent("grid.gpkg").path
    let writer = try GeoPackage.format.create?(
      FormatOutput(path: path, file: try OutputFile(path: path)), WriteOptions())
    for k in 0..<400 {
      let point = Position(x: Double(k % 20) - 10, y: Double(k / 20) - 10)
      try writer?.write(Feature(geometry: .point(point), properties: ["k": .integer(Int64(k))]))
    }
    try writer?.finish()
    return path
  }

  static func features(_ reader: GeoPackageReader) throws -> [Feature] {
    var features: [Feature] = []
    while let feature = try reader.next() { features.append(feature) }
    return features
  }

  @Test func bboxIsAnsweredByTheRTreeWithNothingMissing() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("gpkg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = try Self.grid(in: folder)
    let all = try Self.features(
      GeoPackageReader(path: path, name: "grid.gpkg", options: ReadOptions()))
    #expect(all.count == 400)
    for box in [
      BBox(west: -2.5, south: -3, east: 4, north: 1.5),
      BBox(west: 9, south: 9, east: 20, north: 20),
      BBox(west: 50, south: 50, east: 60, north: 60),
    ] {
      var options = ReadOptions()
      options.bbox = box
      let reader = try GeoPackageReader(path: path, name: "grid.gpkg", options: options)
      #expect(reader.usesIndex)
      let found = try Self.features(reader)
      // The brute-force answer: every point in the box, nothing else, in file order.
      let expected = all.filter { feature in
        guard case .point(let p) = feature.geometry else { return false }
        return box.contains(x: p.x, y: p.y)
      }
      #expect(found == expected)
    }
  }

  /// The packed R-tree passes SQLite's own check and answers as the trees it builds itself.
  @Test(arguments: [1, 51, 52, 3000])
  func packedRTreeIsSound(_ count: Int) throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("gpkg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("t.gpkg").path
    let writer = try GeoPackage.format.create?(
      FormatOutput(path: path, file: try OutputFile(path: path)), WriteOptions())
    var generator = SplitMix64(seed: 7)
    for _ in 0..<count {
      let x = Double(generator.next() % 36000) / 100 - 180
      let y = Double(generator.next() % 17000) / 100 - 85
      let line = CoordinateArray(storage: [x, y, x + 0.37, y + 0.21], dimension: 2)
      try writer?.write(Feature(geometry: .lineString(line)))
    }
    try writer?.finish()
    let database = try SQLiteDatabase(path: path)
    #expect(try database.scalarText("SELECT rtreecheck('rtree_t_geom')") == "ok")
    #expect(try database.scalarText("SELECT COUNT(*) FROM rtree_t_geom") == String(count))
    // The same answers as an R-tree SQLite builds row by row.
    try database.execute(
      "CREATE VIRTUAL TABLE temp.check_tree USING rtree(id, minx, maxx, miny, maxy); "
        + "INSERT INTO temp.check_tree SELECT * FROM rtree_t_geom")
    for box in ["-10, 10, -10, 10", "100, 180, -85, 0", "0, 0.5, 0, 0.5"] {
      let parts = box.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      let filter =
        "WHERE maxx >= \(parts[0]) AND minx <= \(parts[1]) AND maxy >= \(parts[2]) AND "
        + "miny <= \(parts[3])"
      let packed = try database.scalarText(
        "SELECT group_concat(id) FROM (SELECT id FROM rtree_t_geom \(filter) ORDER BY id)")
      let built = try database.scalarText(
        "SELECT group_concat(id) FROM (SELECT id FROM temp.check_tree \(filter) ORDER BY id)")
      #expect(packed == built)
    }
    // Still a working R-tree: SQLite can delete from and insert into it.
    try database.execute(
      "DELETE FROM rtree_t_geom WHERE id % 3 = 0; "
        + "INSERT INTO rtree_t_geom VALUES (1000000, 1, 2, 3, 4)")
    #expect(try database.scalarText("SELECT rtreecheck('rtree_t_geom')") == "ok")
  }

  @Test func layersDescribeTheTable() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("gpkg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = try Self.grid(in: folder)
    let layers = try GeoPackage.layers(path: path, name: "grid.gpkg")
    #expect(layers.count == 1)
    let layer = try #require(layers.first)
    #expect(layer.name == "grid")
    #expect(layer.geometryType == "Point")
    #expect(layer.count == 400)
    #expect(layer.crs == "EPSG:4326")
    #expect(layer.fields.map(\.name) == ["k"])
    #expect(layer.fields.map(\.type) == ["INTEGER"])
    #expect(layer.bounds == BBox(west: -10, south: -10, east: 9, north: 9))
  }

  @Test func recognisesTheApplicationID() {
    let sqlite = Array("SQLite format 3\0".utf8) + Array(repeating: 0, count: 52)
    #expect(GeoPackage.recognize(sqlite + Array("GPKG".utf8) + [0, 0]))
    #expect(GeoPackage.recognize(sqlite + Array("GP11".utf8)))
    #expect(!GeoPackage.recognize(sqlite + Array("MPBX".utf8)))
    #expect(!GeoPackage.recognize(Array("SQLite format 3\0".utf8)))
  }
}
