import Foundation
import Testing

/// `geopipe run --shard`, `geopipe merge` and `geopipe plan`: shards followed by a merge write
/// exactly what one run writes.
@Suite("Sharded runs")
struct ShardTests {
  static let pipelines = [
    "csv-to-geojson.yaml", "csv-to-geojson.json", "filter-select-style.yaml", "branching.yaml",
    "demo.yaml", "clusters.yaml", "join-and-dissolve.yaml",
  ]

  /// Every file in a folder and its subfolders but the shards' parts and the shares of
  /// tiles, with its bytes.
  static func outputs(in folder: URL) throws -> [String: Data] {
    var result: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(atPath: folder.path)
    while let name = enumerator?.nextObject() as? String {
      let url = folder.appendingPathComponent(name)
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
      if isFolder.boolValue || name.contains(".part-") || name.contains(".share-") { continue }
      result[name] = try Data(contentsOf: url)
    }
    return result
  }

  /// Whether a file is a tileset, compared by its decoded tiles and metadata, not its bytes.
  static func isTileset(_ name: String) -> Bool {
    name.hasSuffix(".pmtiles") || name.hasSuffix(".mbtiles")
  }

  /// A tileset's features, tile by tile in tile order and layer by layer (`tiles decode`, in
  /// tile units), and its metadata with, per zoom, its tile and feature counts (`tiles info`).
  static func decodedTileset(_ url: URL, root: URL) throws -> (tiles: String, metadata: String) {
    let decode = try geopipe(["tiles", "decode", url.path, "--tile-coordinates"], in: root)
    try #require(decode.status == 0, "\(decode)")
    let info = try geopipe(["tiles", "info", url.path, "--json"], in: root)
    try #require(info.status == 0, "\(info)")
    let object = try #require(try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any])
    let zooms = (object["zooms"] as? [[String: Any]] ?? []).map { zoom in
      ["zoom", "tiles", "features"].map { "\(zoom[$0] ?? "")" }.joined(separator: "/")
    }
    let metadata = try JSONSerialization.data(
      withJSONObject: object["metadata"] ?? [:], options: [.sortedKeys])
    let text = String(decoding: metadata, as: UTF8.self)
    return (decode.out, text + " " + zooms.joined(separator: " "))
  }

