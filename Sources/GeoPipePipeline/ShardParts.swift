import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit
import GeoPipeStages

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The stages that write a shard's part and read every shard's parts back (`ShardPlan`).
///
/// Parts are GeoJSONSeq with numbers printed shortest round-trip and rings as they are, so the
/// features read back are the features written. The members of the input's FeatureCollection
/// other than its features (a `name`), which one run hands to its writers, go beside a part in
/// `PART.members.json`.
enum ShardParts {
  /// Where the collection members of the features of a part are kept.
  static func membersPath(of part: String) -> String { part + ".members.json" }

  /// Writes the features it is handed to its `path`, atomically.
  static let writer = StageDefinition(
    name: "write", abstract: "Write a shard's part.", discussion: "", examples: [],
    options: [OptionSpec("path", .path, required: true, help: "The part.")], role: .sink,
    make: { values, _ in
      var options = WriteOptions()
      options.rewind = false
      let path = values.string("path") ?? "-"
      return .stage(
        PartWriter(
          try FeatureWriters.open(path, format: .geoJSONSeq, options: options), path: path))
    })

  /// The options of the part readers.
  private static let readerOptions = [
    OptionSpec("path", .path, required: true, variadic: true, help: "The parts, in order."),
    OptionSpec("crs", .string, help: "The CRS of the parts' coordinates."),
    OptionSpec("keep-crs", .flag, help: "Keep the coordinates in that CRS."),
  ]

  /// Reads the parts of its `path` list one after another, coordinates as they are.
  static let reader = StageDefinition(
    name: "read", abstract: "Read the shards' parts.", discussion: "", examples: [],
    options: readerOptions, role: .source,
    make: { values, context in
      .source(PartsReader(values.list("path") ?? [], threads: context.threads))
    })

  /// Reads the sorted parts of its `path` list (one per shard, in shard order) with a k-way
  /// merge in the order of the `sort` options it also holds.
  static let sortedReader = StageDefinition(
    name: "read", abstract: "Merge the shards' sorted parts.", discussion: "", examples: [],
    options: readerOptions + sortOptions, role: .source,
    make: { values, context in
      // One thread per part: the parts are read side by side.
      let parts = (values.list("path") ?? []).map { PartsReader([$0], threads: 1) }
      return .source(
        try SortedPartsReader(parts, values: values, report: context.diagnostics))
    })

  /// The options of `sort`, which the merge of its sorted parts takes over.
  private static var sortOptions: [OptionSpec] {
    StageRegistry.definition(named: "sort")?.options ?? []
  }
}

/// A stage that hands features to a writer, and keeps the collection members beside them.
private final class PartWriter: Stage, CollectionMembersReceiver {
  private let writer: any FeatureWriter
  private let path: String
  private var members = JSONObject()

  init(_ writer: any FeatureWriter, path: String) {
    self.writer = writer
    self.path = path
  }

  func receive(collectionMembers: JSONObject) { members = collectionMembers }
  func process(_ feature: Feature, emit: Emit) throws { try writer.write(feature) }

  func finish(emit: Emit) throws {
    let sidecar = ShardParts.membersPath(of: path)
    if members.isEmpty {
      unlink(sidecar)
    } else {
      var text = JSONTextWriter()
      text.writeValue(.object(members))
      let file = try OutputFile(path: sidecar)
      try text.bytes.withUnsafeBytes { try file.write($0) }
      try file.commit()
    }
    try writer.finish()
  }

  func abort() { writer.abort() }
}

/// The features of several parts, each opened when the one before it ends.
private final class PartsReader: FeatureReader {
  private var paths: ArraySlice<String>
  private var current: (any FeatureReader)?
  private var bytesBefore = 0

  private let threads: Int

  init(_ paths: [String], threads: Int) {
    self.paths = paths[...]
    allPaths = paths
    self.threads = threads
  }

  var bytesRead: Int { bytesBefore + (current?.bytesRead ?? 0) }
  var skippedCount: Int { 0 }
  private let allPaths: [String]
  /// The first members kept beside a part: every shard that read some of a FeatureCollection
  /// kept the same ones.
  var collectionMembers: JSONObject {
    for path in allPaths {
      let sidecar = ShardParts.membersPath(of: path)
      guard access(sidecar, F_OK) == 0,
        case .object(let members)? = try? JSONText.parse(contentsOf: sidecar)
      else { continue }
      return members
    }
    return JSONObject()
  }
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
      options.threads = threads
      current = try FeatureReaders.open(path, options: options)
    }
  }
}
