import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator

/// Merges tilesets into one, as tippecanoe's `tile-join` does: the inputs are read in tile-id
/// order side by side (a k-way merge, one tile of each held at a time), a tile that one input
/// holds is copied as it is stored, and a tile that several hold gets their layers, the
/// features of same-named layers concatenated with their keys and values re-tabled.
///
/// With an attribute filter every tile is re-encoded without the attributes it leaves out.
/// Merging and compressing run on `threads` workers in batches; tiles are written in order.
public struct TilesetJoiner {
  /// The attributes kept (tippecanoe's `-y`, `-x`, `-X`).
  public var filter = TileAttributeFilter()
  /// The sizes merged tiles are checked against.
  public var limits = TileSizeLimits()
  /// Worker threads for merging and compressing.
  public var threads = 1
  /// Whether a merged tile's layers follow the joined metadata's `vector_layers` order (the
  /// order their names first appear in the inputs), rather than the order of the inputs
  /// holding the tile.
  public var ordersLayers = false
  /// The bounds of the joined metadata, when known more exactly than the inputs' metadata
  /// (which their formats round) gives them.
  public var bounds: BBox?

  /// What a join did.
  public struct Summary: Sendable {
    /// Tiles written.
    public var tiles = 0
    /// Tiles that more than one input held.
    public var merged = 0
    /// Tiles over the limits, in tile order.
    public var oversized: [(tile: TileID, violation: TileSizeViolation)] = []
  }

  /// A joiner keeping every attribute, with tippecanoe's limits, on one thread.
  public init() {}

  /// Writes the merged tiles of `inputs` and their merged metadata (named `name` when given)
  /// to `writer`, which it finishes; on an error the writer is aborted.
  public func join(_ inputs: [any TilesetReader], into writer: any TilesetWriter, name: String?)
    throws -> Summary
  {
    do {
      var metadata = TilesetMetadata.merging(inputs.map(\.metadata), filter: filter)
      let order = ordersLayers ? metadata.vectorLayers.compactMap { $0["id"]?.stringValue } : nil
      let summary = try writeTiles(inputs, writer, layerOrder: order)
      if let name { metadata.name = name }
      if let bounds {
        metadata.west = bounds.west
        metadata.south = bounds.south
        metadata.east = bounds.east
        metadata.north = bounds.north
      }
      try writer.finish(metadata: metadata)
      return summary
    } catch {
      writer.abort()
      throw error
    }
  }

  /// One tile's stored bytes from each input holding it.
  private struct Job: Sendable {
    var tile: TileID
    var parts: [(path: String, data: [UInt8])]
  }

  private typealias Output = Result<[(tile: TileID, data: [UInt8], features: Int)], GeoPipeError>

  private func writeTiles(
    _ inputs: [any TilesetReader], _ writer: any TilesetWriter, layerOrder: [String]?
  ) throws -> Summary {
    var summary = Summary()
    let filter = self.filter
    let pool = OrderedTaskPool<[Job], Output>(workers: threads) { jobs in
      Self.run(jobs, filter: filter, layerOrder: layerOrder)
    }
    defer { pool.cancel() }
    // Results are taken while more than `limit` batches are out (all of them at the end).
    func drain(limit: Int) throws {
      while let output = pool.next(waiting: pool.inFlight > limit) {
        for (tile, data, features) in try output.get() {
          try writer.writeTile(tile, data: data)
          summary.tiles += 1
          if let violation = limits.violation(bytes: data.count, features: features) {
            summary.oversized.append((tile, violation))
          }
        }
      }
    }
    var heads = try inputs.map { try $0.next() }
    var batch: [Job] = []
    while let id = heads.compactMap({ $0.map { Self.id($0.tile) } }).min() {
      var job = Job(tile: TileID(unchecked: 0, 0, 0), parts: [])
      for k in inputs.indices {
        guard let head = heads[k], Self.id(head.tile) == id else { continue }
        job.tile = head.tile
        job.parts.append((inputs[k].path, head.data))
        heads[k] = try inputs[k].next()
      }
      if job.parts.count > 1 { summary.merged += 1 }
      batch.append(job)
      if batch.count == 256 {
        pool.submit(batch)
        batch = []
        try drain(limit: 2 * max(threads, 1))
      }
    }
    if !batch.isEmpty { pool.submit(batch) }
    pool.close()
    try drain(limit: 0)
    return summary
  }

  private static func id(_ tile: TileID) -> UInt64 { PMTilesID.id(z: tile.z, x: tile.x, y: tile.y) }

  /// Merges a batch of tiles, with a decompressor and compressor of its own.
  private static func run(_ jobs: [Job], filter: TileAttributeFilter, layerOrder: [String]?)
    -> Output
  {
    var done: [(tile: TileID, data: [UInt8], features: Int)] = []
    done.reserveCapacity(jobs.count)
    do {
      let decoder = try TileFeatureDecoder()
      let compressor = try GzipCompressor()
      for job in jobs {
        var tiles: [[UInt8]] = []
        for part in job.parts {
          do {
            tiles.append(try decoder.uncompressed(part.data))
          } catch {
            throw tileError(part.path, job.tile, error)
          }
        }
        do {
          let (bytes, features) = try merge(tiles, filter: filter, layerOrder: layerOrder)
          let stored =
            job.parts.count == 1 && filter.keepsAll && GzipDecompressor.isGzip(job.parts[0].data)
            ? job.parts[0].data : try compressor.compress(bytes)
          done.append((job.tile, stored, features))
        } catch {
          throw tileError(job.parts.map(\.path).joined(separator: ", "), job.tile, error)
        }
      }
      return .success(done)
    } catch let error as GeoPipeError {
      return .failure(error)
    } catch {
      return .failure(GeoPipeError("\(error)", status: .dataError))
    }
  }

  /// The uncompressed merged tile and its feature count; its layers in `layerOrder` when
  /// given (a layer it does not name last), else in the order the tiles hold them.
  static func merge(_ tiles: [[UInt8]], filter: TileAttributeFilter, layerOrder: [String]? = nil)
    throws -> (bytes: [UInt8], features: Int)
  {
    let decoded = try tiles.map(VectorTileDecoder.decode)
    let features = decoded.joined().reduce(0) { $0 + $1.features.count }
    let names = decoded.joined().map(\.name)
    let rank = Dictionary(
      (layerOrder ?? []).enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    let ranks = names.map { rank[$0] ?? Int.max }
    let ordered = zip(ranks, ranks.dropFirst()).allSatisfy { $0 <= $1 }
    if filter.keepsAll && Set(names).count == names.count && ordered {
      // Distinct layers: a tile is a sequence of layer fields, so the tiles concatenate.
      return (tiles.count == 1 ? tiles[0] : Array(tiles.joined()), features)
    }
    var layers: [TileLayerMerger] = []
    var index: [String: Int] = [:]
    for layer in decoded.joined() {
      if index[layer.name] == nil {
        index[layer.name] = layers.count
        layers.append(TileLayerMerger(like: layer))
      }
      try layers[index[layer.name] ?? 0].add(layer, filter: filter)
    }
    if layerOrder != nil {
      layers = layers.enumerated().sorted { a, b in
        let (x, y) = (rank[a.element.name] ?? Int.max, rank[b.element.name] ?? Int.max)
        return x != y ? x < y : a.offset < b.offset
      }.map(\.element)
    }
    var tile = ProtobufWriter()
    for layer in layers where layer.count > 0 { layer.encode(into: &tile) }
    return (tile.bytes, layers.reduce(0) { $0 + $1.count })
  }
}
