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
    readOptions: [
      FormatOption(
        "gpx-points", .flag,
        help: "GPX: one Point feature per track point (with track_name, track_index, "
          + "segment_index, point_index, ele and time) instead of one MultiLineString per track.")
    ])
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
