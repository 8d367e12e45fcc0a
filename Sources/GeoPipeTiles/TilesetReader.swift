import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator

/// A tileset read tile by tile: an MBTiles or a PMTiles file.
///
/// Tiles come in PMTiles tile-id order (zoom by zoom, along the Hilbert curve within a zoom),
/// so that several readers can be merged in one pass, without holding the tileset in memory.
/// Errors are `GeoPipeError`s naming the file and, for a bad tile, the tile.
public protocol TilesetReader: AnyObject {
  /// The file.
  var path: String { get }
  /// What the file says about itself, in the form the writers take.
  var metadata: TilesetMetadata { get }
  /// Every metadata entry as stored: MBTiles `metadata` rows, or the PMTiles header's fields
  /// and its JSON metadata's members.
  var entries: JSONObject { get }
  /// What the tiles are, as MBTiles' `format` names them: `pbf` (vector tiles), `png`,
  /// `jpg`, `webp`, or another word the file gives.
  var tileFormat: String { get }
  /// The next tile and its bytes as stored (usually gzipped), or nil after the last.
  func next() throws -> (tile: TileID, data: [UInt8])?
  /// One tile's bytes as stored, or nil when the tileset does not hold it.
  func data(of tile: TileID) throws -> [UInt8]?
}

extension TilesetReader {
  /// The `format` metadata entry, in lower case; `pbf` when there is none.
  public var tileFormat: String { entries["format"]?.stringValue?.lowercased() ?? "pbf" }
}

/// Opens the tileset at `path`: PMTiles when its first bytes are the PMTiles magic number or
/// its name ends in .pmtiles, else MBTiles (an SQLite file).
///
/// PMTiles of raster tiles are opened only when `rasterAllowed`.
public func openTileset(path: String, rasterAllowed: Bool = false) throws -> any TilesetReader {
  guard let handle = FileHandle(forReadingAtPath: path) else {
    throw GeoPipeError("cannot open '\(path)': no such file or not readable", status: .noInput)
  }
  let magic = (try? handle.read(upToCount: 16)) ?? Data()
  try? handle.close()
  if magic.starts(with: Array("PMTiles".utf8)) || path.lowercased().hasSuffix(".pmtiles") {
    return try PMTilesReader(path: path, rasterAllowed: rasterAllowed)
  }
  if magic.starts(with: Array("SQLite format 3".utf8)) || path.lowercased().hasSuffix(".mbtiles") {
    return try MBTilesReader(path: path)
  }
  throw GeoPipeError(
    "'\(path)' is neither an MBTiles (SQLite) nor a PMTiles file", status: .dataError)
}

extension TilesetMetadata {
  /// Metadata from a tileset's entries as MBTiles 1.3 names them (`bounds` as text or an
  /// array, `json` holding `vector_layers`, or `vector_layers` itself), with the zooms given
  /// when the entries have none.
  init(entries: JSONObject, minZoom: Int, maxZoom: Int) {
    func text(_ key: String) -> String? { entries[key]?.stringValue }
    func number(_ key: String) -> Int? {
      if let n = entries[key]?.numberValue { return Int(exactly: n.rounded()) }
      return text(key).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
    var box = [-180, -WebMercator.maxLatitude, 180, WebMercator.maxLatitude]
    if case .array(let values)? = entries["bounds"] {
      let numbers = values.compactMap(\.numberValue)
      if numbers.count == 4 { box = numbers }
    } else if let bounds = text("bounds") {
      let numbers = bounds.split(separator: ",").compactMap {
        Double($0.trimmingCharacters(in: .whitespaces))
      }
      if numbers.count == 4 { box = numbers }
    }
    var layers: JSONValue = .array([])
    if let json = text("json"),
      case .object(let object)? = try? JSONText.parse(Array(json.utf8), name: "json"),
      let found = object["vector_layers"]
    {
      layers = found
    } else if let found = entries["vector_layers"] {
      layers = found
    }
    var writer = JSONTextWriter()
    writer.writeValue(.object(["vector_layers": layers]))
    self.init(
      name: text("name") ?? "", description: text("description") ?? "",
      attribution: text("attribution") ?? "", west: box[0], south: box[1], east: box[2],
      north: box[3], minZoom: number("minzoom") ?? minZoom, maxZoom: number("maxzoom") ?? maxZoom,
      json: String(decoding: writer.bytes, as: UTF8.self))
  }

  /// The `vector_layers` entries (objects with `id`, `fields`, `minzoom`, `maxzoom`, ...).
  public var vectorLayers: [JSONObject] {
    guard case .object(let object)? = try? JSONText.parse(Array(json.utf8), name: "json"),
      case .array(let layers)? = object["vector_layers"]
    else { return [] }
    return layers.compactMap { if case .object(let layer) = $0 { layer } else { nil } }
  }
}

/// A tile's problem as an error naming the file and the tile (bad input data, exit 65).
func tileError(_ path: String, _ tile: TileID, _ error: any Error) -> GeoPipeError {
  let message = (error as? GeoPipeError)?.message ?? "\(error)"
  return GeoPipeError("\(path): tile \(tile): \(message)", status: .dataError)
}
