import Foundation
import GeoPipeCore

/// What a map view shows: a target, a zoom, a bearing and a tilt (MapKit's `MKMapCamera`, the
/// Google Maps SDK's `GMSCameraPosition`).
///
/// Zoom is fractional: at zoom z the world is `256 · 2^z` points wide. Bearing is degrees
/// clockwise from north; tilt is kept for clients that show it (drawing here is top-down).
public struct Camera: Hashable, Sendable {
  /// The longitude at the centre of the view.
  public var longitude: Double
  /// The latitude at the centre of the view.
  public var latitude: Double
  /// The zoom (fractional).
  public var zoom: Double
  /// Degrees clockwise from north, in `[0, 360)`.
  public var bearing: Double
  /// Degrees from straight down.
  public var tilt: Double

  /// Creates a camera; the bearing is normalised to `[0, 360)`.
  public init(
    longitude: Double, latitude: Double, zoom: Double, bearing: Double = 0, tilt: Double = 0
  ) {
    self.longitude = longitude
    self.latitude = latitude
    self.zoom = zoom
    let turned = bearing.truncatingRemainder(dividingBy: 360)
    self.bearing = turned < 0 ? turned + 360 : turned
    self.tilt = tilt
  }

  /// The camera that shows a box in a viewport at the highest zoom that fits it inside the
  /// insets, bearing 0, centred on the box's midpoint in projected space
  /// (`cameraForBounds:insets:` in the Google Maps SDK), with the zoom clamped to `limits`.
  ///
  /// A box whose west edge is east of its east edge crosses the antimeridian. A box of zero
  /// size fits at `limits.maxZoom`.
  public static func fitting(
    _ box: BBox, in viewport: Viewport, insets: EdgeInsets = EdgeInsets(),
    limits: ZoomLimits = ZoomLimits()
  ) -> Camera {
    let (x0, y0) = WebMercator.project(longitude: box.west, latitude: box.north)
    var (x1, y1) = WebMercator.project(longitude: box.east, latitude: box.south)
    if x1 < x0 { x1 += 1 }
    let width = max(viewport.width - insets.left - insets.right, 0)
    let height = max(viewport.height - insets.top - insets.bottom, 0)
    let spanX = x1 - x0
    let spanY = y1 - y0
    var zoom = limits.maxZoom
    let fits = [(width, spanX), (height, spanY)].filter { $0.1 > 0 }.map {
      log2($0.0 / ($0.1 * WebMercator.tileSize))
    }
    if let tightest = fits.min() { zoom = limits.clamp(tightest) }
    let size = WebMercator.worldSize(zoom: zoom)
    // The box sits in the middle of the inset area, so the view's centre moves by half the
    // difference of opposite insets.
    let cx = (x0 + x1) / 2 + (insets.right - insets.left) / 2 / size
    let cy = (y0 + y1) / 2 + (insets.bottom - insets.top) / 2 / size
    let (longitude, latitude) = WebMercator.unproject(x: cx, y: min(max(cy, 0), 1))
    return Camera(longitude: Self.wrap(longitude), latitude: latitude, zoom: zoom)
  }

  /// The box of what the camera shows in a viewport: the corners of the rotated view, in
  /// degrees (west > east when it crosses the antimeridian; latitudes clamped to the world).
  public func visibleBox(in viewport: Viewport) -> BBox {
    let size = WebMercator.worldSize(zoom: zoom)
    let (cx, cy) = WebMercator.project(longitude: longitude, latitude: latitude)
    let angle = bearing * .pi / 180
    var minX = Double.infinity
    var maxX = -Double.infinity
    var minY = Double.infinity
    var maxY = -Double.infinity
    for (sx, sy) in [(-1.0, -1.0), (1, -1), (1, 1), (-1, 1)] {
      let dx = sx * viewport.width / 2
      let dy = sy * viewport.height / 2
      // Screen offsets turned by the bearing: with bearing b, screen up points b degrees east
      // of north.
      let wx = dx * cos(angle) - dy * sin(angle)
      let wy = dx * sin(angle) + dy * cos(angle)
      minX = min(minX, cx + wx / size)
      maxX = max(maxX, cx + wx / size)
      minY = min(minY, cy + wy / size)
      maxY = max(maxY, cy + wy / size)
    }
    let west = maxX - minX >= 1 ? -180 : Self.wrap(WebMercator.longitude(x: minX))
    let east = maxX - minX >= 1 ? 180 : Self.wrap(WebMercator.longitude(x: maxX))
    return BBox(
      west: west, south: WebMercator.latitude(y: min(maxY, 1)), east: east,
      north: WebMercator.latitude(y: max(minY, 0)))
  }

