import Foundation
import GeoPipeCore
import GeoPipeIO

extension Tiler {
  /// One tile's layers (in the order the layers first appeared), gzipped, and how many
  /// features they hold; nil when nothing of any feature is left in the tile.
  func encodeTile(
    z: Int, run: Range<Int>, shared: SharedState, compressor: GzipCompressor,
    repairer: PolygonRepairer
  ) throws -> (bytes: [UInt8], count: Int)? {
    let first = shared.placements[run.lowerBound]
    let tx = Int(first.x)
    let ty = Int(first.y)
    var encoders: [Int32: VectorTileLayerEncoder] = [:]
    let buffer = Double(options.buffer)
    for k in run {
      let placement = shared.placements[k]
      let feature = features[Int(placement.feature)]
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
      } else if let points = feature.points {
        kind = WorldGeometry.Kind.point.rawValue
        commands = try TileGeometryEncoder.encode(
          points, z: z, x: tx, y: ty, extent: options.extent, buffer: buffer,
          tolerance: options.tolerance, repairer: repairer)
      } else {
        kind = WorldGeometry.Kind.point.rawValue
        var points: [Int32] = []
        TileGeometryEncoder.appendPoint(
          x: feature.x, y: feature.y, z: z, tileX: tx, tileY: ty, extent: options.extent,
          buffer: buffer, to: &points)
        var writer = CommandWriter()
        if !points.isEmpty { writer.moveTo(points) }
        commands = writer.values
      }
      guard let commands, !commands.isEmpty else { continue }
      encoders[feature.layer, default: layerEncoder(feature.layer)].add(
        id: feature.id, kind: kind, tags: feature.tags, geometry: commands)
    }
    var tile = ProtobufWriter()
    var count = 0
    for layer in encoders.keys.sorted() {
      guard let encoder = encoders[layer], encoder.count > 0 else { continue }
      encoder.encode(into: &tile, keyNames: keyNames, valueTable: valueTable)
      count += encoder.count
    }
    guard count > 0 else { return nil }
    return (try compressor.compress(tile.bytes), count)
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
