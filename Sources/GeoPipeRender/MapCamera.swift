import Foundation
import GeoPipeCore
import GeoPipeMercator

// The static map's camera, on the 256-point world convention (MapKit, the Google Maps SDK): at
// zoom z the world is 256·2^z points wide. The projection is `WebMercator`'s.

/// Where the map looks: a target, a fractional zoom and a bearing, for a viewport of W×H points.
struct MapCamera: Equatable {
  /// The centre's longitude.
  var longitude: Double
  /// The centre's latitude.
  var latitude: Double
  /// The zoom: the world is 256·2^zoom points wide.
  var zoom: Double
  /// Degrees clockwise from north that the top of the map faces.
  var bearing: Double
  /// The viewport width in points.
  var width: Double
  /// The viewport height in points.
  var height: Double

  /// The largest latitude Web Mercator shows.
  static let maxLatitude = WebMercator.maxLatitude

  /// The world's width in points at this zoom.
  var worldSize: Double { WebMercator.worldSize(zoom: zoom) }

  /// The camera that shows `box` (east < west crosses the antimeridian) in the viewport less
  /// `padding` on every side, at the highest zoom that fits and at most `maxZoom`, with
  /// bearing 0, centred on the box's midpoint in projected space (`Camera.fitting`).
  static func fitting(
    _ box: BBox, width: Double, height: Double, padding: Double, maxZoom: Double
  ) -> MapCamera {
    let camera = Camera.fitting(
      box, in: Viewport(width: width, height: height), insets: EdgeInsets(padding: padding),
      limits: ZoomLimits(minZoom: 0, maxZoom: maxZoom))
    return MapCamera(
      longitude: camera.longitude, latitude: camera.latitude, zoom: camera.zoom, bearing: 0,
      width: width, height: height)
  }

  /// The position of a longitude in a world of width 1 (0 at 180° W).
  static func unitX(_ longitude: Double) -> Double { WebMercator.x(longitude: longitude) }

  /// The position of a latitude in a world of height 1 (0 at the top).
  static func unitY(_ latitude: Double) -> Double { WebMercator.y(latitude: latitude) }

  /// A projector from longitude/latitude to viewport points.
  var projector: Projector { Projector(self) }

  /// Metres on the ground per point at the centre.
  var metresPerPoint: Double { WebMercator.metresPerPoint(latitude: latitude, zoom: zoom) }

  /// The tile zoom the camera shows: the floor of its zoom.
  var tileZoom: Int { Int(max(zoom, 0).rounded(.down)) }
}

/// Turns longitude/latitude into viewport points for one camera: world points relative to the
/// centre, rotated by the bearing, moved to the viewport's middle.
struct Projector {
  let size: Double
  let centerX: Double
  let centerY: Double
  let cosine: Double
  let sine: Double
  let halfWidth: Double
  let halfHeight: Double

  init(_ camera: MapCamera) {
    size = camera.worldSize
    centerX = MapCamera.unitX(camera.longitude) * size
    centerY = MapCamera.unitY(camera.latitude) * size
    let radians = camera.bearing * .pi / 180
    cosine = cos(radians)
    sine = sin(radians)
    halfWidth = camera.width / 2
    halfHeight = camera.height / 2
  }

  /// World points of a position relative to the centre, without wrapping.
  @inline(__always)
  func offset(_ longitude: Double, _ latitude: Double) -> (x: Double, y: Double) {
    (MapCamera.unitX(longitude) * size - centerX, MapCamera.unitY(latitude) * size - centerY)
  }

  /// Viewport points of an offset from the centre.
  @inline(__always)
  func screen(dx: Double, dy: Double) -> (x: Double, y: Double) {
    (halfWidth + dx * cosine + dy * sine, halfHeight - dx * sine + dy * cosine)
  }

  /// Viewport points of a position, taking the copy of the world nearest the centre.
  @inline(__always)
  func point(_ longitude: Double, _ latitude: Double) -> (x: Double, y: Double) {
    var (dx, dy) = offset(longitude, latitude)
    if dx > size / 2 { dx -= size } else if dx < -size / 2 { dx += size }
    return screen(dx: dx, dy: dy)
  }

  /// The viewport direction of north, as a unit vector.
  var north: (x: Double, y: Double) { (-sine, -cosine) }
}