  /// The camera with its zoom clamped to `limits` and its target moved into `bounds` (when
  /// given), as a map view does after a gesture.
  public func clamped(to limits: ZoomLimits, targetBounds bounds: BBox? = nil) -> Camera {
    var camera = self
    camera.zoom = limits.clamp(zoom)
    if let bounds {
      camera.latitude = min(max(latitude, bounds.south), bounds.north)
      if !bounds.contains(longitude: longitude) {
        let toWest = Self.degreesEast(from: longitude, to: bounds.west)
        let toEast = Self.degreesEast(from: bounds.east, to: longitude)
        camera.longitude = toEast <= toWest ? bounds.east : bounds.west
      }
    }
    return camera
  }

  /// The camera after zooming by `delta` about a point of the viewport (a pinch or a
  /// double-tap): the map point under it stays where it is on screen.
  public func zoomed(by delta: Double, at point: (x: Double, y: Double), in viewport: Viewport)
    -> Camera
  {
    let size = WebMercator.worldSize(zoom: zoom)
    let newSize = WebMercator.worldSize(zoom: zoom + delta)
    let (cx, cy) = WebMercator.project(longitude: longitude, latitude: latitude)
    let angle = bearing * .pi / 180
    let dx = point.x - viewport.width / 2
    let dy = point.y - viewport.height / 2
    let wx = dx * cos(angle) - dy * sin(angle)
    let wy = dx * sin(angle) + dy * cos(angle)
    // The anchor in world units stays put: anchor = c + w/size = c' + w/newSize.
    let nx = cx + wx / size - wx / newSize
    let ny = min(max(cy + wy / size - wy / newSize, 0), 1)
    let (lon, lat) = WebMercator.unproject(x: nx, y: ny)
    return Camera(
      longitude: Self.wrap(lon), latitude: lat, zoom: zoom + delta, bearing: bearing, tilt: tilt)
  }

  /// A longitude in `[-180, 180]`.
  static func wrap(_ longitude: Double) -> Double {
    guard longitude < -180 || longitude > 180 else { return longitude }
    let turned = (longitude + 180).truncatingRemainder(dividingBy: 360)
    return (turned < 0 ? turned + 360 : turned) - 180
  }

  /// Degrees to go east from `a` to reach `b`, in `[0, 360)`.
  static func degreesEast(from a: Double, to b: Double) -> Double {
    let d = (b - a).truncatingRemainder(dividingBy: 360)
    return d < 0 ? d + 360 : d
  }
}

extension BBox {
  /// Whether a longitude is within the box's west and east edges (across the antimeridian
  /// when `west > east`).
  public func contains(longitude: Double) -> Bool {
    west <= east ? (west...east).contains(longitude) : longitude >= west || longitude <= east
  }
}

/// A view's size in points.
public struct Viewport: Hashable, Sendable {
  /// The width in points.
  public var width: Double
  /// The height in points.
  public var height: Double

  /// Creates a viewport.
  public init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }
}

/// Space kept clear at each edge of a viewport, in points.
public struct EdgeInsets: Hashable, Sendable {
  /// At the top.
  public var top: Double
  /// At the left.
  public var left: Double
  /// At the bottom.
  public var bottom: Double
  /// At the right.
  public var right: Double

  /// Creates insets, one per edge.
  public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
    self.top = top
    self.left = left
    self.bottom = bottom
    self.right = right
  }

  /// The same padding at every edge.
  public init(padding: Double) {
    self.init(top: padding, left: padding, bottom: padding, right: padding)
  }
}

/// The zooms a map view allows.
public struct ZoomLimits: Hashable, Sendable {
  /// The lowest zoom.
  public var minZoom: Double
  /// The highest zoom.
  public var maxZoom: Double

  /// Creates limits (0 to 22 by default, as map clients do).
  public init(minZoom: Double = 0, maxZoom: Double = 22) {
    self.minZoom = minZoom
    self.maxZoom = max(maxZoom, minZoom)
  }

  /// A zoom moved into the limits.
  public func clamp(_ zoom: Double) -> Double { min(max(zoom, minZoom), maxZoom) }
}
