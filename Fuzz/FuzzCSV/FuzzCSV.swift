import GeoPipeCore
import GeoPipeIO

/// libFuzzer entry point: any bytes through the CSV reader (with type inference on or off,
/// chosen by the first byte) must give features or a GeoPipeError, never a crash; features
/// that read must also write as CSV without failing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size > 0 else { return 0 }
  var options = ReadOptions()
  options.format = .csv
  options.csv.inferTypes = data[0] & 1 == 1
  let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  do {
    let reader = try FeatureReaders.open(source: MemoryByteSource(bytes), name: "fuzz", options: options)
    var write = WriteOptions()
    write.csv.geometryFormat = .wkt
    let writer = CSVWriter(sink: MemorySink(), options: write)
    while let feature = try reader.next() { try writer.write(feature) }
    try writer.finish()
  } catch is GeoPipeError {
    return 0
  } catch {
    fatalError("unexpected error type: \(error)")
  }
  return 0
}
