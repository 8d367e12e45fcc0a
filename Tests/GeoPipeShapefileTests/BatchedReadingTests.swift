import Foundation
import GeoPipeCore
import GeoPipeIO
import Testing

@testable import GeoPipeShapefile

/// Records decoded in batches on worker threads give what reading on one thread gives: the
/// same features in the same order, deleted records left out, and the same error after the
/// same features.
@Suite struct ShapefileBatchedReadingTests {
  static func readAll(_ path: String, threads: Int) -> (features: [Feature], error: String?) {
    var options = ReadOptions()
    options.format = .shapefile
    options.threads = threads
    var features: [Feature] = []
    do {
      let reader = try FeatureReaders.open(path, options: options)
      while let feature = try reader.next() { features.append(feature) }
      return (features, nil)
    } catch {
      return (features, "\(error)")
    }
  }

  @Test func workerThreadsGiveTheSameFeaturesAndErrors() throws {
    FeatureFormats.register(.shapefile)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "geopipe-batches-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("places.shp").path
    let writer = try FeatureWriters.open(path, format: .shapefile)
    for k in 0..<2600 {
      let properties: JSONObject = [
        "n": .integer(Int64(k)), "x": .double(Double(k) / 8), "name": .string("é\(k)"),
      ]
      try writer.write(
        Feature(
          geometry: .point(Position(x: Double(k % 360) - 180, y: Double(k % 170) - 85)),
          properties: properties))
    }
    try writer.finish()
    let one = Self.readAll(path, threads: 1)
    #expect(one.error == nil)
    #expect(one.features.count == 2600)
    let three = Self.readAll(path, threads: 3)
    #expect(three.error == nil)
    #expect(three.features == one.features)

    let dbf = dir.appendingPathComponent("places.dbf")
    let good = Array(try Data(contentsOf: dbf))
    let headerLength = Int(good[8]) | Int(good[9]) << 8
    let recordLength = Int(good[10]) | Int(good[11]) << 8
    for (record, byte, value) in [(2500, 1, UInt8(ascii: "x")), (1100, 0, UInt8(ascii: "*"))] {
      var bytes = good
      // A letter in the first field (a number) is an error; an asterisk deletes the record.
      bytes[headerLength + record * recordLength + byte] = value
      try Data(bytes).write(to: dbf)
      let serial = Self.readAll(path, threads: 1)
      let parallel = Self.readAll(path, threads: 3)
      #expect(parallel.features == serial.features, "record \(record)")
      #expect(parallel.error == serial.error, "record \(record)")
      #expect(
        (serial.error != nil) == (value == UInt8(ascii: "x")), "\(String(describing: serial.error))"
      )
    }
    #expect(Self.readAll(path, threads: 3).features.count == 2599)
  }
}
