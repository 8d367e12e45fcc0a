import Foundation
import GeoPipeCore
import GeoPipeMercator
import Testing

/// Tile math and cameras against values written by `Scripts/gen-tile-fixtures.py` from
/// mercantile and EPSG:3857 metre arithmetic (`Fixtures/mercator/`).
@Suite struct MercatorTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/mercator")

  struct TileCase: Decodable {
    var lon, lat: Double
    var z, x, y, tmsY: Int
    var quadkey: String
    var bounds: [Double]
  }

  struct CameraCase: Decodable {
    struct Expected: Decodable {
      var center: [Double]
      var zoom: Double
      var bounds: [Double]
    }
    var box: [Double]
    var width, height: Double
    var insets: [Double]
    var minZoom, maxZoom: Double
    var expected: Expected
  }

  static func load<T: Decodable>(_ name: String) throws -> [T] {
    let data = try Data(contentsOf: folder.appendingPathComponent(name))
    return try JSONDecoder().decode([T].self, from: data)
  }

  @Test func tilesMatchMercantile() throws {
    let cases: [TileCase] = try Self.load("tiles.json")
    #expect(cases.count > 400)
    for c in cases {
      let tile = TileID(longitude: c.lon, latitude: c.lat, zoom: c.z)
      #expect(tile.z == c.z && tile.x == c.x && tile.y == c.y, "\(c.lon),\(c.lat) z\(c.z)")
      #expect(tile.tmsY == c.tmsY)
      #expect(tile.quadkey == c.quadkey)
      #expect(TileID(quadkey: c.quadkey) == tile)
      #expect(TileID(z: c.z, x: c.x, tmsY: c.tmsY) == tile)
      let b = tile.bounds
      for (mine, theirs) in zip([b.west, b.south, b.east, b.north], c.bounds) {
        #expect(abs(mine - theirs) < 1e-9, "\(tile) bounds")
      }
    }
  }

  @Test func rejectsBadTilesAndQuadkeys() {
    #expect(TileID(z: 2, x: 4, y: 0) == nil)
    #expect(TileID(z: -1, x: 0, y: 0) == nil)
    #expect(TileID(quadkey: "0124") == nil)
    #expect(TileID(quadkey: "") == TileID(z: 0, x: 0, y: 0))
  }

  @Test func parentsAndChildrenNest() throws {
    let tile = try #require(TileID(z: 5, x: 17, y: 11))
    #expect(tile.children.count == 4)
    #expect(tile.children.allSatisfy { $0.parent == tile })
    #expect(tile.parent == TileID(z: 4, x: 8, y: 5))
  }

  @Test func projectionRoundTrips() {
    for (lon, lat) in [(0.0, 0.0), (-179.5, 84.9), (45.25, -33.3), (180.0, -85.0)] {
      let (x, y) = WebMercator.project(longitude: lon, latitude: lat)
      let back = WebMercator.unproject(x: x, y: y)
      #expect(abs(back.longitude - lon) < 1e-9 && abs(back.latitude - lat) < 1e-9)
    }
    #expect(WebMercator.worldSize(zoom: 3) == 2048)
    #expect(WebMercator.y(latitude: 89) == 0)
  }

  @Test func fitBoundsMatchesMetreArithmetic() throws {
    let cases: [CameraCase] = try Self.load("cameras.json")
    for c in cases {
      let camera = Camera.fitting(
        BBox(west: c.box[0], south: c.box[1], east: c.box[2], north: c.box[3]),
        in: Viewport(width: c.width, height: c.height),
        insets: EdgeInsets(
          top: c.insets[0], left: c.insets[1], bottom: c.insets[2], right: c.insets[3]),
        limits: ZoomLimits(minZoom: c.minZoom, maxZoom: c.maxZoom))
      let label = "\(c.box) \(c.width)x\(c.height)"
      #expect(abs(camera.zoom - c.expected.zoom) < 1e-9, "\(label)")
      #expect(abs(camera.longitude - c.expected.center[0]) < 1e-7, "\(label)")
      #expect(abs(camera.latitude - c.expected.center[1]) < 1e-7, "\(label)")
      let box = camera.visibleBox(in: Viewport(width: c.width, height: c.height))
      let e = c.expected.bounds
      // Views wider than the world or past its top and bottom are clamped here, not there.
      guard e[2] - e[0] > 0, e[2] - e[0] < 359, e[1] > -85, e[3] < 85 else { continue }
      for (mine, theirs) in zip([box.west, box.south, box.east, box.north], e) {
        #expect(abs(mine - theirs) < 1e-7, "\(label) bounds")
      }
    }
  }

  @Test func clampsZoomAndTarget() {
    let camera = Camera(longitude: 10, latitude: 60, zoom: 19)
    let clamped = camera.clamped(
      to: ZoomLimits(minZoom: 2, maxZoom: 16),
      targetBounds: BBox(west: -5, south: 40, east: 5, north: 50))
    #expect(clamped.zoom == 16 && clamped.longitude == 5 && clamped.latitude == 50)
    let across = Camera(longitude: -175, latitude: 0, zoom: 1).clamped(
      to: ZoomLimits(), targetBounds: BBox(west: 170, south: -10, east: -178, north: 10))
    #expect(across.longitude == -178)
  }

  @Test func zoomingAtAPointKeepsItInPlace() {
    let viewport = Viewport(width: 800, height: 600)
    for bearing in [0.0, 45, 200] {
      let camera = Camera(longitude: 2.35, latitude: 48.85, zoom: 10, bearing: bearing)
      let zoomed = camera.zoomed(by: 1.5, at: (600, 150), in: viewport)
      #expect(zoomed.zoom == 11.5 && zoomed.bearing == bearing)
      let before = Self.screenToWorld(camera, (600, 150), viewport)
      let after = Self.screenToWorld(zoomed, (600, 150), viewport)
      #expect(abs(before.0 - after.0) < 1e-12 && abs(before.1 - after.1) < 1e-12)
    }
    let centre = Camera(longitude: 2.35, latitude: 48.85, zoom: 10)
      .zoomed(by: -2, at: (400, 300), in: viewport)
    #expect(abs(centre.longitude - 2.35) < 1e-9 && abs(centre.latitude - 48.85) < 1e-9)
  }

  @Test func rotatedViewsCoverMore() {
    let viewport = Viewport(width: 800, height: 400)
    let flat = Camera(longitude: 0, latitude: 0, zoom: 5).visibleBox(in: viewport)
    let turned = Camera(longitude: 0, latitude: 0, zoom: 5, bearing: 90).visibleBox(in: viewport)
    // Turned by 90° the long side runs north–south.
    #expect(turned.north - turned.south > flat.north - flat.south)
    #expect(turned.east - turned.west < flat.east - flat.west)
    #expect(Camera(longitude: 0, latitude: 0, zoom: 0, bearing: -90).bearing == 270)
  }

  /// Screen point to world units, written out here from the rotation's definition: screen up
  /// points `bearing` degrees clockwise from north.
  static func screenToWorld(_ camera: Camera, _ point: (Double, Double), _ viewport: Viewport)
    -> (Double, Double)
  {
    let size = 256 * pow(2, camera.zoom)
    let (cx, cy) = WebMercator.project(longitude: camera.longitude, latitude: camera.latitude)
    let a = camera.bearing * .pi / 180
    let dx = point.0 - viewport.width / 2
    let dy = point.1 - viewport.height / 2
    return (cx + (dx * cos(a) - dy * sin(a)) / size, cy + (dx * sin(a) + dy * cos(a)) / size)
  }

  @Test func cameraJSONRoundsToNineDecimalsAndWritesWholeNumbersBare() throws {
    let viewport = try #require(Viewport(size: "512x512"))
    let camera = Camera(longitude: 0, latitude: 0, zoom: 1, bearing: -90)
    #expect(
      camera.json(in: viewport)
        == #"{"center": [0, 0], "zoom": 1, "bearing": 270, "tilt": 0, "bounds": "#
        + #"[-180, -85.05112878, 180, 85.05112878]}"#)
    #expect(Viewport(size: "800X600") == Viewport(width: 800, height: 600))
    #expect(Viewport(size: "0x600") == nil)
    #expect(Viewport(size: "800") == nil)
  }
}
