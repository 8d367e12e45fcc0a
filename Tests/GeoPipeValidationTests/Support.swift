import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeValidation

/// `Fixtures/<relative>` in the repository.
func fixture(_ relative: String) -> String {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(
      relative
    ).path
}

/// Every feature of a fixture file.
func features(_ relative: String) throws -> [Feature] {
  let reader = try FeatureReaders.open(fixture(relative))
  var all: [Feature] = []
  while let feature = try reader.next() { all.append(feature) }
  return all
}

/// A geometry from GeoJSON text.
func geometry(_ json: String) throws -> Geometry? {
  let reader = try FeatureReaders.open(
    source: MemoryByteSource(Array(json.utf8)), name: "test.geojson")
  return try reader.next()?.geometry
}

/// The findings of validating a file written with `text`.
func findings(
  in text: String, named name: String = "test.geojson",
  _ configure: (inout ValidationOptions) -> Void = { _ in }
) throws -> (findings: [Finding], summary: FileSummary) {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "validate-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let path = folder.appendingPathComponent(name).path
  try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  var options = ValidationOptions()
  configure(&options)
  let validator = Validator(options: options, validity: try GEOSValidityChecker())
  var found: [Finding] = []
  var summary = try validator.validate(path: path) { finding in
    found.append(finding)
    return true
  }
  // Report paths relative to the temporary folder, so tests can compare them.
  for k in found.indices { found[k].location.file = name }
  summary.path = name
  return (found, summary)
}
