import Foundation
import GeoPipeCore
import GeoPipeMercator
import GeoPipeRender
import GeoPipeTiles

/// The sources `render --basemap` takes: tilesets, tile folders and polygon files.
enum BasemapSources {
  /// One `--basemap` argument, opened.
  enum Opened {
    case raster(any RasterTileSource)
    case vector(any VectorTileSource)
    case polygons(String)
  }

  /// Opens a `--basemap` argument: `xyz:DIR` or `tms:DIR` (or a folder, XYZ) of raster
  /// tiles; an .mbtiles or .pmtiles file of raster or vector tiles; anything else is a file of
  /// polygons drawn as land.
  static func open(_ argument: String) throws -> Opened {
    for scheme in TileFolderSource.Scheme.allCases where argument.hasPrefix("\(scheme.rawValue):") {
      return .raster(
        try TileFolderSource(
          path: String(argument.dropFirst(scheme.rawValue.count + 1)), scheme: scheme))
    }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      return .raster(try TileFolderSource(path: argument, scheme: .xyz))
    }
    let lowered = argument.lowercased()
    guard lowered.hasSuffix(".mbtiles") || lowered.hasSuffix(".pmtiles") else {
      return .polygons(argument)
    }
    let reader = try openTileset(path: argument, rasterAllowed: true)
    switch reader.tileFormat {
    case "pbf", "mvt": return .vector(try TilesetVectorSource(reader))
    case "png", "jpg", "jpeg", "webp": return .raster(try TilesetRasterSource(reader))
    case let other:
      throw GeoPipeError(
        "render: '\(argument)' holds tiles of format '\(other)'; --basemap reads vector tiles "
          + "(pbf) and PNG, JPEG or WebP tiles", status: .dataError)
    }
  }
}

/// The zooms a tileset says it holds, checked.
private func checkedZooms(_ metadata: TilesetMetadata, path: String) throws -> ClosedRange<Int> {
  let low = max(metadata.minZoom, 0)
  let high = min(metadata.maxZoom, TileID.maxZoom)
  guard low <= high else {
    throw GeoPipeError(
      "render: '\(path)' says its zooms run from \(metadata.minZoom) to \(metadata.maxZoom)",
      status: .dataError)
  }
  return low...high
}

/// Raster tiles of an MBTiles or PMTiles file.
final class TilesetRasterSource: RasterTileSource {
  private let reader: any TilesetReader
  let zooms: ClosedRange<Int>

  init(_ reader: any TilesetReader) throws {
    self.reader = reader
    zooms = try checkedZooms(reader.metadata, path: reader.path)
  }

  var name: String { reader.path }
  var attribution: String { reader.metadata.attribution }

  func imageData(of tile: TileID) throws -> [UInt8]? { try reader.data(of: tile) }
}

/// Vector tiles of an MBTiles or PMTiles file, decoded into WGS84 features.
final class TilesetVectorSource: VectorTileSource {
  private let reader: any TilesetReader
  private let decoder: TileFeatureDecoder
  let zooms: ClosedRange<Int>

  init(_ reader: any TilesetReader) throws {
    self.reader = reader
    decoder = try TileFeatureDecoder()
    zooms = try checkedZooms(reader.metadata, path: reader.path)
  }

  var name: String { reader.path }
  var attribution: String { reader.metadata.attribution }

  func features(of tile: TileID) throws -> [Feature]? {
    guard let data = try reader.data(of: tile) else { return nil }
    do {
      return try decoder.features(of: data, tile: tile)
    } catch let error as TilesError {
      throw GeoPipeError("\(reader.path): tile \(tile): \(error)", status: .dataError)
    }
  }
}

/// A folder of raster tiles, `Z/X/Y.png` (or .jpg, .jpeg, .webp), rows counted from the
/// north (XYZ) or from the south (TMS).
final class TileFolderSource: RasterTileSource {
  /// How rows are counted.
  enum Scheme: String, CaseIterable {
    case xyz
    case tms
  }

  static let extensions = ["png", "jpg", "jpeg", "webp"]

  let name: String
  let zooms: ClosedRange<Int>
  let attribution = ""
  private let scheme: Scheme

  /// Opens the folder; its zooms are the names of its numbered subfolders.
  init(path: String, scheme: Scheme) throws {
    name = path
    self.scheme = scheme
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw GeoPipeError(
        "render: cannot open the tile folder '\(path)': no such folder", status: .noInput)
    }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    let levels = names.compactMap { Int($0) }.filter { (0...TileID.maxZoom).contains($0) }
    guard let low = levels.min(), let high = levels.max() else {
      throw GeoPipeError(
        "render: the tile folder '\(path)' has no zoom folders (0, 1, 2, ... holding X/Y.png)",
        status: .dataError)
    }
    zooms = low...high
  }

  func imageData(of tile: TileID) throws -> [UInt8]? {
    let row = scheme == .tms ? tile.tmsY : tile.y
    let stem = "\(name)/\(tile.z)/\(tile.x)/\(row)"
    for ext in Self.extensions {
      let path = "\(stem).\(ext)"
      guard let data = FileManager.default.contents(atPath: path) else { continue }
      return Array(data)
    }
    return nil
  }
}
