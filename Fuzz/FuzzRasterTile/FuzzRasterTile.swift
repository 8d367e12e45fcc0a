import GeoPipeMercator
import GeoPipeRender

/// A raster source whose every tile is the fuzzer's bytes.
final class FuzzedTiles: RasterTileSource {
  let name = "fuzz"
  let zooms = 0...0
  let attribution = ""
  let bytes: [UInt8]
  init(_ bytes: [UInt8]) { self.bytes = bytes }
  func imageData(of tile: TileID) throws -> [UInt8]? { bytes }
}

/// libFuzzer entry point: any bytes, as a raster tile (PNG through cairo, JPEG through libjpeg,
/// WebP through libwebp) decoded for a small satellite map, must give a map or a warning, never
/// a crash.
///
/// The map is SVG: cairo's text (the scale bar of a PNG) loads fontconfig's caches, which the
/// leak checker reports at exit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRasterTile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let map = StaticMap(
    width: 64, height: 64, scale: 1,
    camera: .center(longitude: 0, latitude: 0, zoom: 0, bearing: 20), countBy: nil)
  _ = try? map.render(
    [], basemap: Basemap(mapType: .satellite, raster: [FuzzedTiles(bytes)]), format: .svg)
  return 0
}
