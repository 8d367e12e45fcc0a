import GeoPipeCore
import GeoPipeIO
import GeoPipeXML

/// libFuzzer entry point: any bytes through the GPX reader (tracks as lines and as points) and
/// the KML reader must give features or an error, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  for pointsOnly in [false, true] {
    if let reader = try? GPXReader(
      source: MemoryByteSource(bytes), name: "fuzz.gpx", pointsOnly: pointsOnly)
    {
      while (try? reader.next()).flatMap({ $0 }) != nil {}
    }
  }
  if let reader = try? KMLReader(source: MemoryByteSource(bytes), name: "fuzz.kml") {
    while (try? reader.next()).flatMap({ $0 }) != nil {}
  }
  return 0
}
