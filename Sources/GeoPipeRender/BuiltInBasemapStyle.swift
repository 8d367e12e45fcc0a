import GeoPipeCore

/// The built-in style of vector basemaps, by the layer and property names of the common
/// schemas: OpenMapTiles (`water`, `landcover`, `landuse`, `park`, `waterway`,
/// `transportation` with `class`, `boundary` with `admin_level`, `place`), Shortbread
/// (`ocean`, `water_polygons`, `land`, `sites`, `water_lines`, `streets` with `kind`,
/// `boundaries`, `place_labels`) and layers that geopipe's `tiles` names after their files
/// (`countries`, `land`, `lakes`, `rivers`, `roads`, `places`, ...).
///
/// Areas of other layers are drawn as land, lines as thin grey lines, and points with a name
/// as labels.
public enum BuiltInBasemapStyle {
  static let water = "#aad3df"
  static let land = "#f2efe9"
  static let green = "#cfe6bf"
  static let boundary = "#8d7aa6"
  static let river = "#8fc4d6"
  static let majorRoad = "#f0a35e"
  static let road = "#ffffff"

  /// The paint of a feature of `layer`.
  public static let style: BasemapStyle = { layer, feature in
    let name = layer.lowercased()
    let properties = feature.properties ?? JSONObject()
    func text(_ key: String) -> String? {
      guard let value = properties[key] else { return nil }
      if let text = value.stringValue { return text }
      return value.numberValue.map { String(Int($0)) }
    }
    let kind = text("class") ?? text("kind") ?? text("type") ?? text("highway") ?? ""
    switch feature.geometry {
    case .polygon?, .multiPolygon?:
      if waterLayers.contains(name) || name.contains("water") || name.contains("ocean")
        || name.contains("lake")
      {
        return (.area, BasemapPaint(fill: water))
      }
      if name.contains("countr") || name.contains("admin") || name.contains("boundar") {
        return (.boundary, BasemapPaint(fill: land, stroke: boundary, strokeWidth: 0.8))
      }
      if greenLayers.contains(name)
        || ["park", "wood", "forest", "grass", "meadow", "nature_reserve"].contains(kind)
      {
        return (.area, BasemapPaint(fill: green))
      }
      return (.area, BasemapPaint(fill: land))
    case .lineString?, .multiLineString?:
      if name.contains("boundar") || name.contains("admin") {
        let level =
          properties["admin_level"]?.numberValue
          ?? text("admin_level").flatMap { Double($0) } ?? 2
        guard level <= 4 else { return nil }
        return (.boundary, BasemapPaint(stroke: boundary, strokeWidth: level <= 2 ? 1.2 : 0.6))
      }
      if name.contains("water") || name.contains("river") {
        return (.line, BasemapPaint(stroke: river, strokeWidth: 1))
      }
      if roadLayers.contains(name) || name.contains("road") || name.contains("street") {
        let major = ["motorway", "trunk", "primary"].contains(kind)
        return (
          .line,
          BasemapPaint(
            stroke: major ? majorRoad : road, strokeWidth: major ? 2 : kind == "secondary" ? 1.5 : 1
          )
        )
      }
      return (.line, BasemapPaint(stroke: "#b0b0b0", strokeWidth: 0.6))
    case .point?, .multiPoint?:
      guard
        let label = text("name:en") ?? text("name_en") ?? text("name") ?? text("NAME")
          ?? text("geocode_name") ?? text("title"), !label.isEmpty
      else { return nil }
      let size: Double =
        switch kind {
        case "country", "continent": 13
        case "state", "city": 12
        case "town": 11
        default: 10
        }
      return (.label, BasemapPaint(label: label, labelSize: size))
    default:
      return nil
    }
  }

  static let waterLayers: Set<String> = [
    "water", "ocean", "oceans", "water_polygons", "waterarea", "lakes", "sea",
  ]
  static let greenLayers: Set<String> = ["park", "landcover", "sites", "parks", "forest"]
  static let roadLayers: Set<String> = ["transportation", "streets", "roads", "road"]
}
