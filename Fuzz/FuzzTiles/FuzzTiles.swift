import Foundation
import GeoPipeMercator
import GeoPipeTiles

/// The file each input is written to, to be opened as a PMTiles archive.
let archive = FileManager.default.temporaryDirectory
  .appendingPathComponent("fuzz-tiles-\(getpid()).pmtiles")

/// The options of the parts of tile features fuzzed (those of the seeds): few zooms, so that
/// a part's tiles are written quickly.
let partOptions: TilerOptions = {
  var options = TilerOptions()
  options.maxZoom = 3
  return options
}()

/// A tileset writer that keeps nothing.
final class Discarding: TilesetWriter {
  func writeTile(_ tile: TileID, data: [UInt8]) throws {}
  func finish(metadata: TilesetMetadata) throws {}
  func abort() {}
}

/// libFuzzer entry point: any bytes, as a vector tile (gzipped or not), as a part of tile
/// features (as they are, and between the part's first and last bytes) and as a PMTiles archive
/// (header, metadata, root and leaf directories, then every tile decoded), must give features
/// or an error, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  for part in [bytes, Array("geopipe tile features 1\n".utf8) + bytes + Array("end\n".utf8)] {
    let tiler = Tiler(options: partOptions)
    if (try? tiler.absorb(featuresPart: part)) != nil {
      _ = try? tiler.write(to: Discarding(), name: "fuzz", attribution: "", description: "")
    }
  }
  guard let decoder = try? TileFeatureDecoder() else { fatalError("no decoder") }
  _ = try? decoder.features(of: bytes, tile: TileID(unchecked: 3, 4, 2))
  guard (try? Data(bytes).write(to: archive)) != nil,
    let reader = try? openTileset(path: archive.path)
  else { return 0 }
  var tiles = 0
  while tiles < 10_000, let (tile, data) = try? reader.next() {
    _ = try? decoder.features(of: data, tile: tile)
    _ = try? reader.data(of: tile)
    tiles += 1
  }
  return 0
}
