import GeoPipeCore
import GeoPipePostgreSQL

/// libFuzzer entry point: any bytes as binary COPY data (cut into messages at each 0xFE byte,
/// as a server may cut them anywhere) must give features or a data error, never a crash or
/// another error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPostgreSQLCopy(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let chunks = bytes.split(separator: 0xFE, omittingEmptySubsequences: false).map(Array.init)
  do {
    _ = try PostgreSQL.features(copyData: chunks)
  } catch let error as GeoPipeError {
    if error.status != .dataError { fatalError("not a data error: \(error)") }
  } catch {
    fatalError("unexpected error: \(error)")
  }
  return 0
}
