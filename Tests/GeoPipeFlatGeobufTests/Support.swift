import Foundation
import GeoPipeCore
import GeoPipeFlatGeobuf
import GeoPipeIO

/// Writes and reads FlatGeobuf files in a fresh temporary folder.
struct Scratch {
  let folder: URL

  init() throws {
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("geopipe-fgb-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  func remove() { try? FileManager.default.removeItem(at: folder) }

  func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

  /// Writes `features` to `name` as FlatGeobuf; returns the path.
  @discardableResult
  func write(_ features: [Feature], to name: String, index: Bool = true) throws -> String {
    var options = WriteOptions()
    if !index { options.formatOptions.set("no-index", "true") }
    let path = path(name)
    let writer = try FeatureWriters.open(path, format: FlatGeobuf.format, options: options)
    for feature in features { try writer.write(feature) }
    try writer.finish()
    return path
  }
}

/// Reads every feature of a FlatGeobuf file; returns them and the bytes the reader read.
func readAll(_ path: String, bbox: BBox? = nil, threads: Int = 1) throws -> (
  features: [Feature], bytesRead: Int
) {
  var options = ReadOptions()
  options.format = FlatGeobuf.format
  options.bbox = bbox
  options.threads = threads
  let reader = try FeatureReaders.open(path, options: options)
  var features: [Feature] = []
  while let feature = try reader.next() { features.append(feature) }
  return (features, reader.bytesRead)
}

/// Reads FlatGeobuf bytes from memory (as from a pipe).
func readAll(bytes: [UInt8], name: String = "memory.fgb") throws -> [Feature] {
  var options = ReadOptions()
  options.format = FlatGeobuf.format
  let reader = try FeatureReaders.open(
    source: MemoryByteSource(bytes, chunkLimit: 777), name: name, options: options)
  var features: [Feature] = []
  while let feature = try reader.next() { features.append(feature) }
  return features
}

func run(_ values: [Double], dimension: Int = 2) -> CoordinateArray {
  CoordinateArray(storage: values, dimension: dimension)
}
