import Foundation
import GeoPipeIO
import GeoPipeMercator

extension Tiler {
  /// One tile as encoded: its gzipped bytes (empty when every feature was left out), its
  /// features, the threshold it was cut with and the placements it left out.
  struct EncodedTile {
    var bytes: [UInt8]
    var count: Int
    var threshold = -Double.infinity
    var removed: [Int32] = []
  }

  /// How far over the byte limit zlib's fastest level must leave a tile for it to count as
  /// over without compressing it at level 6 (which makes tiles 5–15% smaller).
  static let estimateMargin = 1.25

  /// Tiles encoded per batch: what a progress report covers and, without a strategy, what is
  /// held before it is written.
  static let batchSize = 4096

  /// Writes zoom `z`'s tiles: batch by batch as they are encoded or, when a strategy applies,
  /// once the zoom's threshold is settled (see ``TileDropStrategy``).
  func writeZoom(_ z: Int, pieces: TilePieces, to writer: any TilesetWriter) throws {
    if options.strategy == .clusterDensest && z < options.maxZoom && !options.limits.isDisabled {
      return try writeClusteredZoom(z, pieces: pieces, to: writer)
    }
    let (placements, runs) = self.placements(z, pieces: pieces)
    guard !runs.isEmpty else { return }
    let shared = SharedState(tiler: self, placements: placements, pieces: pieces)
    let strategy = z < options.maxZoom && !options.limits.isDisabled ? options.strategy : nil
    var tiles: [EncodedTile?] = []
    if strategy != nil { tiles.reserveCapacity(runs.count) }
    var batchStart = 0
    while batchStart < runs.count {
      let batch = Array(batchStart..<min(batchStart + Self.batchSize, runs.count))
      let encoded = try encode(batch, runs: runs, z: z, shared: shared, strategy: strategy) {
        _ in -.infinity
      }
      if strategy == nil {
        for (k, tile) in zip(batch, encoded) {
          try store(tile, run: runs[k], z: z, placements: placements, to: writer)
        }
      } else {
        tiles += encoded
      }
      batchStart += Self.batchSize
      progress?(
        TilerProgress(
          zoom: z, zoomTilesWritten: min(batchStart, runs.count), zoomTiles: runs.count,
          summary: summary))
    }
    guard let strategy else { return }
    try settle(&tiles, runs: runs, z: z, shared: shared, strategy: strategy)
    for (k, tile) in tiles.enumerated() {
      try store(tile, run: runs[k], z: z, placements: placements, to: writer)
    }
    count(removedFrom: tiles, placements: placements, z: z, strategy: strategy)
  }

  /// Cuts every tile with the highest threshold any tile needed, as tippecanoe does for the
  /// whole zoom; tiles that then still do not fit raise it again.
  private func settle(
    _ tiles: inout [EncodedTile?], runs: [Range<Int>], z: Int, shared: SharedState,
    strategy: TileDropStrategy
  ) throws {
    var zoomThreshold = -Double.infinity
    while true {
      let highest = tiles.reduce(zoomThreshold) { max($0, $1?.threshold ?? $0) }
      guard highest > zoomThreshold else { return }
      zoomThreshold = highest
      // Only a tile with a feature between its own threshold and the zoom's changes.
      let redo = runs.indices.filter { k in
        let own = tiles[k]?.threshold ?? -.infinity
        return own < highest
          && runs[k].contains { p in
            let key = dropKeys[Int(shared.placements[p].feature)]
            return strategy.isRemoved(key: key, threshold: highest)
              && !strategy.isRemoved(key: key, threshold: own)
          }
      }
      let encoded = try encode(redo, runs: runs, z: z, shared: shared, strategy: strategy) { _ in
        highest
      }
      for (k, tile) in zip(redo, encoded) { tiles[k] = tile }
    }
  }

