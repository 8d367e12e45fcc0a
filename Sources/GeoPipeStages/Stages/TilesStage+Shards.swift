import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator
import GeoPipeStageKit
import GeoPipeTiles

/// `tiles` in shards: when each feature's tiles depend on it alone, the tile space is split.
///
/// Each shard writes its features, prepared for the tiler, to a features part; every share of
/// the tile space (`merge --tile-share`) absorbs all the shards' parts, in shard order (the
/// input order), and writes only its share of the tiles, which are then those one run writes; the merge copies the shares' tiles into the output. With one shard, the shard
/// writes the whole tileset and the merge copies it.
public enum ShardedTiles {
  /// Why a `tiles` step with these options must see every feature at once, or nil when each
  /// feature's tiles depend on it alone.
  public static func singleReduceReason(_ values: OptionValues) -> String? {
    if let strategy = TileDropStrategy.allCases.first(where: { values.flag($0.rawValue) }) {
      return "--\(strategy.rawValue) weighs the features of a zoom against each other"
    }
    if values.has("base-zoom") || values.has("drop-rate") {
      return "point thinning (--base-zoom, --drop-rate) spreads over all the points"
    }
    if values.string("max-zoom") == "g" {
      return "--max-zoom g is guessed from the spacing of all the features"
    }
    if values.has("include") || values.has("exclude") || !values.pairs("attribute-type").isEmpty {
      return "the properties --include, --exclude and --attribute-type name are checked "
        + "against all the features"
    }
    return nil
  }

  /// The stage a shard runs for a `tiles` step split by tile: it adds the shard's features to
  /// a tiler as the step would (projected, properties numbered) and writes them to its `path`,
  /// a features part, which every share of the tiles reads instead of parsing the features
  /// again.
  ///
  /// The values are the step's (``partValues(_:path:)``); `shard` is the shard's.
  public static let featuresPartWriter = StageDefinition(
    name: "tiles", abstract: "Prepare a shard's features for the shares of the tiles.",
    discussion: "", examples: [], options: TilesStage.definition.options, role: .sink,
    buffersAll: true,
    make: { values, context in
      guard let shard = context.shard else {
        throw GeoPipeError.usage("tiles: a features part is written by a shard")
      }
      return .stage(
        try TilesStage(
          values: values, threads: context.threads, context: context,
          mode: .featuresPart(shard)))
    })

  /// The stage a share of the tiles runs (`merge --tile-share`).
  ///
  /// It reads the features parts its `features-parts` option lists, in shard order, and writes
  /// its share of the tiles to its `path`. Its input is a source of no features.
  public static let shareWriter = StageDefinition(
    name: "tiles", abstract: "Write a share of the tiles from the shards' features parts.",
    discussion: "", examples: [],
    options: TilesStage.definition.options + [
      OptionSpec(
        "features-parts", .path, variadic: true, help: "The shards' features parts, in order.")
    ], role: .sink, buffersAll: true,
    make: { values, context in
      .stage(
        try TilesStage(
          values: values, threads: context.threads, context: context,
          mode: .share(parts: values.list("features-parts") ?? [])))
    })

  /// Adds the features parts `parts` (every shard's, in shard order) to `tiler`; returns how
  /// many features without geometry they left out.
  ///
  /// A part that is missing, damaged, of another shard or written with other options is an
  /// error naming it.
  static func absorb(_ parts: [String], into tiler: Tiler) throws -> Int {
    var withoutGeometry = 0
    for (k, part) in parts.enumerated() {
      let bytes = try readWhole(part)
      let shard: Shard
      do {
        let left: Int
        (shard, left) = try tiler.absorb(featuresPart: bytes)
        withoutGeometry += left
      } catch let error as TilesError {
        throw GeoPipeError(
          "\(part): \(error.description): run its shard again", status: .dataError)
      }
      guard shard.index == k, shard.count == parts.count else {
        throw GeoPipeError(
          "\(part): it holds the features of shard \(shard), not \(k)/\(parts.count): run its "
            + "shard again", status: .dataError)
      }
    }
    return withoutGeometry
  }

