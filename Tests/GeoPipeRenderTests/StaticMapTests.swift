import CCairo
import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeRender

/// What the static map draws: pixels of the PNG at known marker positions, and which markers
/// the SVG holds as priorities and zooms decide.
@Suite struct StaticMapTests {
  private func point(
    _ x: Double, _ y: Double, _ properties: JSONObject, foreign: JSONObject = JSONObject()
  ) -> Feature {
    Feature(geometry: .point(Position(x: x, y: y)), properties: properties, foreignMembers: foreign)
  }

  private func svg(_ features: [Feature], zoom: Double = 2) throws -> String {
    let map = StaticMap(
      width: 200, height: 200, scale: 1,
      camera: .center(longitude: 0, latitude: 0, zoom: zoom, bearing: 0), countBy: nil)
    return String(decoding: try map.render(features, basemap: [], format: .svg), as: UTF8.self)
  }

  /// The PNG decoded by cairo: its size and a pixel reader (r, g, b, a as 0...255).
  private func decoded(_ png: [UInt8]) throws -> (
    width: Int, height: Int, pixel: (Int, Int) -> (Int, Int, Int, Int)
  ) {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "geopipe-render-\(UUID().uuidString).png")
    try Data(png).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let surface = try #require(cairo_image_surface_create_from_png(url.path))
    #expect(cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS)
    let width = Int(cairo_image_surface_get_width(surface))
    let height = Int(cairo_image_surface_get_height(surface))
    let stride = Int(cairo_image_surface_get_stride(surface))
    let data = try #require(cairo_image_surface_get_data(surface))
    var bytes: [UInt8] = Array(UnsafeBufferPointer(start: data, count: stride * height))
    cairo_surface_destroy(surface)
    let copy = bytes
    bytes = []
    return (
      width, height,
      { x, y in
        // ARGB32 is native-endian 32-bit: B, G, R, A in memory on little-endian machines.
        let k = y * stride + x * 4
        return (Int(copy[k + 2]), Int(copy[k + 1]), Int(copy[k]), Int(copy[k + 3]))
      }
    )
  }

  @Test func pngPinsHaveTheirMarkerColourAtTheirPosition() throws {
    let features = [
      point(0, 0, ["marker-color": .string("#dd3333")]),
      point(45, 0, ["marker-color": .string("#3366cc"), "marker-size": .string("large")]),
    ]
    let map = StaticMap(
      width: 300, height: 200, scale: 2,
      camera: .center(longitude: 0, latitude: 0, zoom: 1, bearing: 0), countBy: nil)
    let image = try decoded(try map.render(features, basemap: [], format: .png))
    #expect(image.width == 600 && image.height == 400)
    // The first pin's tip is at the centre (150, 100) points; its balloon (radius 7) is
    // centred 14 points above, with a white dot of radius 2.8 in the middle.
    let red = image.pixel(300, 2 * (100 - 14 - 5))
    #expect(red.0 == 0xdd && red.1 == 0x33 && red.2 == 0x33 && red.3 == 255)
    let dot = image.pixel(300, 2 * (100 - 14))
    #expect(dot.0 == 255 && dot.1 == 255 && dot.2 == 255)
    // 45 degrees east is 64 points right at zoom 1; the large pin's balloon has radius 9.
    let blue = image.pixel(2 * (150 + 64), 2 * (100 - 18 - 6))
    #expect(blue.0 == 0x33 && blue.1 == 0x66 && blue.2 == 0xcc)
    // Away from the markers is the plain background.
    let background = image.pixel(20, 20)
    #expect(background.0 == 0xee && background.1 == 0xf0 && background.2 == 0xf2)
  }

  @Test func pngPolygonsAreFilledInTheirStyle() throws {
    let square = CoordinateArray([
      Position(x: -10, y: -10), Position(x: 10, y: -10), Position(x: 10, y: 10),
      Position(x: -10, y: 10), Position(x: -10, y: -10),
    ])
    let feature = Feature(
      geometry: .polygon([square]),
      properties: [
        "fill": .string("#00ff00"), "fill-opacity": .double(1), "stroke-width": .double(0),
      ])
    let map = StaticMap(
      width: 100, height: 100, scale: 1,
      camera: .center(longitude: 0, latitude: 0, zoom: 2, bearing: 0), countBy: nil)
    let image = try decoded(try map.render([feature], basemap: [], format: .png))
    let inside = image.pixel(50, 50)
    #expect(inside.0 == 0 && inside.1 == 255 && inside.2 == 0)
    let outside = image.pixel(5, 5)
    #expect(outside.1 == 0xf0)
  }

  @Test func theSameInputGivesTheSameBytes() throws {
    let features = (0..<200).map { k in
      point(Double(k % 20) * 5 - 50, Double(k / 20) * 5 - 25, ["title": .string("p\(k)")])
    }
    let map = StaticMap(
      width: 320, height: 240, scale: 1, camera: .fit(padding: 20), countBy: nil)
    #expect(
      try map.render(features, basemap: [], format: .png)
        == map.render(features, basemap: [], format: .png))
    #expect(
      try map.render(features, basemap: [], format: .svg)
        == map.render(features, basemap: [], format: .svg))
  }

  @Test func lowerPriorityMarkersGiveWayWhereTheyWouldCollide() throws {
    let red = point(0, 0, ["marker-color": .string("#ff0000"), "geopipe:priority": .string("low")])
    let blue = point(
      0, 0, ["marker-color": .string("#0000ff"), "geopipe:priority": .string("low")])
    var text = try svg([red, blue])
    #expect(text.contains("#ff0000") && !text.contains("#0000ff"))
    var bluer = blue
    bluer.properties?["geopipe:priority"] = .string("high")
    text = try svg([red, bluer])
    #expect(!text.contains("#ff0000") && text.contains("#0000ff"))
    // A required marker is drawn whatever it covers, and covers the others.
    var required = red
    required.properties?["geopipe:priority"] = .string("required")
    text = try svg([bluer, required])
    #expect(text.contains("#ff0000") && !text.contains("#0000ff"))
    // Markers without a priority are required, as in MapKit.
    var plainBlue = blue
    plainBlue.properties?["geopipe:priority"] = nil
    text = try svg([required, plainBlue])
    #expect(text.contains("#ff0000") && text.contains("#0000ff"))
    // Apart, both are drawn.
    let far = point(
      20, 0, ["marker-color": .string("#0000ff"), "geopipe:priority": .string("low")])
    text = try svg([red, far])
    #expect(text.contains("#ff0000") && text.contains("#0000ff"))
  }

  @Test func allZoomsInputShowsWhatIsVisibleAtTheFlooredZoom() throws {
    func ranged(_ color: String, _ low: Int, _ high: Int, x: Double) -> Feature {
      point(
        x, 0, ["marker-color": .string(color)],
        foreign: [
          "tippecanoe": .object(["minzoom": .integer(Int64(low)), "maxzoom": .integer(Int64(high))])
        ])
    }
    let features = [
      ranged("#110000", 0, 2, x: 0), ranged("#220000", 3, 5, x: 0), ranged("#330000", 6, 6, x: 0),
    ]
    var text = try svg(features, zoom: 3.9)
    #expect(!text.contains("#110000") && text.contains("#220000") && !text.contains("#330000"))
    text = try svg(features, zoom: 2)
    #expect(text.contains("#110000") && !text.contains("#220000"))
    // Past the data's highest zoom, its last zoom stays visible.
    text = try svg(features, zoom: 9)
    #expect(text.contains("#330000") && !text.contains("#220000"))
  }

  @Test func clusterMarkersShowTheirCountAndAPieOfCategories() throws {
    let cluster = point(
      0, 0,
      [
        "cluster": .bool(true), "point_count": .integer(30),
        "point_count_abbreviated": .integer(30),
        "kind_counts": .object(["cafe": .integer(20), "bar": .integer(10)]),
      ])
    let text = try svg([cluster])
    #expect(text.contains(">30</text>"))
    // Two wedges in the first two palette colours, and a legend naming them.
    #expect(text.contains("fill=\"#4e79a7\"") && text.contains("fill=\"#f28e2b\""))
    #expect(text.contains(">cafe</text>") && text.contains(">bar</text>"))
  }

  @Test func aNorthArrowIsDrawnOnlyWhenTheMapIsRotated() throws {
    func map(bearing: Double) throws -> String {
      let map = StaticMap(
        width: 200, height: 200, scale: 1,
        camera: .center(longitude: 0, latitude: 0, zoom: 2, bearing: bearing), countBy: nil)
      return String(decoding: try map.render([], basemap: [], format: .svg), as: UTF8.self)
    }
    #expect(!(try map(bearing: 0)).contains("#d33d33"))
    #expect(try map(bearing: 30).contains("#d33d33"))
  }

  @Test func theScaleBarShowsARoundDistance() {
    #expect(MapPainter.distanceText(2000) == "2 km")
    #expect(MapPainter.distanceText(500) == "500 m")
    #expect(MapPainter.distanceText(0.5) == "50 cm")
  }
}
