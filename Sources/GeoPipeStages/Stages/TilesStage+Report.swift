import GeoPipeIO
import GeoPipeMercator
import GeoPipeStageKit
import GeoPipeTiles

extension TilesStage {
  /// The most tiles over the limits named one by one; the rest are counted.
  static let namedOversizedTiles = 10

  /// Notes what thinning and the strategy left out, per zoom, and warns of tiles over the
  /// limits (unless `limits` is false: the merge of a part warns of them) and of values that
  /// could not be converted.
  func reportLimits(_ summary: TilesetSummary, limits: Bool = true) {
    guard let report else { return }
    if let thinning = tiler.settledThinning {
      let rate = Template.displayText(thinning.rate)
      report(
        ReadDiagnostic(
          severity: .note,
          message: "tiles: points thinned below base zoom \(thinning.baseZoom) at drop rate \(rate)"
        ))
    }
    let how = strategy.map { " (\($0.rawValue))" } ?? ""
    for (z, count) in summary.dropped.sorted(by: { $0.key < $1.key }) where count > 0 {
      let thinned = summary.thinned[z, default: 0]
      let why =
        thinned == 0
        ? how
        : thinned == count
          ? " (point thinning)"
          : " (\(thinned) by point thinning, \(count - thinned) by \(strategy?.rawValue ?? ""))"
      report(
        ReadDiagnostic(
          severity: .note, message: "tiles: zoom \(z): dropped \(plural(count, "feature"))\(why)"))
    }
    for (z, count) in summary.coalesced.sorted(by: { $0.key < $1.key }) where count > 0 {
      report(
        ReadDiagnostic(
          severity: .note,
          message:
            "tiles: zoom \(z): merged \(plural(count, "feature")) into their neighbours\(how)"))
    }
    for (z, count) in summary.clustered.sorted(by: { $0.key < $1.key }) where count > 0 {
      let radius = Template.displayText(summary.clusterRadius[z, default: 0])
      report(
        ReadDiagnostic(
          severity: .note,
          message:
            "tiles: zoom \(z): clustered \(plural(count, "point")) into their neighbours "
            + "(radius \(radius) px)\(how)"))
    }
    for (name, count) in summary.unconverted.sorted(by: { $0.key < $1.key }) {
      report(
        ReadDiagnostic(
          severity: .warning,
          message: "tiles: \(plural(count, "value")) of '\(name)' could not be converted by "
            + "--attribute-type and were left out"))
    }
    for warning in Self.limitWarnings(
      limits ? summary.oversized : [], strategy: strategy, guessesMaxZoom: guessesMaxZoom)
    {
      report(warning)
    }
  }

  /// The warnings for tiles over the limits: the first ones named, then a count and advice.
  static func limitWarnings(
    _ oversized: [(tile: TileID, violation: TileSizeViolation)], strategy: TileDropStrategy?,
    guessesMaxZoom: Bool
  ) -> [ReadDiagnostic] {
    var warnings = oversized.prefix(Self.namedOversizedTiles).map { tile, violation in
      ReadDiagnostic(severity: .warning, message: "tiles: \(violation.warning(tile: tile))")
    }
    guard !oversized.isEmpty else { return warnings }
    let more = oversized.count - Self.namedOversizedTiles
    let advice =
      strategy == nil
      ? "map clients may not load them; use --drop-densest-as-needed (or another strategy), "
        + "raise --max-zoom, or --no-tile-size-limit"
      : guessesMaxZoom
        ? "the highest zoom keeps every feature; give a --max-zoom above the guessed one"
        : "the highest zoom keeps every feature; raise --max-zoom (or use --max-zoom g)"
    warnings.append(
      ReadDiagnostic(
        severity: .warning,
        message: "tiles: \(plural(oversized.count, "tile")) over the size limits"
          + (more > 0 ? " (\(more) more not named)" : "") + "; " + advice))
    return warnings
  }

  private static func plural(_ count: Int, _ noun: String) -> String {
    count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
  }

  private func plural(_ count: Int, _ noun: String) -> String { Self.plural(count, noun) }
}
