import GeoPipeCore
import GeoPipeIO

/// GPX, read with `GPXReader`.
public enum GPX {
  /// GPX 1.1 (and 1.0): waypoints, routes and tracks; recognised by its root element.
  public static let format = FeatureFormat(
    name: "gpx", title: "GPX", extensions: ["gpx"],
    recognize: { head in XMLRoot.name(of: head) == "gpx" },
    open: { input, options in
      try GPXReader(
        source: input.source, name: input.name, options: options,
        pointsOnly: options.formatOptions.flag("gpx-points"))
    },
    layers: { input, options in try layers(input, options: options) },
    readOptions: [
      FormatOption(
        "gpx-points", .flag,
        help: "GPX: one Point feature per track point (with track_name, track_index, "
          + "segment_index, point_index, ele and time) instead of one MultiLineString per track.")
    ])
}

extension GPX {
  /// GDAL's four layers of a GPX file, counted by reading it through: waypoints, routes,
  /// tracks, and the points of the tracks.
  static func layers(_ input: FormatInput, options given: ReadOptions) throws -> [LayerInfo] {
    var options = given
    options.layer = nil
    let reader = try GPXReader(
      source: input.source, name: input.name, options: options, pointsOnly: false)
    var counts = ["waypoint": 0, "route": 0, "track": 0]
    var trackPoints = 0
    var fields: [String: [String]] = [:]
    while let feature = try reader.next() {
      guard case .string(let kind)? = feature.properties?["gpx_type"] else { continue }
      counts[kind, default: 0] += 1
      if kind == "track" { feature.geometry?.forEachXY { _, _ in trackPoints += 1 } }
      for key in feature.properties?.keys ?? [] where !(fields[kind]?.contains(key) ?? false) {
        fields[kind, default: []].append(key)
      }
    }
    func layer(_ name: String, _ type: String, _ kind: String, count: Int) -> LayerInfo {
      LayerInfo(
        name: name, geometryType: type, count: count, crs: "EPSG:4326",
        fields: (fields[kind] ?? []).map { ($0, "") })
    }
    return [
      layer("waypoints", "Point", "waypoint", count: counts["waypoint"] ?? 0),
      layer("routes", "LineString", "route", count: counts["route"] ?? 0),
      layer("tracks", "MultiLineString", "track", count: counts["track"] ?? 0),
      LayerInfo(name: "track_points", geometryType: "Point", count: trackPoints, crs: "EPSG:4326"),
    ]
  }
}

/// KML, read with `KMLReader` and written with GeoPipeIO's `KMLWriter`.
public enum KML {
  /// KML 2.2: Placemarks read back into the properties `KMLWriter` writes them from; replaces
  /// GeoPipeIO's write-only `FeatureFormat.kml` in the registry.
  public static let format = FeatureFormat(
    name: "kml", title: "KML", extensions: ["kml"],
    recognize: { head in XMLRoot.name(of: head) == "kml" },
    open: { input, options in
      try KMLReader(source: input.source, name: input.name, options: options)
    },
    create: { output, options in KMLWriter(sink: try output.sink(), options: options) })
}
