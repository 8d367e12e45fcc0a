import GeoPipeCore
import GeoPipeIO

/// libFuzzer entry point: any text through the WKT reader must give a geometry or a failure,
/// never a crash; a geometry must write as WKT that reads back to the same geometry.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWKT(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  guard let geometry = try? WKTReader.parse(text, checkRanges: false) else { return 0 }
  let written = WKTWriter.string(geometry)
  guard let again = try? WKTReader.parse(written, checkRanges: false) else {
    fatalError("written WKT does not read back: \(written)")
  }
  if again != geometry && !written.contains("NaN") {
    fatalError("WKT round trip changed the geometry: \(text) -> \(written)")
  }
  return 0
}
