import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator

/// What a tileset written as a part of a sharded run keeps beside it, for the merge: the
/// metadata its tiler made, exactly (a tileset's format rounds the bounds it stores), and the
/// tiles it wrote over the size limits, which the merge warns of as one run would.
public struct TilesetPartInfo: Sendable {
  /// The metadata as the tiler made it.
  public var metadata: TilesetMetadata
  /// The tiles written over the limits, in tile order.
  public var oversized: [(tile: TileID, violation: TileSizeViolation)]

  /// Info on a part.
  public init(
    metadata: TilesetMetadata, oversized: [(tile: TileID, violation: TileSizeViolation)]
  ) {
    self.metadata = metadata
    self.oversized = oversized
  }

  /// The info as JSON text.
  public func encoded() -> [UInt8] {
    var object = JSONObject()
    object.appendUnchecked("name", .string(metadata.name))
    object.appendUnchecked("description", .string(metadata.description))
    object.appendUnchecked("attribution", .string(metadata.attribution))
    object.appendUnchecked(
      "bounds",
      .array([metadata.west, metadata.south, metadata.east, metadata.north].map(JSONValue.double)))
    object.appendUnchecked("minzoom", .integer(Int64(metadata.minZoom)))
    object.appendUnchecked("maxzoom", .integer(Int64(metadata.maxZoom)))
    object.appendUnchecked("json", .string(metadata.json))
    object.appendUnchecked(
      "oversized",
      .array(
        oversized.map { tile, violation in
          .array(
            [
              tile.z, tile.x, tile.y, violation.bytes, violation.features,
              violation.maxBytes, violation.maxFeatures,
            ].map { .integer(Int64($0)) })
        }))
    var text = JSONTextWriter()
    text.writeValue(.object(object))
    return text.bytes
  }

  /// Info read back from ``encoded()``; throws a ``TilesError`` when `value` is not that.
  public init(decoding value: JSONValue) throws {
    guard case .object(let object) = value, let name = object["name"]?.stringValue,
      let description = object["description"]?.stringValue,
      let attribution = object["attribution"]?.stringValue,
      case .array(let bounds)? = object["bounds"], bounds.count == 4,
      let minZoom = object["minzoom"]?.numberValue, let maxZoom = object["maxzoom"]?.numberValue,
      let json = object["json"]?.stringValue, case .array(let tiles)? = object["oversized"]
    else { throw TilesError("not the info of a tileset part") }
    let box = bounds.compactMap(\.numberValue)
    guard box.count == 4 else { throw TilesError("not the info of a tileset part") }
    metadata = TilesetMetadata(
      name: name, description: description, attribution: attribution, west: box[0],
      south: box[1], east: box[2], north: box[3], minZoom: Int(minZoom), maxZoom: Int(maxZoom),
      json: json)
    oversized = try tiles.map { entry in
      guard case .array(let numbers) = entry, numbers.count == 7 else {
        throw TilesError("not the info of a tileset part")
      }
      let n = numbers.compactMap { $0.numberValue.map(Int.init) }
      guard n.count == 7, (0...TileID.maxZoom).contains(n[0]),
        let tile = TileID(z: n[0], x: n[1], y: n[2]),
        let violation = TileSizeLimits(maxBytes: n[5], maxFeatures: n[6]).violation(
          bytes: n[3], features: n[4])
      else { throw TilesError("not the info of a tileset part") }
      return (tile, violation)
    }
  }
}

extension TilesetMetadata: Equatable {
  /// Whether two tilesets say the same about themselves, field by field.
  public static func == (a: TilesetMetadata, b: TilesetMetadata) -> Bool {
    (a.name, a.description, a.attribution, a.minZoom, a.maxZoom, a.json)
      == (b.name, b.description, b.attribution, b.minZoom, b.maxZoom, b.json)
      && [a.west, a.south, a.east, a.north] == [b.west, b.south, b.east, b.north]
  }
}
