import CCairo
import Foundation
import GeoPipeCore
import GeoPipeMercator
import Testing

@testable import GeoPipeRender

/// A raster source whose tiles are painted from geography, not from geopipe.
///
/// Each pixel is red north-west of 0°, 0°, blue north-east, green south-west and yellow south-east. Tiles
/// are PNGs made by cairo; the source counts how often each tile is read.
final class QuadrantTiles: RasterTileSource {
  let name = "quadrants"
  let zooms: ClosedRange<Int>
  let attribution = "Quadrants Inc."
  var reads: [TileID: Int] = [:]
  var missing: Set<TileID> = []
  var corrupt: Set<TileID> = []

  init(zooms: ClosedRange<Int>) { self.zooms = zooms }

  func imageData(of tile: TileID) throws -> [UInt8]? {
    reads[tile, default: 0] += 1
    if missing.contains(tile) { return nil }
    if corrupt.contains(tile) { return Array("not an image".utf8) }
    return Self.png(tile)
  }

  /// The colour at a longitude and latitude, as 0xRRGGBB.
  static func color(longitude: Double, latitude: Double) -> UInt32 {
    switch (longitude < 0, latitude > 0) {
    case (true, true): 0xff0000
    case (false, true): 0x0000ff
    case (true, false): 0x00ff00
    case (false, false): 0xffff00
    }
  }

  static func png(_ tile: TileID) -> [UInt8] {
    let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 256, 256)!
    let cr = cairo_create(surface)!
    let n = Double(1 << tile.z)
    // Where 0° longitude and 0° latitude cross this tile, in its pixels (may lie outside).
    let meridian = min(max((n / 2 - Double(tile.x)) * 256, 0), 256)
    let equator = min(max((n / 2 - Double(tile.y)) * 256, 0), 256)
    let quarters: [(Double, Double, Double, Double, UInt32)] = [
      (0, 0, meridian, equator, 0xff0000), (meridian, 0, 256 - meridian, equator, 0x0000ff),
      (0, equator, meridian, 256 - equator, 0x00ff00),
      (meridian, equator, 256 - meridian, 256 - equator, 0xffff00),
    ]
    for (x, y, w, h, rgb) in quarters where w > 0 && h > 0 {
      cairo_set_source_rgb(
        cr, Double(rgb >> 16 & 255) / 255, Double(rgb >> 8 & 255) / 255, Double(rgb & 255) / 255)
      cairo_rectangle(cr, x, y, w, h)
      cairo_fill(cr)
    }
    cairo_destroy(cr)
    final class Buffer { var bytes: [UInt8] = [] }
    let buffer = Buffer()
    cairo_surface_write_to_png_stream(
      surface,
      { closure, data, length in
        let buffer = Unmanaged<Buffer>.fromOpaque(closure!).takeUnretainedValue()
        buffer.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
        return CAIRO_STATUS_SUCCESS
      }, Unmanaged.passUnretained(buffer).toOpaque())
    cairo_surface_destroy(surface)
    return buffer.bytes
  }
}

@Suite struct BasemapTests {
  /// The device pixel of a longitude and latitude, computed here from the Web Mercator
  /// formulas (not through geopipe's projector).
  static func pixel(
    longitude: Double, latitude: Double, center: (Double, Double), zoom: Double,
    bearing: Double, width: Double, height: Double, scale: Double
  ) -> (Int, Int) {
    let world = 256 * pow(2, zoom)
    func x(_ lon: Double) -> Double { (lon + 180) / 360 * world }
    func y(_ lat: Double) -> Double {
      (1 - log(tan(.pi / 4 + lat * .pi / 360)) / .pi) / 2 * world
    }
    let dx = x(longitude) - x(center.0)
    let dy = y(latitude) - y(center.1)
    let b = bearing * .pi / 180
    let sx = width / 2 + dx * cos(b) + dy * sin(b)
    let sy = height / 2 - dx * sin(b) + dy * cos(b)
    return (Int((sx * scale).rounded(.down)), Int((sy * scale).rounded(.down)))
  }

  /// The PNG decoded by cairo, as a pixel reader giving 0xRRGGBB.
  static func pixels(_ png: [UInt8]) throws -> (width: Int, height: Int, rgb: (Int, Int) -> UInt32)
  {
    let image = try RasterImage(bytes: png)
    return (
      image.width, image.height, { x, y in image.pixel(x: x, y: y) & 0xffffff }
    )
  }

  static let probes: [(Double, Double)] = [(-40, 30), (50, 25), (-20, -35), (35, -20)]

