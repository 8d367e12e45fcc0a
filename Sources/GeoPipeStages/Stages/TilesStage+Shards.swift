import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit
import GeoPipeTiles

/// `tiles` in shards: when each feature's tiles depend on it alone, every shard builds a
/// tileset of its features and the merge joins them, in shard order, as `tiles join` does.
///
/// A tile then holds the features of shard 0 first, then those of shard 1, …: the features
/// one run puts in it, in the same order (one run writes a tile's features in input order).
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

  /// The options of shard `shard`'s part: written to `path`, with the layer and tileset names
  /// the output's path gives, and no size check (the merge checks the joined tiles).
  public static func partValues(_ values: OptionValues, path: String) -> OptionValues {
    var part = values
    let output = values.string("path") ?? ""
    let layer =
      values.string("layer")
      ?? URL(fileURLWithPath: output).deletingPathExtension().lastPathComponent
    part.set("path", .string(path))
    part.set("layer", .string(layer))
    part.set("name", .string(values.string("name") ?? layer))
    part.set("no-tile-size-limit", .flag(true))
    return part
  }

  /// Joins the shards' `parts` (in shard order) into the output of a `tiles` step.
  ///
  /// `values` are the step's options. The output is committed when complete; joined tiles
  /// over the size limits are warned of as the stage does. Returns how many tiles were
  /// written.
  public static func join(
    _ values: OptionValues, parts: [String], threads: Int,
    report: @escaping @Sendable (ReadDiagnostic) -> Void
  ) throws -> Int {
    let output = values.string("path") ?? ""
    let opened = try parts.map { try openTileset(path: $0) }
    // A shard without a feature that has geometry wrote no layer and the whole world's
    // bounds, which one run does only when no shard has such a feature.
    let inputs = opened.filter { !$0.metadata.vectorLayers.isEmpty }
    var joiner = TilesetJoiner()
    var options = TilerOptions()
    try TilesOptions.apply(values, to: &options)
    joiner.limits = options.limits
    joiner.threads = threads
    joiner.ordersLayers = true
    joiner.bounds = try parts.compactMap(readBounds(of:)).reduce(nil) { union, box in
      var union = union ?? box
      union.extend(box)
      return union
    }
    let writer = try makeTilesetWriter(path: output)
    let summary = try joiner.join(
      inputs.isEmpty ? Array(opened.prefix(1)) : inputs, into: writer, name: nil)
    for warning in TilesStage.limitWarnings(
      summary.oversized, strategy: nil, guessesMaxZoom: false)
    {
      report(warning)
    }
    return summary.tiles
  }

  /// Where a part's exact bounds are kept: its format rounds those in its metadata.
  public static func boundsPath(of part: String) -> String { part + ".bounds.json" }

  /// Keeps beside a shard's part the exact bounds of its metadata (`null`: no feature had
  /// geometry).
  static func writeBounds(_ box: BBox?, beside part: String) throws {
    let value: JSONValue =
      box.map { box in .array([box.west, box.south, box.east, box.north].map(JSONValue.double)) }
      ?? .null
    var text = JSONTextWriter()
    text.writeValue(value)
    let file = try OutputFile(path: boundsPath(of: part))
    do {
      try text.bytes.withUnsafeBytes { try file.write($0) }
      try file.commit()
    } catch {
      file.abort()
      throw error
    }
  }

  /// The exact bounds kept beside a part, nil when no feature of it had geometry.
  private static func readBounds(of part: String) throws -> BBox? {
    let path = boundsPath(of: part)
    guard access(path, F_OK) == 0 else {
      throw GeoPipeError(
        "\(path): the bounds of a shard's tiles are missing: run its shard again",
        status: .noInput)
    }
    guard case .array(let values) = try JSONText.parse(contentsOf: path) else { return nil }
    let numbers = values.compactMap(\.numberValue)
    guard numbers.count == 4 else {
      throw GeoPipeError("\(path): expected the bounds of a shard's tiles", status: .dataError)
    }
    return BBox(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
  }
}