  /// The bytes of a file.
  private static func readWhole(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw GeoPipeError("cannot read '\(path)'", status: .noInput)
    }
    return Array(data)
  }

  /// The options of a part of the step's tileset: written to `path`, with the layer and
  /// tileset names the output's path gives.
  public static func partValues(_ values: OptionValues, path: String) -> OptionValues {
    var part = values
    let output = values.string("path") ?? ""
    let layer =
      values.string("layer")
      ?? URL(fileURLWithPath: output).deletingPathExtension().lastPathComponent
    part.set("path", .string(path))
    part.set("layer", .string(layer))
    part.set("name", .string(values.string("name") ?? layer))
    return part
  }

  /// Writes the output of a `tiles` step from `parts` that hold each tile once.
  ///
  /// The parts are one shard's tileset of all the features, or the shares of the tile space
  /// written by `merge --tile-share` (each tile in one share). The tiles are copied as stored, in
  /// tile-id order, with the metadata the parts' tilers made (they saw the same features), so
  /// the output is the file one run writes; tiles over the size limits are warned of as the
  /// stage does. The output is committed when complete. Returns how many tiles were written.
  public static func gather(
    _ values: OptionValues, parts: [String], report: @escaping @Sendable (ReadDiagnostic) -> Void
  ) throws -> Int {
    let output = values.string("path") ?? ""
    let infos = try parts.map(readPartInfo(of:))
    for (part, info) in zip(parts, infos).dropFirst() where info.metadata != infos[0].metadata {
      throw GeoPipeError(
        "\(part): its metadata is not that of \(parts[0]): the parts come from different "
          + "runs; run the shards again", status: .dataError)
    }
    let inputs = try parts.map { try openTileset(path: $0) }
    let writer = try makeTilesetWriter(path: output)
    var tiles = 0
    do {
      var heads = try inputs.map { try $0.next() }
      while let k = heads.indices.filter({ heads[$0] != nil }).min(by: { a, b in
        id(heads[a]?.tile) < id(heads[b]?.tile)
      }), let head = heads[k] {
        try writer.writeTile(head.tile, data: head.data)
        tiles += 1
        heads[k] = try inputs[k].next()
        if let next = heads[k], id(next.tile) <= id(head.tile) {
          throw GeoPipeError(
            "\(parts[k]): tile \(next.tile) is out of order or in another part too",
            status: .dataError)
        }
      }
      try writer.finish(metadata: infos[0].metadata)
    } catch {
      writer.abort()
      throw error as? GeoPipeError ?? GeoPipeError("\(output): \(error)", status: .ioError)
    }
    let oversized = infos.flatMap(\.oversized).sorted { id($0.tile) < id($1.tile) }
    for warning in TilesStage.limitWarnings(oversized, strategy: nil, guessesMaxZoom: false) {
      report(warning)
    }
    return tiles
  }

  private static func id(_ tile: TileID?) -> UInt64 {
    tile.map { PMTilesID.id(z: $0.z, x: $0.x, y: $0.y) } ?? .max
  }

  /// Where a part's info (``TilesetPartInfo``) is kept.
  public static func infoPath(of part: String) -> String { part + ".json" }

  /// Removes the info an earlier run left beside a part, before the part is written.
  static func removePartInfo(beside part: String) throws {
    let path = infoPath(of: part)
    guard unlink(path) == 0 || errno == ENOENT else {
      throw GeoPipeError(
        "cannot remove '\(path)': \(String(cString: strerror(errno)))", status: .ioError)
    }
  }

  /// Keeps beside a written part its tiler's metadata and the tiles over the limits.
  static func writePartInfo(_ info: TilesetPartInfo, beside part: String) throws {
    let file = try OutputFile(path: infoPath(of: part))
    do {
      try info.encoded().withUnsafeBytes { try file.write($0) }
      try file.commit()
    } catch {
      file.abort()
      throw error
    }
  }

  /// The info kept beside a part.
  private static func readPartInfo(of part: String) throws -> TilesetPartInfo {
    let path = infoPath(of: part)
    guard access(path, F_OK) == 0 else {
      throw GeoPipeError(
        "\(path): the metadata of a part of the tiles is missing: run again the shard or "
          + "share of the tiles that wrote it",
        status: .noInput)
    }
    do {
      return try TilesetPartInfo(decoding: JSONText.parse(contentsOf: path))
    } catch let error as TilesError {
      throw GeoPipeError("\(path): \(error.description)", status: .dataError)
    }
  }
}