  @Test(arguments: [
    (zoom: 1.0, bearing: 0.0, scale: 1.0), (zoom: 1.5, bearing: 30, scale: 2),
    (zoom: 2.2, bearing: -75, scale: 1.5), (zoom: 2, bearing: 180, scale: 0.5),
  ])
  func satelliteTilesShowEachQuadrantWhereItIs(zoom: Double, bearing: Double, scale: Double)
    throws
  {
    let tiles = QuadrantTiles(zooms: 0...3)
    let map = StaticMap(
      width: 400, height: 300, scale: scale,
      camera: .center(longitude: 5, latitude: 3, zoom: zoom, bearing: bearing), countBy: nil)
    let png = try map.render(
      [], basemap: Basemap(mapType: .satellite, raster: [tiles]), format: .png)
    let image = try Self.pixels(png)
    for (lon, lat) in Self.probes {
      let (x, y) = Self.pixel(
        longitude: lon, latitude: lat, center: (5, 3), zoom: zoom, bearing: bearing, width: 400,
        height: 300, scale: scale)
      guard x >= 0, y >= 0, x < image.width, y < image.height else { continue }
      #expect(
        image.rgb(x, y) == QuadrantTiles.color(longitude: lon, latitude: lat),
        "\(lon), \(lat) at \(x), \(y)")
    }
    // Tiles of zoom floor(zoom + log2(scale)), each read once.
    let expected = min(max(Int((zoom + log2(scale)).rounded(.down)), 0), 3)
    #expect(Set(tiles.reads.keys.map(\.z)) == [expected])
    #expect(tiles.reads.values.allSatisfy { $0 == 1 })
  }

  @Test func deeperZoomsEnlargeTheDeepestTiles() throws {
    let tiles = QuadrantTiles(zooms: 0...2)
    let map = StaticMap(
      width: 256, height: 256, scale: 2,
      camera: .center(longitude: 0.01, latitude: 0.01, zoom: 9, bearing: 0), countBy: nil)
    let png = try map.render(
      [], basemap: Basemap(mapType: .satellite, raster: [tiles]), format: .png)
    let image = try Self.pixels(png)
    #expect(Set(tiles.reads.keys.map(\.z)) == [2])
    for (lon, lat) in [(0.03, 0.03), (-0.01, 0.03), (0.03, -0.01)] {
      let (x, y) = Self.pixel(
        longitude: lon, latitude: lat, center: (0.01, 0.01), zoom: 9, bearing: 0, width: 256,
        height: 256, scale: 2)
      #expect(image.rgb(x, y) == QuadrantTiles.color(longitude: lon, latitude: lat))
    }
  }

  @Test func missingAndCorruptTilesShowTheBackground() throws {
    let tiles = QuadrantTiles(zooms: 1...1)
    tiles.missing = [TileID(unchecked: 1, 0, 0)]
    tiles.corrupt = [TileID(unchecked: 1, 1, 1)]
    var warnings: [String] = []
    let map = StaticMap(
      width: 512, height: 512, scale: 1,
      camera: .center(longitude: 0, latitude: 0, zoom: 1, bearing: 0), countBy: nil)
    let png = try map.render(
      [], basemap: Basemap(mapType: .satellite, raster: [tiles], warn: { warnings.append($0) }),
      format: .png)
    let image = try Self.pixels(png)
    let background: UInt32 = 0xeef0f2
    #expect(image.rgb(100, 100) == background)
    #expect(image.rgb(400, 400) == background)
    #expect(image.rgb(400, 100) == 0x0000ff)
    #expect(image.rgb(100, 400) == 0x00ff00)
    #expect(warnings.count == 1)
    #expect(warnings.first?.contains("tile 1/1/1") == true)
    #expect(warnings.first?.contains("not a PNG, JPEG or WebP") == true)
  }

  @Test func attributionIsDrawnInTheCorner() throws {
    let tiles = QuadrantTiles(zooms: 0...2)
    let map = StaticMap(
      width: 300, height: 200, scale: 1,
      camera: .center(longitude: 0, latitude: 0, zoom: 1, bearing: 0), countBy: nil)
    let svg = String(
      decoding: try map.render(
        [], basemap: Basemap(mapType: .satellite, raster: [tiles]), format: .svg),
      as: UTF8.self)
    #expect(svg.contains(">Quadrants Inc.</text>"))
    #expect(svg.contains("xlink:href=\"data:image/png;base64,"))
    let given = String(
      decoding: try map.render(
        [],
        basemap: Basemap(
          mapType: .satellite, raster: [tiles], attribution: "<a href=\"x\">&copy; Me</a>"),
        format: .svg), as: UTF8.self)
    #expect(given.contains(">© Me</text>"))
  }

  @Test func standardDrawsVectorLayersInTheBuiltInStyle() throws {
    final class Water: VectorTileSource {
      let name = "water"
      let zooms = 0...0
      let attribution = ""
      func features(of tile: TileID) throws -> [Feature]? {
        let ring = CoordinateArray(
          storage: [-60, -40, 60, -40, 60, 40, -60, 40, -60, -40], dimension: 2)
        let place = Feature(
          geometry: .point(Position(x: 100, y: 50)), properties: ["name": .string("Somewhere")],
          foreignMembers: ["tippecanoe": .object(["layer": .string("place")])])
        return [
          Feature(
            geometry: .polygon([ring]), properties: [:],
            foreignMembers: ["tippecanoe": .object(["layer": .string("land")])]), place,
        ]
      }
    }
    let map = StaticMap(
      width: 512, height: 512, scale: 1,
      camera: .center(longitude: 0, latitude: 0, zoom: 1, bearing: 0), countBy: nil)
    let png = try map.render(
      [], basemap: Basemap(mapType: .standard, vector: [Water()]), format: .png)
    let image = try Self.pixels(png)
    #expect(image.rgb(256, 256) == 0xf2efe9)
    #expect(image.rgb(20, 20) == 0xaad3df)
    let svg = String(
      decoding: try map.render(
        [], basemap: Basemap(mapType: .standard, vector: [Water()]), format: .svg),
      as: UTF8.self)
    #expect(svg.contains(">Somewhere</text>"))
  }
}
