import GeoPipeCore

@testable import GeoPipeIO

/// Reads every feature of `text` with the sequential reader.
func readAll(
  _ text: String, options: ReadOptions = ReadOptions(), capacity: Int = 1 << 16,
  chunk: Int = .max
) throws -> [Feature] {
  let buffer = try InputBuffer(
    source: MemoryByteSource(Array(text.utf8), chunkLimit: chunk), name: "test", capacity: capacity)
  let reader: any FeatureReader
  if let format = options.format, format == .csv {
    reader = try CSVReader(buffer: buffer, options: options)
  } else {
    reader = GeoJSONReader(buffer: buffer, options: options)
  }
  var features: [Feature] = []
  while let feature = try reader.next() { features.append(feature) }
  return features
}

/// Reads every feature of `text` with the parallel reader, in small batches; by default through
/// a tiny window filled a few bytes at a time.
func readAllParallel(
  _ text: String, options: ReadOptions = ReadOptions(), batchBytes: Int = 64,
  capacity: Int = 32, chunk: Int = 13
) throws -> [Feature] {
  let buffer = try InputBuffer(
    source: MemoryByteSource(Array(text.utf8), chunkLimit: chunk), name: "test",
    capacity: capacity)
  let reader = ParallelGeoJSONReader(
    buffer: buffer, options: options, workers: 2, batchBytes: batchBytes)
  var features: [Feature] = []
  while let feature = try reader.next() { features.append(feature) }
  return features
}

/// Opens text through format detection.
func openAll(_ bytes: [UInt8], options: ReadOptions = ReadOptions()) throws -> [Feature] {
  let reader = try FeatureReaders.open(
    source: MemoryByteSource(bytes), name: "test", options: options)
  var features: [Feature] = []
  while let feature = try reader.next() { features.append(feature) }
  return features
}

/// The error message (with location) that reading `text` fails with, or nil.
func readError(_ text: String, options: ReadOptions = ReadOptions(), parallel: Bool = false)
  -> String?
{
  do {
    _ =
      parallel
      ? try readAllParallel(text, options: options)
      : try readAll(text, options: options, capacity: 16, chunk: 5)
    return nil
  } catch {
    return "\(error)"
  }
}

/// Encodes features as GeoJSONSeq text.
func encodeSeq(_ features: [Feature], options: WriteOptions = WriteOptions()) throws -> String {
  let sink = MemorySink()
  let writer = GeoJSONSeqWriter(sink: sink, options: options)
  for feature in features { try writer.write(feature) }
  try writer.finish()
  return String(decoding: sink.bytes, as: UTF8.self)
}
