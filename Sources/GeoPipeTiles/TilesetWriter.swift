import GeoPipeMercator

/// Where tiles go: an MBTiles or a PMTiles file.
public protocol TilesetWriter: AnyObject {
  /// Stores one gzipped tile; tiles arrive zoom by zoom, in PMTiles tile-id order.
  func writeTile(_ tile: TileID, data: [UInt8]) throws
  /// Writes the metadata and moves the finished file into place.
  func finish(metadata: TilesetMetadata) throws
  /// Removes the partial file.
  func abort()
}

/// What a tileset says about itself.
public struct TilesetMetadata: Sendable {
  /// The tileset's name.
  public var name: String
  /// A description.
  public var description: String
  /// The attribution to show.
  public var attribution: String
  /// The data's west edge.
  public var west: Double
  /// The data's south edge.
  public var south: Double
  /// The data's east edge.
  public var east: Double
  /// The data's north edge.
  public var north: Double
  /// The lowest zoom.
  public var minZoom: Int
  /// The highest zoom.
  public var maxZoom: Int
  /// `{"vector_layers": [...]}`.
  public var json: String

  /// The centre of the bounds (the middle of the box in degrees, as tippecanoe writes it).
  public var center: (longitude: Double, latitude: Double) {
    let east = self.east < west ? self.east + 360 : self.east
    var lon = (west + east) / 2
    if lon > 180 { lon -= 360 }
    return (lon, (south + north) / 2)
  }
}

/// Opens the writer a path's extension names (`.mbtiles` or `.pmtiles`).
public func makeTilesetWriter(path: String) throws -> any TilesetWriter {
  if path.lowercased().hasSuffix(".mbtiles") { return try MBTilesWriter(path: path) }
  if path.lowercased().hasSuffix(".pmtiles") { return try PMTilesWriter(path: path) }
  throw TilesError("'\(path)': the tileset path must end in .mbtiles or .pmtiles")
}

/// Numbers in metadata: at most 6 decimals, no trailing zeros.
func formatDegrees(_ x: Double) -> String {
  var text = String(format: "%.6f", x)
  while text.hasSuffix("0") { text.removeLast() }
  if text.hasSuffix(".") { text.removeLast() }
  return text == "-0" ? "0" : text
}
