import Foundation
import GeoPipeCore
import GeoPipeStageKit
import GeoPipeTiles

/// The options of `tiles` that make tiles fit and choose their properties (tippecanoe's names
/// and short names), and how they become ``TilerOptions``.
enum TilesOptions {
  static let specs: [OptionSpec] =
    [
      OptionSpec(
        "max-tile-bytes", .integer, default: String(TileSizeLimits.defaultMaxBytes), short: "M",
        help: "The most bytes a tile may have as stored (gzipped)."),
      OptionSpec(
        "max-tile-features", .integer, default: String(TileSizeLimits.defaultMaxFeatures),
        short: "O", help: "The most features a tile may have."),
      OptionSpec(
        "no-tile-size-limit", .flag, help: "Check no tile against the size limits."),
    ]
    + TileDropStrategy.allCases.map { strategy in
      OptionSpec(strategy.rawValue, .flag, help: help(strategy))
    }
    + [
      OptionSpec(
        "base-zoom", .string, short: "B", validate: zoomOrGuess,
        help: "Thin points below this zoom (g: guess); every point from it up."),
      OptionSpec(
        "drop-rate", .string, short: "r", validate: rateOrGuess,
        help: "How fast points thin below --base-zoom: 1 in RATE^(base-zoom - z) (g: guess)."),
      OptionSpec(
        "include", .list, short: "y", help: "Keep only these properties in the tiles."),
      OptionSpec("exclude", .list, short: "x", help: "Leave these properties out of the tiles."),
      OptionSpec(
        "exclude-all", .flag, short: "X",
        help: "Leave every property out of the tiles (except --include's)."),
      OptionSpec(
        "attribute-type", .pairs, short: "T", validate: attributeType,
        help: "Convert a property: NAME=string, float, int or bool (repeatable)."),
      PropertyUsage.strictOption,
    ]

  /// Reads these options into `options`.
  static func apply(_ values: OptionValues, to options: inout TilerOptions) throws {
    options.limits = TileSizeLimits(
      maxBytes: values.integer("max-tile-bytes") ?? TileSizeLimits.defaultMaxBytes,
      maxFeatures: values.integer("max-tile-features") ?? TileSizeLimits.defaultMaxFeatures,
      isDisabled: values.flag("no-tile-size-limit"))
    guard options.limits.maxBytes > 0, options.limits.maxFeatures > 0 else {
      throw GeoPipeError.usage("--max-tile-bytes and --max-tile-features must be positive")
    }
    let strategies = TileDropStrategy.allCases.filter { values.flag($0.rawValue) }
    guard strategies.count <= 1 else {
      throw GeoPipeError.usage(
        "choose one of " + strategies.map { "--\($0.rawValue)" }.joined(separator: " and "))
    }
    options.strategy = strategies.first
    if let strategy = options.strategy, options.limits.isDisabled {
      throw GeoPipeError.usage(
        "--\(strategy.rawValue) makes tiles fit the size limits; --no-tile-size-limit turns "
          + "them off")
    }
    let base = values.string("base-zoom")
    let rate = values.string("drop-rate")
    if base != nil || rate != nil {
      var thinning = PointThinning()
      thinning.guessesBaseZoom = base == "g"
      thinning.baseZoom = base.flatMap { Int($0) }
      thinning.guessesRate = rate == "g"
      if let rate, let value = Double(rate) { thinning.rate = value }
      options.thinning = thinning
    }
    options.attributes = TileAttributeFilter(
      include: values.list("include") ?? [], exclude: values.list("exclude") ?? [],
      excludeAll: values.flag("exclude-all"))
    for pair in values.pairs("attribute-type") {
      options.attributeTypes[pair.key] = TileAttributeType(rawValue: pair.value)
    }
  }

  /// The property names the options name, to be looked for among the features'.
  static func namedProperties(_ options: TilerOptions) -> [String] {
    options.attributes.namedProperties + options.attributeTypes.keys.sorted()
  }

  private static func help(_ strategy: TileDropStrategy) -> String {
    switch strategy {
    case .dropDensest: "Make tiles fit by dropping the features closest to their neighbours."
    case .dropFraction: "Make tiles fit by dropping a growing fraction of the features."
    case .dropSmallest: "Make tiles fit by dropping the smallest features first."
    case .coalesceDensest:
      "Make tiles fit by merging the densest features into the feature before them."
    case .clusterDensest:
      "Make tiles fit by clustering points (supercluster's clusters, exact point_count)."
    }
  }

  /// A zoom from 0 to 24 or `g`.
  static func zoomOrGuess(_ text: String) -> ValueProblem? {
    text == "g" || Int(text).map { (0...24).contains($0) } == true
      ? nil : ValueProblem("expected a zoom from 0 to 24, or g to guess")
  }

  private static func rateOrGuess(_ text: String) -> ValueProblem? {
    text == "g" || Double(text).map { $0 >= 1 && $0.isFinite } == true
      ? nil : ValueProblem("expected a rate of at least 1, or g to guess")
  }

  private static func attributeType(_ text: String) -> ValueProblem? {
    TileAttributeType(rawValue: text) == nil
      ? ValueProblem(
        "expected one of " + TileAttributeType.allCases.map(\.rawValue).joined(separator: ", "))
      : nil
  }
}