  /// Encodes the tiles of `runs` at `batch` on every thread, each starting from the threshold
  /// `start` gives it and raised until the tile fits (with a strategy).
  func encode(
    _ batch: [Int], runs: [Range<Int>], z: Int, shared: SharedState,
    strategy: TileDropStrategy?, start: (Int) -> Double
  ) throws -> [EncodedTile?] {
    guard !batch.isEmpty else { return [] }
    let threads = max(1, min(options.threads, batch.count))
    let results = ResultSlots<EncodedTile>(count: batch.count)
    let starts = batch.map(start)
    let chunk = (batch.count + threads - 1) / threads
    DispatchQueue.concurrentPerform(iterations: threads) { worker in
      let begin = worker * chunk
      let end = min(begin + chunk, batch.count)
      guard begin < end else { return }
      do {
        let compressor = try GzipCompressor()
        let estimator = try strategy.map { _ in try GzipCompressor(level: 1) }
        let repairer = try PolygonRepairer()
        for k in begin..<end {
          results.set(
            k,
            try shared.tiler.encodeFitting(
              z: z, run: runs[batch[k]], shared: shared, threshold: starts[k],
              strategy: strategy, compressor: compressor, estimator: estimator,
              repairer: repairer))
        }
      } catch {
        results.fail(error)
      }
    }
    if let error = results.error { throw error }
    return Array(results.values)
  }

  /// A tile cut with `threshold`, raised (with a strategy) until the tile keeps to the limits
  /// or no feature is left to take out.
  private func encodeFitting(
    z: Int, run: Range<Int>, shared: SharedState, threshold: Double,
    strategy: TileDropStrategy?, compressor: GzipCompressor, estimator: GzipCompressor?,
    repairer: PolygonRepairer
  ) throws -> EncodedTile? {
    var threshold = threshold
    var fraction = 1.0
    while true {
      guard
        var tile = try encodeTile(
          z: z, run: run, shared: shared, threshold: threshold, repairer: repairer)
      else { return nil }
      let raw = tile.bytes
      // A tile with too many features is tried again without being compressed, and one that
      // zlib's fastest level leaves well over the byte limit is tried again with that size.
      var estimate = 0
      if let estimator, tile.count <= options.limits.maxFeatures,
        raw.count > options.limits.maxBytes
      {
        let quick = try estimator.compress(raw).count
        if Double(quick) > Double(options.limits.maxBytes) * Self.estimateMargin {
          estimate = quick
        }
      }
      let compressed =
        estimate == 0 && (strategy == nil || tile.count <= options.limits.maxFeatures)
      if compressed { tile.bytes = tile.count > 0 ? try compressor.compress(raw) : [] }
      guard let strategy,
        let violation = options.limits.violation(
          bytes: compressed ? tile.bytes.count : estimate, features: tile.count)
      else { return tile }
      fraction = strategy.nextFraction(fraction, after: violation)
      let keys = run.map { dropKeys[Int(shared.placements[$0].feature)] }
      guard
        let next = TileDropStrategy.threshold(keys: keys, keeping: fraction, above: threshold)
      else {
        if !compressed { tile.bytes = try compressor.compress(raw) }
        return tile
      }
      threshold = next
    }
  }

  /// Writes one tile (when anything is left in it) and notes it in the summary.
  func store(
    _ tile: EncodedTile?, run: Range<Int>, z: Int, placements: [Placement],
    to writer: any TilesetWriter
  ) throws {
    guard let tile, tile.count > 0 else { return }
    let first = placements[run.lowerBound]
    let id = TileID(unchecked: z, Int(first.x), Int(first.y))
    try writer.writeTile(id, data: tile.bytes)
    if let violation = options.limits.violation(bytes: tile.bytes.count, features: tile.count) {
      summary.oversized.append((id, violation))
    }
    summary.tiles += 1
    summary.placements += tile.count
    summary.bytes += tile.bytes.count
  }

  /// Counts the features that the strategy took out of every tile they were placed in.
  private func count(
    removedFrom tiles: [EncodedTile?], placements: [Placement], z: Int,
    strategy: TileDropStrategy
  ) {
    guard tiles.contains(where: { !($0?.removed.isEmpty ?? true) }) else { return }
    var placed = [Int32](repeating: 0, count: features.count)
    for placement in placements { placed[Int(placement.feature)] += 1 }
    for tile in tiles {
      for k in tile?.removed ?? [] { placed[Int(placements[Int(k)].feature)] -= 1 }
    }
    var removed = Set<Int32>()
    for tile in tiles {
      for k in tile?.removed ?? [] where placed[Int(placements[Int(k)].feature)] == 0 {
        removed.insert(placements[Int(k)].feature)
      }
    }
    switch strategy {
    case .coalesceDensest: summary.coalesced[z] = removed.count
    default: summary.dropped[z, default: 0] += removed.count
    }
  }
}
