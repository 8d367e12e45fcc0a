import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// The stages that write a shard's part and read every shard's parts back (`ShardPlan`).
///
/// Parts are GeoJSONSeq with numbers printed shortest round-trip and rings as they are, so the
/// features read back are the features written.
enum ShardParts {
  /// Writes the features it is handed to its `path`, atomically.
  static let writer = StageDefinition(
    name: "write", abstract: "Write a shard's part.", discussion: "", examples: [],
    options: [OptionSpec("path", .path, required: true, help: "The part.")], role: .sink,
    make: { values, _ in
      var options = WriteOptions()
      options.rewind = false
      let path = values.string("path") ?? "-"
      return .stage(
        PartWriter(try FeatureWriters.open(path, format: .geoJSONSeq, options: options)))
    })

  /// Reads the parts of its `path` list one after another, coordinates as they are.
  static let reader = StageDefinition(
    name: "read", abstract: "Read the shards' parts.", discussion: "", examples: [],
    options: [
      OptionSpec("path", .path, required: true, variadic: true, help: "The parts, in order."),
      OptionSpec("crs", .string, help: "The CRS of the parts' coordinates."),
      OptionSpec("keep-crs", .flag, help: "Keep the coordinates in that CRS."),
    ],
    role: .source,
    make: { values, _ in .source(PartsReader(values.list("path") ?? [])) })
}

/// A stage that hands features to a writer.
private final class PartWriter: Stage {
  private let writer: any FeatureWriter

  init(_ writer: any FeatureWriter) {
    self.writer = writer
  }

  func process(_ feature: Feature, emit: Emit) throws { try writer.write(feature) }
  func finish(emit: Emit) throws { try writer.finish() }
  func abort() { writer.abort() }
}

/// The features of several parts, each opened when the one before it ends.
private final class PartsReader: FeatureReader {
  private var paths: ArraySlice<String>
  private var current: (any FeatureReader)?
  private var bytesBefore = 0

  init(_ paths: [String]) {
    self.paths = paths[...]
  }

  var bytesRead: Int { bytesBefore + (current?.bytesRead ?? 0) }
  var skippedCount: Int { 0 }
  var collectionMembers: JSONObject { JSONObject() }
  var lastFeatureLocation: SourceLocation? { current?.lastFeatureLocation }

  func next() throws -> Feature? {
    while true {
      if let current, let feature = try current.next() { return feature }
      bytesBefore += current?.bytesRead ?? 0
      current = nil
      guard let path = paths.popFirst() else { return nil }
      var options = ReadOptions()
      options.format = .geoJSONSeq
      options.checkRanges = false
      current = try FeatureReaders.open(path, options: options)
    }
  }
}
