import GeoPipeCore
import GeoPipeIO

/// libFuzzer entry point: any bytes through the GeoJSON reader must give features or a
/// GeoPipeError, never a crash; the parallel reader (in tiny batches) must give the same
/// features or the same error; and whatever reads back must survive a write/read round trip
/// unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeoJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  var options = ReadOptions()
  options.format = .geoJSON
  options.maxDepth = 64
  var parallel = options
  parallel.threads = 2
  parallel.batchBytes = 24
  let one = outcome(bytes, options: options)
  let two = outcome(bytes, options: parallel)
  if one != two { fatalError("parallel reading differs:\n\(one)\n\(two)") }
  guard let features = readAll(bytes, options: options) else { return 0 }
  let sink = MemorySink()
  var write = WriteOptions()
  write.rewind = false
  let writer = GeoJSONSeqWriter(sink: sink, options: write)
  do {
    for feature in features { try writer.write(feature) }
    try writer.finish()
  } catch {
    fatalError("writing read features failed: \(error)")
  }
  guard let again = readAll(sink.bytes, options: options) else {
    fatalError("written features do not read back:\n\(String(decoding: sink.bytes, as: UTF8.self))")
  }
  if again != features {
    fatalError("round trip changed features:\n\(String(decoding: sink.bytes, as: UTF8.self))")
  }
  return 0
}

private func readAll(_ bytes: [UInt8], options: ReadOptions) -> [Feature]? {
  do {
    let reader = try FeatureReaders.open(source: MemoryByteSource(bytes), name: "fuzz", options: options)
    var features: [Feature] = []
    while let feature = try reader.next() { features.append(feature) }
    return features
  } catch is GeoPipeError {
    return nil
  } catch {
    fatalError("unexpected error type: \(error)")
  }
}

/// The features, or the error's description, for comparing readers.
private func outcome(_ bytes: [UInt8], options: ReadOptions) -> String {
  do {
    let reader = try FeatureReaders.open(source: MemoryByteSource(bytes), name: "fuzz", options: options)
    var features: [Feature] = []
    while let feature = try reader.next() { features.append(feature) }
    return "\(features)"
  } catch {
    return "\(error)"
  }
}