  /// Runs `pipeline` once and as `count` shards plus a merge, in `directory`, and expects the
  /// same files with the same bytes (tilesets: the same decoded tiles and metadata).
  static func expectShardsMatchOneRun(
    _ pipeline: String, counts: [Int], in directory: URL, root: URL,
    arguments: [String] = [], environment: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let reference = directory.appendingPathComponent("one-run")
    let run = try geopipe(
      ["run", pipeline, "--var", "out=\(reference.path)", "-q"] + arguments, in: root,
      environment: environment)
    try #require(run.status == 0, "\(run)", sourceLocation: sourceLocation)
    let expected = try outputs(in: reference)
    #expect(!expected.isEmpty, sourceLocation: sourceLocation)
    for count in counts {
      let out = directory.appendingPathComponent("shards-\(count)")
      // Shards run in any order.
      for index in (0..<count).reversed() {
        let shard = try geopipe(
          ["run", pipeline, "--shard", "\(index)/\(count)", "--var", "out=\(out.path)", "-q"]
            + arguments, in: root, environment: environment)
        try #require(shard.status == 0, "shard \(index)/\(count): \(shard)")
      }
      // The shares of the tiles (nothing to do without a tiles step split by tile).
      for share in (0..<count).reversed() {
        let tiles = try geopipe(
          [
            "merge", pipeline, "--shards", "\(count)", "--tile-share", "\(share)", "--var",
            "out=\(out.path)", "-q",
          ] + arguments, in: root, environment: environment)
        try #require(tiles.status == 0, "share \(share)/\(count): \(tiles)")
      }
      let merge = try geopipe(
        ["merge", pipeline, "--shards", "\(count)", "--var", "out=\(out.path)", "-q"] + arguments,
        in: root, environment: environment)
      try #require(merge.status == 0, "merge of \(count): \(merge)")
      let produced = try outputs(in: out)
      #expect(
        produced.keys.sorted() == expected.keys.sorted(), "\(pipeline) in \(count) shards",
        sourceLocation: sourceLocation)
      for (name, data) in expected where !isTileset(name) {
        #expect(
          produced[name] == data, "\(pipeline) in \(count) shards: \(name) differs",
          sourceLocation: sourceLocation)
      }
      for name in expected.keys where isTileset(name) {
        // The shares' tiles are copied as stored, with the metadata one run makes.
        if name.hasSuffix(".pmtiles") {
          #expect(
            produced[name] == expected[name], "\(pipeline) in \(count) shards: \(name) differs",
            sourceLocation: sourceLocation)
        }
        let one = try decodedTileset(reference.appendingPathComponent(name), root: root)
        let merged = try decodedTileset(out.appendingPathComponent(name), root: root)
        #expect(
          one.tiles == merged.tiles,
          "\(pipeline) in \(count) shards: the tiles of \(name) decode differently",
          sourceLocation: sourceLocation)
        #expect(
          one.metadata == merged.metadata,
          "\(pipeline) in \(count) shards: \(name)'s metadata differs: \(one.metadata) against \(merged.metadata)",
          sourceLocation: sourceLocation)
      }
    }
  }

  /// The pipelines in `Pipelines/`, in 1, 2, 3 and 7 shards.
  @Test(arguments: pipelines)
  func examplePipelinesMergeToTheOneRunOutputs(file: String) throws {
    let environment =
      file == "demo.yaml" ? ["GEOPIPE_GAZETTEER": try TestGazetteer.path.get()] : [:]
    try withTemporaryDirectory { directory in
      try Self.expectShardsMatchOneRun(
        "Pipelines/\(file)", counts: [1, 2, 3, 7], in: directory, root: CLI.root,
        environment: environment)
    }
  }

  /// CSV rows with line breaks and doubled quotes inside quoted fields, CRLF and LF, split
  /// at every count from 1 to 9 and into more shards than rows.
  static let trickyCSV: String = {
    var text = "name,lat,lon,v,note\r\n"
    for k in 0..<120 {
      let note =
        switch k % 4 {
        case 0: "\"line one\nline two, \"\"quoted\"\"\n\""
        case 1: "plain"
        case 2: "\"a\r\nb\""
        default: "\"\"\"\n\"\"\""
        }
      text += "p\(k),\(Double(k % 90) / 2),\(Double(k) - 60.5),\(k * 37 % 101),\(note)"
      text += k % 3 == 0 ? "\r\n" : "\n"
    }
    return text
  }()

  static let splitPipeline = """
    version: 1
    vars:
      out: out
    stages:
      - {id: rows, read: {path: rows.csv, infer-types: true}}
      - filter: {where: "v > 20"}
      - write: {path: "${out}/rows.csv"}
      - {id: seq, read: {path: [seq.geojsonl, collection.geojson]}}
      - select: {drop: [skip]}
      - write: {path: "${out}/seq.geojsonl"}
      - {input: rows, sort: {by: v, desc: true}}
      - head: 25
      - write: {path: "${out}/top.geojson"}
      - read: {path: points.fgb}
      - write: {path: "${out}/fgb.geojsonl"}
      - read: {path: points.parquet}
      - write: {path: "${out}/parquet.geojsonl"}
      - read: {path: collection.geojson}
      - write: {path: "${out}/collection.geojson"}
    """

  /// CSV, GeoJSONSeq and FeatureCollection inputs split at record boundaries, FlatGeobuf by
  /// feature number, GeoParquet by row group: every row and feature is read once, in order,
  /// at every shard count.
  @Test func splitsEveryInputAtRecordBoundaries() throws {
    try withTemporaryDirectory { directory in
      try Data(Self.trickyCSV.utf8).write(to: directory.appendingPathComponent("rows.csv"))
      var seq = ""
      var collection = "{\"type\":\"FeatureCollection\",\"name\":\"points\",\"features\":[\n"
      for k in 0..<60 {
        let feature =
          "{\"type\":\"Feature\",\"properties\":{\"k\":\(k),\"skip\":\"x\\ny\"},"
          + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(k).25,\(k % 80)]}}"
        seq += feature + "\n"
        collection += (k == 0 ? "" : ",\n") + feature
      }
      collection += "]}\n"
      try Data(seq.utf8).write(to: directory.appendingPathComponent("seq.geojsonl"))
      try Data(collection.utf8).write(to: directory.appendingPathComponent("collection.geojson"))
      let fgb = try geopipe(["convert", "seq.geojsonl", "points.fgb"], in: directory)
      try #require(fgb.status == 0, "\(fgb)")
      let parquet = try geopipe(
        ["convert", "seq.geojsonl", "points.parquet", "--row-group-size", "7"], in: directory)
      try #require(parquet.status == 0, "\(parquet)")
      try Data(Self.splitPipeline.utf8).write(to: directory.appendingPathComponent("split.yaml"))
      try Self.expectShardsMatchOneRun(
        "split.yaml", counts: Array(1...9) + [200], in: directory, root: directory)
    }
  }

  /// `--shard env` takes the shard from a Kubernetes Indexed Job's environment.
  @Test func readsTheShardFromTheEnvironment() throws {
    try withTemporaryDirectory { directory in
      for index in 0..<2 {
        let run = try geopipe(
          [
            "run", "Pipelines/csv-to-geojson.yaml", "--shard", "env", "--var",
            "out=\(directory.path)", "-q",
          ], in: CLI.root,
          environment: ["JOB_COMPLETION_INDEX": "\(index)", "GEOPIPE_SHARDS": "2"])
        #expect(run.status == 0, "\(run)")
      }
      let parts = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
      #expect(
        parts == [
          "places.geojson.step1.part-0-of-2.geojsonl", "places.geojson.step1.part-1-of-2.geojsonl",
        ])
      let missing = try geopipe(
        ["run", "Pipelines/csv-to-geojson.yaml", "--shard", "env"], in: CLI.root,
        environment: ["GEOPIPE_SHARDS": "2"])
      #expect(missing.status == 64)
      #expect(missing.err.contains("JOB_COMPLETION_INDEX"))
    }
  }

  /// A merge before every shard has run fails naming the missing part, and writes nothing.
  @Test func mergeRefusesMissingParts() throws {
    try withTemporaryDirectory { directory in
      let shard = try geopipe(
        [
          "run", "Pipelines/filter-select-style.yaml", "--shard", "1/3", "--var",
          "out=\(directory.path)", "-q",
        ], in: CLI.root)
      #expect(shard.status == 0, "\(shard)")
      let merge = try geopipe(
        [
          "merge", "Pipelines/filter-select-style.yaml", "--shards", "3", "--var",
          "out=\(directory.path)",
        ], in: CLI.root)
      #expect(merge.status == 66, "\(merge)")
      #expect(merge.err.contains("part-0-of-3.geojsonl: the part of shard 0/3 is missing"))
      let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      #expect(left.allSatisfy { $0.contains(".part-") })
    }
  }

  /// Bad shard arguments are usage errors.
  @Test(arguments: ["3/3", "-1/2", "1", "a/b", "0/0"])
  func refusesBadShards(shard: String) throws {
    let run = try geopipe(
      ["run", "Pipelines/csv-to-geojson.yaml", "--shard", shard, "--var", "out=/nonexistent"],
      in: CLI.root)
    #expect(run.status == 64, "\(run)")
  }

  /// The plan names the map and merge sides; its JSON gives the commands to run.
  @Test func printsThePlan() throws {
    let text = try geopipe(["plan", "Pipelines/clusters.yaml", "--shards", "4"], in: CLI.root)
    #expect(text.status == 0, "\(text)")
    #expect(text.out.contains("geopipe run Pipelines/clusters.yaml --shard i/4"))
    #expect(text.out.contains("supercluster's greedy clustering"))
    let json = try geopipe(
      ["plan", "Pipelines/clusters.yaml", "--shards", "2", "--json", "--var", "out=o"],
      in: CLI.root)
    #expect(json.status == 0, "\(json)")
    let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
    let map = object?["map"] as? [String: Any]
    let shards = map?["shards"] as? [[String: Any]]
    #expect(
      shards?.first?["command"] as? [String] == [
        "geopipe", "run", "Pipelines/clusters.yaml", "--shard", "0/2", "--var", "out=o",
      ])
    #expect(
      shards?.last?["parts"] as? [String] == ["o/clusters-z3.geojson.step1.part-1-of-2.geojsonl"])
  }
}
