import GeoPipeCore
import GeoPipeIO
import GeoPipeParquet

/// libFuzzer entry point: any bytes through the GeoParquet reader (footer, page headers,
/// pages, levels, values, WKB) must give features or a data error, never a crash or another
/// error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParquet(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  var options = ReadOptions()
  options.format = GeoParquet.format
  do {
    let reader = try FeatureReaders.open(
      source: MemoryByteSource(bytes), name: "fuzz.parquet", options: options)
    while try reader.next() != nil {}
  } catch let error as GeoPipeError {
    if error.status != .dataError { fatalError("not a data error: \(error)") }
  } catch {
    fatalError("unexpected error: \(error)")
  }
  return 0
}
