import GeoPipePipeline

/// libFuzzer entry point: any bytes as a pipeline file, YAML or JSON (chosen by the first
/// byte), must give a plan or diagnostics with valid positions, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size > 0 else { return 0 }
  let name = data[0] & 1 == 1 ? "fuzz.json" : "fuzz.yaml"
  let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  let pipeline = Pipeline(path: name, bytes: bytes, environment: ["HOME": "/"])
  for diagnostic in pipeline.diagnostics {
    precondition(diagnostic.position.line >= 1 && diagnostic.position.column >= 1)
  }
  precondition((pipeline.plan == nil) == !pipeline.errors.isEmpty)
  return 0
}
