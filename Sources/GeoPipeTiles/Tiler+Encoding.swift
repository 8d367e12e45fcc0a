import Foundation
import GeoPipeCore
import GeoPipeIO

extension Tiler {
  /// One tile's layers (in the order the layers first appeared), not yet gzipped, and how
  /// many features they hold; nil when nothing of any feature is in the tile.
  ///
  /// With a strategy, features whose key is under `threshold` are left out (or merged into the
  /// feature before them, for ``TileDropStrategy/coalesceDensest``).
  func encodeTile(
    z: Int, run: Range<Int>, shared: SharedState, threshold: Double,
    repairer: PolygonRepairer
  ) throws -> EncodedTile? {
    let first = shared.placements[run.lowerBound]
    let tx = Int(first.x)
    let ty = Int(first.y)
    // By layer number: a tileset has few layers.
    var encoders = [VectorTileLayerEncoder?](repeating: nil, count: layers.count)
    var removed: [Int32] = []
    let features = self.features
    let strategy = threshold > -.infinity ? options.strategy : nil
    var merger = strategy == .coalesceDensest ? FeatureMerger() : nil
    func add(layer: Int32, id: UInt64?, kind: UInt8, tags: [Int32], geometry: [UInt32]) {
      let l = Int(layer)
      if encoders[l] == nil { encoders[l] = layerEncoder(layer) }
      encoders[l]?.add(id: id, kind: kind, tags: tags, geometry: geometry)
    }
    for k in run {
      let placement = shared.placements[k]
      let f = Int(placement.feature)
      let isRemoved =
        strategy?.isRemoved(key: dropKeys[Int(placement.feature)], threshold: threshold) ?? false
      if isRemoved && merger == nil {
        removed.append(Int32(k))
        continue
      }
      guard
        let (kind, commands) = try geometry(
          of: placement, feature: f, in: features, z: z, x: tx, y: ty, shared: shared,
          repairer: repairer)
      else { continue }
      if merger != nil {
        if isRemoved && merger?.merge(commands, kind: kind, layer: features[f].layer) == true {
          removed.append(Int32(k))
        } else if let previous = merger?.hold(
          FeatureMerger.Held(
            id: features[f].id, kind: kind, tags: features[f].tags, commands: commands),
          layer: features[f].layer)
        {
          add(
            layer: features[f].layer, id: previous.id, kind: previous.kind, tags: previous.tags,
            geometry: previous.commands)
        }
        continue
      }
      add(
        layer: features[f].layer, id: features[f].id, kind: kind, tags: features[f].tags,
        geometry: commands)
    }
    for (layer, held) in merger?.remaining ?? [] {
      add(layer: layer, id: held.id, kind: held.kind, tags: held.tags, geometry: held.commands)
    }
    var tile = ProtobufWriter()
    // The layers' features and room for their names, keys and values.
    tile.bytes.reserveCapacity(encoders.reduce(256) { $0 + ($1?.featureBytes ?? 0) * 9 / 8 })
    var count = 0
    for encoder in encoders {
      guard let encoder, encoder.count > 0 else { continue }
      encoder.encode(into: &tile, keyNames: keyNames, valueTable: valueTable)
      count += encoder.count
    }
    guard count > 0 else {
      return removed.isEmpty
        ? nil : EncodedTile(bytes: [], count: 0, threshold: threshold, removed: removed)
    }
    return EncodedTile(
      bytes: tile.bytes, count: count, threshold: threshold,
      removed: removed)
  }

  /// A placement's geometry type and MVT commands in tile (z, x, y); nil when nothing of it is
  /// left in the tile.
  ///
  /// The feature is given by number and its fields read in place: copying a stored feature
  /// (retaining its tags and points) cost 8% of tiling.
  private func geometry(
    of placement: Placement, feature f: Int, in features: [Stored], z: Int, x tx: Int, y ty: Int,
    shared: SharedState, repairer: PolygonRepairer
  ) throws -> (kind: UInt8, commands: [UInt32])? {
    let buffer = Double(options.buffer)
    let kind: UInt8
    let commands: [UInt32]?
    if placement.piece >= 0 {
      if let geometry = shared.pieces.geometry(Int(placement.piece)) {
        kind = geometry.kind.rawValue
        commands = try TileGeometryEncoder.encode(
          geometry, z: z, x: tx, y: ty, extent: options.extent, buffer: buffer,
          tolerance: options.tolerance, repairer: repairer)
      } else {
        kind = WorldGeometry.Kind.polygon.rawValue
        commands = TileGeometryEncoder.box(extent: options.extent, buffer: options.buffer)
      }
    } else if let points = features[f].points {
      kind = WorldGeometry.Kind.point.rawValue
      commands = try TileGeometryEncoder.encode(
        points, z: z, x: tx, y: ty, extent: options.extent, buffer: buffer,
        tolerance: options.tolerance, repairer: repairer)
    } else {
      kind = WorldGeometry.Kind.point.rawValue
      var points: [Int32] = []
      points.reserveCapacity(2)
      TileGeometryEncoder.appendPoint(
        x: features[f].x, y: features[f].y, z: z, tileX: tx, tileY: ty, extent: options.extent,
        buffer: buffer, to: &points)
      var writer = CommandWriter()
      writer.values.reserveCapacity(1 + points.count)
      if !points.isEmpty { writer.moveTo(points) }
      commands = writer.values
    }
    guard let commands, !commands.isEmpty else { return nil }
    return (kind, commands)
  }

  /// An empty layer of this tileset.
  func layerEncoder(_ layer: Int32) -> VectorTileLayerEncoder {
    VectorTileLayerEncoder(name: layers[Int(layer)].name, extent: options.extent)
  }
}

/// What the workers read: the tiler, this zoom's placements and its pieces.
struct SharedState: @unchecked Sendable {
  let tiler: Tiler
  let placements: [Tiler.Placement]
  let pieces: TilePieces
}

/// One result slot per task, each written by one worker only.
final class ResultSlots<Value>: @unchecked Sendable {
  let values: UnsafeMutableBufferPointer<Value?>
  private(set) var error: (any Error)?
  private let lock = NSLock()

  init(count: Int) {
    values = .allocate(capacity: count)
    values.initialize(repeating: nil)
  }

  deinit {
    values.deinitialize()
    values.deallocate()
  }

  func set(_ k: Int, _ value: Value?) { values[k] = value }

  func fail(_ error: any Error) { lock.withLock { self.error = error } }
}
