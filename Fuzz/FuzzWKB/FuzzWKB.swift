import GeoPipeCore
import GeoPipeIO

/// libFuzzer entry point: any bytes through the WKB reader must give a geometry or a failure,
/// never a crash; a geometry must write as WKB that reads back to the same geometry.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWKB(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeRawBufferPointer(start: data, count: size)
  guard let geometry = try? WKBReader.parse(bytes).geometry else { return 0 }
  let written = WKBWriter.bytes(geometry)
  guard let again = try? WKBReader.parse(written).geometry else {
    fatalError("written WKB does not read back: \(written)")
  }
  if again != geometry {
    fatalError("WKB round trip changed the geometry: \(Array(bytes)) -> \(written)")
  }
  return 0
}
