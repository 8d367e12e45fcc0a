import Foundation
import GeoPipeCore

/// A static map of features: a camera, a viewport, and the features drawn as MapKit draws
/// annotations and overlays.
///
/// Layers, bottom to top: the background and an optional basemap of polygons; polygons,
/// lines and circles (Points with `geopipe:radius_m`) in their simplestyle strokes and fills;
/// pins in `marker-color`; cluster markers with their count and a pie of `PROP_counts`;
/// titles; a scale bar, a north arrow when the bearing is not 0, and a legend of the pie's
/// categories. The same input gives the same bytes.
public struct StaticMap: Sendable {
  /// How the camera is chosen.
  public enum CameraChoice: Sendable {
    /// Fit the features' bounds, less `padding` points on each side.
    case fit(padding: Double)
    /// Fit a box W,S,E,N, less `padding` points on each side.
    case fitBounds(BBox, padding: Double)
    /// A centre, zoom and bearing.
    case center(longitude: Double, latitude: Double, zoom: Double, bearing: Double)
  }

  /// The image formats.
  public enum ImageFormat: String, Sendable {
    /// PNG, drawn with cairo.
    case png
    /// SVG 1.1 text.
    case svg
  }

  /// The viewport's width in points.
  public var width: Int
  /// The viewport's height in points.
  public var height: Int
  /// Pixels per point in a PNG.
  public var scale: Double
  /// The camera.
  public var camera: CameraChoice
  /// The property whose `PROP_counts` cluster markers show as a pie; nil looks for the first
  /// property named `*_counts` holding an object.
  public var countBy: String?
  /// The highest zoom that fitting chooses.
  public var maxFitZoom = 18.0

  /// Creates a map.
  public init(width: Int, height: Int, scale: Double, camera: CameraChoice, countBy: String?) {
    self.width = width
    self.height = height
    self.scale = scale
    self.camera = camera
    self.countBy = countBy
  }

  /// Draws `features` over `basemap` polygons and encodes the image.
  public func render(_ features: [Feature], basemap: [Feature], format: ImageFormat) throws
    -> [UInt8]
  {
    try render(features, basemap: Basemap(mapType: .standard, polygons: basemap), format: format)
  }

  /// Draws `features` over a basemap and encodes the image.
  public func render(_ features: [Feature], basemap: Basemap, format: ImageFormat) throws
    -> [UInt8]
  {
    let camera = try resolveCamera(features)
    let canvas: any Canvas =
      switch format {
      case .png: try CairoCanvas(width: Double(width), height: Double(height), scale: scale)
      case .svg: SVGCanvas(width: Double(width), height: Double(height))
      }
    var painter = MapPainter(camera: camera, canvas: canvas, countBy: countBy)
    painter.pixelsPerPoint = scale
    try painter.draw(features, basemap: basemap)
    return try canvas.encoded()
  }

  func resolveCamera(_ features: [Feature]) throws -> MapCamera {
    let w = Double(width)
    let h = Double(height)
    switch camera {
    case .center(let longitude, let latitude, let zoom, let bearing):
      return MapCamera(
        longitude: longitude, latitude: latitude, zoom: zoom, bearing: bearing, width: w,
        height: h)
    case .fitBounds(let box, let padding):
      return MapCamera.fitting(box, width: w, height: h, padding: padding, maxZoom: maxFitZoom)
    case .fit(let padding):
      var box = BBox.empty
      for feature in features {
        if let bbox = feature.geometry?.bbox { box.extend(bbox) }
      }
      guard !box.isEmpty else {
        throw GeoPipeError(
          "render: no feature has a geometry to fit; give --fit-bounds or --center and --zoom",
          status: .dataError)
      }
      return MapCamera.fitting(box, width: w, height: h, padding: padding, maxZoom: maxFitZoom)
    }
  }
}
