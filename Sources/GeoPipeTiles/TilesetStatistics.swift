import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator

/// What `tiles info` tells about a tileset: its metadata, and per zoom the number of tiles,
/// their total, largest and median stored sizes and their features; and the largest tiles.
public struct TilesetStatistics: Sendable {
  /// One zoom's tiles.
  public struct Zoom: Sendable {
    /// The zoom.
    public var zoom: Int
    /// Tiles stored at it.
    public var tiles = 0
    /// Their stored bytes in all.
    public var bytes = 0
    /// The largest tile's stored bytes.
    public var maxBytes = 0
    /// The median stored bytes (the lower middle one of an even count).
    public var medianBytes = 0
    /// Features in all its tiles, over all layers.
    public var features = 0
  }

  /// The file.
  public var path: String
  /// "MBTiles" or "PMTiles".
  public var format: String
  /// The metadata entries as stored.
  public var entries: JSONObject
  /// The zooms that hold tiles, lowest first.
  public var zooms: [Zoom] = []
  /// The largest tiles (stored bytes), largest first; ties in tile order.
  public var largest: [(tile: TileID, bytes: Int)] = []

  /// How many largest tiles are listed.
  public static let largestCount = 10

  /// Reads every tile of `reader` (decoding each to count its features).
  public init(reading reader: any TilesetReader) throws {
    path = reader.path
    format = reader is PMTilesReader ? "PMTiles" : "MBTiles"
    entries = reader.entries
    let decoder = try TileFeatureDecoder()
    var sizes: [Int] = []
    var previous: (data: [UInt8], features: Int)?
    while let (tile, data) = try reader.next() {
      if zooms.last?.zoom != tile.z {
        finishZoom(&sizes)
        zooms.append(Zoom(zoom: tile.z))
      }
      let features: Int
      if let previous, previous.data == data {
        features = previous.features
      } else {
        do {
          features = try VectorTileDecoder.decode(decoder.uncompressed(data)).reduce(0) {
            $0 + $1.features.count
          }
        } catch {
          throw tileError(path, tile, error)
        }
        previous = (data, features)
      }
      zooms[zooms.count - 1].tiles += 1
      zooms[zooms.count - 1].bytes += data.count
      zooms[zooms.count - 1].maxBytes = max(zooms[zooms.count - 1].maxBytes, data.count)
      zooms[zooms.count - 1].features += features
      sizes.append(data.count)
      if largest.count < Self.largestCount || data.count > largest[largest.count - 1].bytes {
        let at = largest.firstIndex { $0.bytes < data.count } ?? largest.count
        largest.insert((tile, data.count), at: at)
        if largest.count > Self.largestCount { largest.removeLast() }
      }
    }
    finishZoom(&sizes)
  }

  private mutating func finishZoom(_ sizes: inout [Int]) {
    guard !zooms.isEmpty, !sizes.isEmpty else { return }
    sizes.sort()
    zooms[zooms.count - 1].medianBytes = sizes[(sizes.count - 1) / 2]
    sizes.removeAll(keepingCapacity: true)
  }

  /// The summary as one JSON object.
  public var json: JSONValue {
    var object: JSONObject = [
      "path": .string(path), "format": .string(format), "metadata": .object(entries),
    ]
    object["zooms"] = .array(
      zooms.map { zoom in
        .object([
          "zoom": .integer(Int64(zoom.zoom)), "tiles": .integer(Int64(zoom.tiles)),
          "bytes": .integer(Int64(zoom.bytes)), "max_bytes": .integer(Int64(zoom.maxBytes)),
          "median_bytes": .integer(Int64(zoom.medianBytes)),
          "features": .integer(Int64(zoom.features)),
        ])
      })
    object["largest_tiles"] = .array(
      largest.map {
        .object(["tile": .string($0.tile.description), "bytes": .integer(Int64($0.bytes))])
      })
    return .object(object)
  }

  /// The summary as lines of text: metadata entries, a table of zooms, the largest tiles.
  public var text: String {
    var lines = ["\(path): \(format)"]
    for member in entries.members {
      var value: String
      if case .string(let s) = member.value {
        value = s
      } else {
        var writer = JSONTextWriter()
        writer.writeValue(member.value)
        value = String(decoding: writer.bytes, as: UTF8.self)
      }
      if value.count > 200 { value = String(value.prefix(197)) + "..." }
      lines.append("  \(member.key): \(value)")
    }
    let total = zooms.reduce(0) { $0 + $1.tiles }
    let zoomRange = zooms.isEmpty ? "none" : "\(zooms[0].zoom) to \(zooms[zooms.count - 1].zoom)"
    lines.append("  tiles: \(total), zooms \(zoomRange)")
    lines.append("  zoom      tiles        bytes    max bytes  median bytes     features")
    for zoom in zooms {
      lines.append(
        "  "
          + [
            (zoom.zoom, 4), (zoom.tiles, 11), (zoom.bytes, 13), (zoom.maxBytes, 13),
            (zoom.medianBytes, 14), (zoom.features, 13),
          ].map { String(repeating: " ", count: max(0, $0.1 - String($0.0).count)) + String($0.0) }
          .joined())
    }
    if !largest.isEmpty {
      lines.append("  largest tiles:")
      for (tile, bytes) in largest { lines.append("    \(tile): \(bytes) bytes") }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
