import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator

/// Decodes stored vector tiles (gzipped, zlib or plain, told apart by their first bytes) into
/// GeoJSON features: in WGS84, or in the tile's integer coordinates.
///
/// Each feature carries the tile it came from as a `"tile": "z/x/y"` member and its layer as
/// `"tippecanoe": {"layer": NAME}`, which the `tiles` stage reads back; the id when the tile
/// feature has one; and its properties with their types. One decoder per thread.
public final class TileFeatureDecoder {
  private let decompressor: GzipDecompressor
  /// Whether coordinates stay integer tile units (x east, y down, 0 to the layer's extent).
  public let tileCoordinates: Bool

  /// A decoder writing WGS84 longitudes and latitudes, or tile coordinates.
  public init(tileCoordinates: Bool = false) throws {
    decompressor = try GzipDecompressor()
    self.tileCoordinates = tileCoordinates
  }

  /// The uncompressed protocol-buffers message of a stored tile.
  func uncompressed(_ data: [UInt8]) throws -> [UInt8] {
    guard let first = data.first, first == 0x1f || first == 0x78 else { return data }
    do {
      return try decompressor.decompress(data, limit: 1 << 28)
    } catch let error as GeoPipeError {
      throw TilesError(error.message)
    }
  }

  /// The features of a stored tile, layer by layer in the order the tile holds them.
  ///
  /// Throws a `TilesError` saying what is wrong with the tile (the caller names it).
  public func features(of data: [UInt8], tile: TileID) throws -> [Feature] {
    let layers = try VectorTileDecoder.decode(uncompressed(data))
    var features: [Feature] = []
    let tileName = JSONValue.string(tile.description)
    for layer in layers {
      var members = JSONObject()
      members["tile"] = tileName
      members["tippecanoe"] = .object(["layer": .string(layer.name)])
      for (k, tileFeature) in layer.features.enumerated() {
        do {
          guard
            var geometry = try TileGeometryDecoder.decode(
              layer.commands(of: tileFeature), type: tileFeature.type)
          else { continue }
          if !tileCoordinates { toLongitudeLatitude(&geometry, tile: tile, extent: layer.extent) }
          features.append(
            Feature(
              id: tileFeature.id.map {
                $0 <= UInt64(Int64.max) ? .integer(Int64($0)) : .bigInteger(String($0))
              },
              geometry: geometry, properties: try layer.properties(of: tileFeature),
              foreignMembers: members))
        } catch let error as TilesError {
          throw TilesError("layer '\(layer.name)' feature \(k): \(error)")
        }
      }
    }
    return features
  }

  /// Tile coordinates to longitude and latitude as MVT defines them: `x / extent` across the
  /// tile, then inverse Web Mercator; rings reversed, since a ring MVT winds clockwise on
  /// screen (y down) runs clockwise on the map, and RFC 7946 winds exteriors the other way.
  private func toLongitudeLatitude(_ geometry: inout Geometry, tile: TileID, extent: Int) {
    switch geometry {
    case .polygon(var rings):
      for k in rings.indices { rings[k].reverse() }
      geometry = .polygon(rings)
    case .multiPolygon(var polygons):
      for p in polygons.indices {
        for k in polygons[p].indices { polygons[p][k].reverse() }
      }
      geometry = .multiPolygon(polygons)
    default: break
    }
    let scale = 1 / (Double(extent) * Double(1 << tile.z))
    let x0 = Double(tile.x) * Double(extent)
    let y0 = Double(tile.y) * Double(extent)
    geometry.transformXY { x, y in
      let lon = WebMercator.longitude(x: (x0 + x) * scale)
      let lat = WebMercator.latitude(y: (y0 + y) * scale)
      x = lon
      y = lat
    }
  }
}
