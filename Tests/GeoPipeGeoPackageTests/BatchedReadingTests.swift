import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite
import Testing

@testable import GeoPipeGeoPackage

/// Rows made into features on worker threads give what reading on one thread gives: the same
/// features (every storage class in every declared type) and the same error after the same
/// features.
@Suite struct GeoPackageBatchedReadingTests {
  static func readAll(_ path: String, threads: Int) -> (features: [Feature], error: String?) {
    var options = ReadOptions()
    options.threads = threads
    var features: [Feature] = []
    do {
      let reader = try GeoPackageReader(path: path, name: "mixed.gpkg", options: options)
      while let feature = try reader.next() { features.append(feature) }
      return (features, nil)
    } catch {
      return (features, "\(error)")
    }
  }

  @Test func workerThreadsGiveTheSameFeaturesAndErrors() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("gpkg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("mixed.gpkg").path
    let writer = try GeoPackage.format.create?(
      FormatOutput(path: path, file: try OutputFile(path: path)), WriteOptions())
    for k in 0..<2600 {
      let properties: JSONObject = [
        "i": .integer(Int64(k)), "r": .double(Double(k) / 3), "t": .string("ü\(k)"),
        "b": .bool(k % 2 == 0),
      ]
      try writer?.write(
        Feature(
          geometry: k % 7 == 0 ? nil : .point(Position(x: Double(k % 360) - 180, y: 1)),
          properties: properties))
    }
    try writer?.finish()
    let database = try SQLiteDatabase(path: path)
    // The R-tree's triggers call GeoPackage SQL functions that plain SQLite does not have.
    for suffix in ["insert", "delete"] + (1...7).map({ "update\($0)" }) {
      try database.execute("DROP TRIGGER IF EXISTS rtree_mixed_geom_\(suffix)")
    }
    // Other storage classes than the declared types, a blob, text with a NUL, and NULLs.
    try database.execute(
      "UPDATE mixed SET i = 'text', r = 7, t = x'00ff', b = NULL WHERE fid % 5 = 0")
    try database.execute("UPDATE mixed SET t = 'a' || char(0) || 'b' WHERE fid % 11 = 0")
    let one = Self.readAll(path, threads: 1)
    #expect(one.error == nil)
    #expect(one.features.count == 2600)
    #expect(Self.readAll(path, threads: 3).features == one.features)
    try Self.checkReadersLeftEarly(path, expecting: one.features)
    try database.execute("UPDATE mixed SET geom = x'0102' WHERE fid = 2345")
    let serial = Self.readAll(path, threads: 1)
    let parallel = Self.readAll(path, threads: 3)
    #expect(serial.error?.contains("fid 2345") == true, "\(String(describing: serial.error))")
    #expect(parallel.error == serial.error)
    #expect(parallel.features == serial.features)
    #expect(serial.features.count == 2344)
  }

  /// Readers dropped after a few features (as `head` drops them) stop their cutting thread,
  /// which is still stepping the statement, and count the bytes of the rows they read.
  static func checkReadersLeftEarly(_ path: String, expecting all: [Feature]) throws {
    var options = ReadOptions()
    options.threads = 3
    for taken in [0, 1, 1500] {
      let reader = try GeoPackageReader(path: path, name: "mixed.gpkg", options: options)
      var features: [Feature] = []
      while features.count < taken, let feature = try reader.next() { features.append(feature) }
      #expect(features == Array(all.prefix(taken)))
      if taken > 0 { #expect(reader.bytesRead > 0) }
    }
    let reader = try GeoPackageReader(path: path, name: "mixed.gpkg", options: options)
    while try reader.next() != nil {}
    var serial = options
    serial.threads = 1
    let one = try GeoPackageReader(path: path, name: "mixed.gpkg", options: serial)
    while try one.next() != nil {}
    #expect(reader.bytesRead == one.bytesRead)
    #expect(try reader.next() == nil)
  }
}
