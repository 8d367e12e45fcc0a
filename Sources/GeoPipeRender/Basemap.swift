import GeoPipeCore
import GeoPipeMercator

/// What is drawn under the features, as MapKit's `MKMapType`.
public enum MapType: String, Sendable, CaseIterable {
  /// A vector basemap (land, water, boundaries, roads, place labels) from vector tiles, or
  /// the polygons of a basemap file as land over water, or a plain background.
  case standard
  /// Raster tiles (imagery).
  case satellite
  /// Raster tiles with the vector basemap's boundaries and labels on top.
  case hybrid
  /// A plain background.
  case none
}

/// A local source of raster tiles (PNG, JPEG or WebP bytes) on the XYZ scheme.
public protocol RasterTileSource: AnyObject {
  /// The source's name in messages (its path).
  var name: String { get }
  /// The zooms it holds; the deepest is overzoomed.
  var zooms: ClosedRange<Int> { get }
  /// Its attribution, or "".
  var attribution: String { get }
  /// A tile's image bytes, or nil when the source does not hold the tile.
  func imageData(of tile: TileID) throws -> [UInt8]?
}

/// A local source of vector tiles, decoded into features in WGS84 whose `tippecanoe` member
/// names their layer.
public protocol VectorTileSource: AnyObject {
  /// The source's name in messages (its path).
  var name: String { get }
  /// The zooms it holds; the deepest is overzoomed.
  var zooms: ClosedRange<Int> { get }
  /// Its attribution, or "".
  var attribution: String { get }
  /// A tile's features, or nil when the source does not hold the tile.
  func features(of tile: TileID) throws -> [Feature]?
}

/// How one feature of a vector basemap is drawn: nil parts are not drawn.
public struct BasemapPaint: Sendable, Equatable {
  /// The fill of a polygon, `#rrggbb`.
  public var fill: String?
  /// The fill's opacity, 0 to 1.
  public var fillOpacity: Double
  /// The line or outline colour, `#rrggbb`.
  public var stroke: String?
  /// The line's width in points.
  public var strokeWidth: Double
  /// The line's opacity, 0 to 1.
  public var strokeOpacity: Double
  /// The label drawn at a point (or a polygon's label point), if any.
  public var label: String?
  /// The label's size in points.
  public var labelSize: Double

  /// Creates a paint.
  public init(
    fill: String? = nil, fillOpacity: Double = 1, stroke: String? = nil, strokeWidth: Double = 1,
    strokeOpacity: Double = 1, label: String? = nil, labelSize: Double = 11
  ) {
    self.fill = fill
    self.fillOpacity = fillOpacity
    self.stroke = stroke
    self.strokeWidth = strokeWidth
    self.strokeOpacity = strokeOpacity
    self.label = label
    self.labelSize = labelSize
  }
}

/// What sort of basemap feature a paint is for, so that `hybrid` keeps only boundaries and
/// labels over its imagery.
public enum BasemapRole: Sendable, Equatable {
  /// Land, water, landuse and other areas.
  case area
  /// Roads, rivers and other lines.
  case line
  /// Administrative boundaries.
  case boundary
  /// Place names.
  case label
}

/// A vector basemap's style: the paint of each feature by its layer and properties, or nil to
/// leave it out.
public typealias BasemapStyle =
  @Sendable (_ layer: String, _ feature: Feature) -> (
    role: BasemapRole, paint: BasemapPaint
  )?

/// Everything drawn under the features.
public struct Basemap {
  /// The map type.
  public var mapType: MapType
  /// Raster tile sources, drawn in order (satellite and hybrid).
  public var raster: [any RasterTileSource]
  /// Vector tile sources, drawn in order (standard and hybrid).
  public var vector: [any VectorTileSource]
  /// Polygons drawn as land over water (standard without vector tiles; their outlines in
  /// hybrid).
  public var polygons: [Feature]
  /// The vector style; `BuiltInBasemapStyle.style` by default.
  public var style: BasemapStyle
  /// The attribution drawn in the bottom right corner; nil takes the sources'.
  public var attribution: String?
  /// Receives a warning for each tile that cannot be decoded (it is drawn as background).
  public var warn: (String) -> Void

  /// Creates a basemap.
  public init(
    mapType: MapType, raster: [any RasterTileSource] = [], vector: [any VectorTileSource] = [],
    polygons: [Feature] = [], style: @escaping BasemapStyle = BuiltInBasemapStyle.style,
    attribution: String? = nil, warn: @escaping (String) -> Void = { _ in }
  ) {
    self.mapType = mapType
    self.raster = raster
    self.vector = vector
    self.polygons = polygons
    self.style = style
    self.attribution = attribution
    self.warn = warn
  }

  /// The attribution drawn: the one given, else the sources' attributions that are drawn,
  /// each once, joined by " | ".
  var attributionText: String {
    if let attribution { return attribution }
    var texts: [String] = []
    let rasters = mapType == .satellite || mapType == .hybrid ? raster.map(\.attribution) : []
    let vectors = mapType == .standard || mapType == .hybrid ? vector.map(\.attribution) : []
    for text in rasters + vectors where !text.isEmpty && !texts.contains(text) {
      texts.append(text)
    }
    return texts.joined(separator: " | ")
  }
}
