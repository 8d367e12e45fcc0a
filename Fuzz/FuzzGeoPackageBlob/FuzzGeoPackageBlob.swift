import GeoPipeCore
import GeoPipeGeoPackage

/// libFuzzer entry point: any bytes through the GeoPackage BLOB decoder (the `GP` header, then
/// WKB) must give a geometry or a failure, never a crash; a geometry must encode as a BLOB that
/// decodes to the same geometry.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeoPackageBlob(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeRawBufferPointer(start: data, count: size)
  guard let decoded = try? GeoPackageBlob.decode(bytes), let geometry = decoded.geometry else {
    return 0
  }
  var written: [UInt8] = []
  GeoPackageBlob.append(geometry, srsID: decoded.srsID, to: &written)
  guard let again = try? written.withUnsafeBytes({ try GeoPackageBlob.decode($0) }) else {
    fatalError("a written BLOB does not read back: \(written)")
  }
  if again.geometry != decoded.geometry || again.srsID != decoded.srsID {
    fatalError("BLOB round trip changed the geometry: \(Array(bytes)) -> \(written)")
  }
  return 0
}
