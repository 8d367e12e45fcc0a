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
      let summary = try writeTiles(inputs, writer)
      var metadata = TilesetMetadata.merging(inputs.map(\.metadata), filter: filter)
      if let name { metadata.name = name }
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

  private func writeTiles(_ inputs: [any TilesetReader], _ writer: any TilesetWriter) throws
    -> Summary
  {
    var summary = Summary()
    let filter = self.filter
    let pool = OrderedTaskPool<[Job], Output>(workers: threads) { jobs in
      Self.run(jobs, filter: filter)
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
  private static func run(_ jobs: [Job], filter: TileAttributeFilter) -> Output {
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
          let (bytes, features) = try merge(tiles, filter: filter)
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

  /// The uncompressed merged tile and its feature count.
  static func merge(_ tiles: [[UInt8]], filter: TileAttributeFilter) throws -> (
    bytes: [UInt8], features: Int
  ) {
    let decoded = try tiles.map(VectorTileDecoder.decode)
    let features = decoded.joined().reduce(0) { $0 + $1.features.count }
    let names = decoded.joined().map(\.name)
    if filter.keepsAll && Set(names).count == names.count {
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
    var tile = ProtobufWriter()
    for layer in layers where layer.count > 0 { layer.encode(into: &tile) }
    return (tile.bytes, layers.reduce(0) { $0 + $1.count })
  }
}
