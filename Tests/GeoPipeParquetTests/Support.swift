import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeParquet

/// Writes and reads GeoParquet files in a fresh temporary folder.
struct Scratch {
  let folder: URL

  init() throws {
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("geopipe-parquet-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  func remove() { try? FileManager.default.removeItem(at: folder) }

  func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

  /// Writes `features` to `name` as GeoParquet with these format options; returns the path.
  @discardableResult
  func write(_ features: [Feature], to name: String, options given: [String: String] = [:])
    throws -> String
  {
    var options = WriteOptions()
    for (key, value) in given { options.formatOptions.set(key, value) }
    let path = path(name)
    let writer = try FeatureWriters.open(path, format: GeoParquet.format, options: options)
    for feature in features { try writer.write(feature) }
    try writer.finish()
    return path
  }
}

/// Reads every feature of a GeoParquet file.
func readAll(_ path: String, bbox: BBox? = nil) throws -> [Feature] {
  var options = ReadOptions()
  options.format = GeoParquet.format
  options.bbox = bbox
  let reader = try FeatureReaders.open(path, options: options)
  var features: [Feature] = []
  while let feature = try reader.next() { features.append(feature) }
  return features
}

/// Reads GeoParquet bytes from memory (as from a pipe).
func readAll(bytes: [UInt8], name: String = "memory.parquet") throws -> [Feature] {
  var options = ReadOptions()
  options.format = GeoParquet.format
  let reader = try FeatureReaders.open(
    source: MemoryByteSource(bytes, chunkLimit: 777), name: name, options: options)
  var features: [Feature] = []
  while let feature = try reader.next() { features.append(feature) }
  return features
}
