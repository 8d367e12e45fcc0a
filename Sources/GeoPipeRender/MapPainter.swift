import Foundation
import GeoPipeCore
import GeoPipeMercator

/// Draws features on a canvas for one camera: overlays in their styles, then markers placed by
/// priority, then titles and the map furniture.
struct MapPainter {
  let camera: MapCamera
  let projector: Projector
  let canvas: any Canvas
  let countBy: String?
  /// Device pixels per point, which chooses the zoom of raster tiles.
  var pixelsPerPoint = 1.0
  /// Pie categories in legend order, with their colours.
  var categories: [(name: String, color: RGBA)] = []

  init(camera: MapCamera, canvas: any Canvas, countBy: String?) {
    self.camera = camera
    self.projector = camera.projector
    self.canvas = canvas
    self.countBy = countBy
  }

  // simplestyle-spec 1.1.0 defaults.
  static let defaultStroke = RGBA(rgb: 0x555555)
  static let defaultFill = RGBA(rgb: 0x555555)
  static let defaultMarker = RGBA(rgb: 0x7e7e7e)
  static let clusterColor = RGBA(rgb: 0x1f6fd1)
  static let land = RGBA(rgb: 0xf2efe9)
  static let coast = RGBA(rgb: 0xc9c2b6)
  static let water = RGBA(rgb: 0xaad3df)
  static let plain = RGBA(rgb: 0xeef0f2)
  static let ink = RGBA(rgb: 0x222222)
  /// Pie colours (Tableau 10), given to categories in legend order.
  static let palette = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
  ].compactMap { RGBA(css: $0) }

  mutating func draw(_ features: [Feature], basemap: Basemap) throws {
    let labels = try drawBasemap(basemap)
    let visible = visibleFeatures(features)
    for feature in visible { drawOverlay(feature, pass: .areas) }
    for feature in visible { drawOverlay(feature, pass: .lines) }
    for feature in visible { drawOverlay(feature, pass: .circles) }
    drawLabels(labels, hybrid: basemap.mapType == .hybrid)
    categories = pieCategories(visible)
    let markers = collectMarkers(visible)
    placeAndDraw(markers)
    drawScaleBar()
    if camera.bearing.truncatingRemainder(dividingBy: 360) != 0 { drawNorthArrow() }
    drawLegend()
    drawAttribution(basemap.attributionText)
  }

  /// The features shown at the camera's tile zoom: those without a `tippecanoe` zoom range,
  /// and those whose range holds the floor of the zoom (capped at the data's highest zoom).
  func visibleFeatures(_ features: [Feature]) -> [Feature] {
    var highest = -1
    for feature in features {
      if let range = Self.zoomRange(feature) { highest = max(highest, range.max) }
    }
    guard highest >= 0 else { return features }
    let zoom = min(camera.tileZoom, highest)
    return features.filter { feature in
      guard let range = Self.zoomRange(feature) else { return true }
      return range.min <= zoom && zoom <= range.max
    }
  }

  static func zoomRange(_ feature: Feature) -> (min: Int, max: Int)? {
    guard case .object(let member)? = feature.foreignMembers["tippecanoe"] else { return nil }
    let low = member["minzoom"]?.numberValue.map { Int($0) } ?? 0
    let high = member["maxzoom"]?.numberValue.map { Int($0) } ?? Int.max
    return (low, high)
  }

  // MARK: Overlays

  enum Pass {
    case areas
    case lines
    case circles
  }

  private func drawOverlay(_ feature: Feature, pass: Pass) {
    guard let geometry = feature.geometry else { return }
    let properties = feature.properties ?? JSONObject()
    // Most features are markers: skip the style lookups for what this pass does not draw.
    switch (geometry, pass) {
    case (.point, .circles):
      guard properties["geopipe:radius_m"] != nil else { return }
    case (.polygon, .areas), (.multiPolygon, .areas), (.lineString, .lines),
      (.multiLineString, .lines), (.geometryCollection, _):
      break
    default: return
    }
    let strokeOpacity = properties["stroke-opacity"]?.numberValue ?? 1
    let strokeColor =
      properties["stroke"]?.stringValue.flatMap { RGBA(css: $0, alpha: strokeOpacity) }
      ?? Self.defaultStroke.with(alpha: strokeOpacity)
    let stroke = Stroke(
      color: strokeColor, width: max(properties["stroke-width"]?.numberValue ?? 2, 0))
    let fillOpacity = properties["fill-opacity"]?.numberValue ?? 0.6
    let fill =
      properties["fill"]?.stringValue.flatMap { RGBA(css: $0, alpha: fillOpacity) }
      ?? Self.defaultFill.with(alpha: fillOpacity)
    let radius = properties["geopipe:radius_m"]?.numberValue
    drawOverlay(geometry, pass: pass, fill: fill, stroke: stroke, radius: radius)
  }

  private func drawOverlay(
    _ geometry: Geometry, pass: Pass, fill: RGBA, stroke: Stroke, radius: Double?
  ) {
    let line: Stroke? = stroke.width > 0 ? stroke : nil
    switch (geometry, pass) {
    case (.polygon, .areas), (.multiPolygon, .areas):
      drawArea(geometry, fill: fill, stroke: line)
    case (.lineString, .lines), (.multiLineString, .lines):
      if let line { drawLines(geometry, stroke: line) }
    case (.point(let p), .circles):
      guard let radius, radius > 0 else { return }
      let center = projector.point(p.x, p.y)
      let metres = WebMercator.metresPerPoint(latitude: p.y, zoom: camera.zoom)
      canvas.circle(x: center.x, y: center.y, radius: radius / metres, fill: fill, stroke: line)
    case (.geometryCollection(let members), _):
      for member in members {
        drawOverlay(member, pass: pass, fill: fill, stroke: stroke, radius: radius)
      }
    default: break
    }
  }

  func drawArea(_ geometry: Geometry, fill: RGBA?, stroke: Stroke?) {
    var rings: [CoordinateArray] = []
    switch geometry {
    case .polygon(let r): rings = r
    case .multiPolygon(let polygons): rings = polygons.flatMap { $0 }
    default: return
    }
    for shift in copies(of: geometry) {
      var steps: [PathStep] = []
      for ring in rings { appendSteps(ring, shift: shift, closed: true, into: &steps) }
      canvas.path(steps, fill: fill, stroke: stroke)
    }
  }

  /// Draws a polygon or a line at one horizontal shift (whole worlds), as a basemap tile
  /// places it.
  func drawShape(_ geometry: Geometry, fill: RGBA?, stroke: Stroke?, shift: Double) {
    var runs: [CoordinateArray] = []
    var closed = true
    switch geometry {
    case .polygon(let rings): runs = rings
    case .multiPolygon(let polygons): runs = polygons.flatMap { $0 }
    case .lineString(let line):
      runs = [line]
      closed = false
    case .multiLineString(let lines):
      runs = lines
      closed = false
    default: return
    }
    var steps: [PathStep] = []
    for run in runs { appendSteps(run, shift: shift, closed: closed, into: &steps) }
    canvas.path(steps, fill: closed ? fill : nil, stroke: stroke)
  }

  private func drawLines(_ geometry: Geometry, stroke: Stroke) {
    var lines: [CoordinateArray] = []
    switch geometry {
    case .lineString(let line): lines = [line]
    case .multiLineString(let l): lines = l
    default: return
    }
    for shift in copies(of: geometry) {
      var steps: [PathStep] = []
      for line in lines { appendSteps(line, shift: shift, closed: false, into: &steps) }
      canvas.path(steps, fill: nil, stroke: stroke)
    }
  }

  private func appendSteps(
    _ coordinates: CoordinateArray, shift: Double, closed: Bool, into steps: inout [PathStep]
  ) {
    var first = true
    coordinates.forEachXY { x, y in
      let offset = projector.offset(x, y)
      let point = projector.screen(dx: offset.x + shift, dy: offset.y)
      steps.append(first ? .move(point.x, point.y) : .line(point.x, point.y))
      first = false
    }
    if closed && !first { steps.append(.close) }
  }

  /// The horizontal shifts (whole worlds) at which a geometry shows in the viewport.
  private func copies(of geometry: Geometry) -> [Double] {
    guard let box = geometry.bbox else { return [] }
    let west = projector.offset(box.west, 0).x
    let east = projector.offset(box.east, 0).x
    let reach = (camera.width * camera.width + camera.height * camera.height).squareRoot() / 2
    let size = projector.size
    var shifts: [Double] = []
    for k in -2...2 {
      let shift = Double(k) * size
      if west + shift <= reach && east + shift >= -reach { shifts.append(shift) }
    }
    return shifts
  }
}
