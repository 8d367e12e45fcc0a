import GeoPipeCore
import GeoPipeIO

/// FlatGeobuf 3 (`.fgb`): read, with the spatial index answering `--bbox`, and written with
/// a packed Hilbert R-tree unless `--no-index`.
public enum FlatGeobuf {
  /// The format's description for the registry.
  public static let format = FeatureFormat(
    name: "flatgeobuf", title: "FlatGeobuf", extensions: ["fgb"],
    recognize: { head in FGBHeader.recognizes(head) },
    open: { input, options in try FlatGeobufReader(input: input, options: options) },
    create: { output, options in try FlatGeobufWriter(output: output, options: options) },
    layers: { input, options in
      var plain = options
      plain.bbox = nil
      return [try FlatGeobufReader(input: input, options: plain).layer]
    },
    writeOptions: [
      FormatOption(
        "no-index", .flag,
        help:
          "FlatGeobuf: write no spatial index, keeping the features in input order (with the "
          + "index, the default, they are written in the index's Hilbert order, as GDAL does)."
      )
    ]
  ).splitting(by: FlatGeobufReader.openShare)
}
