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

extension FlatGeobuf {
  /// The position of `box`'s centre along the Hilbert curve that orders FlatGeobuf's index
  /// (a 2^16 grid over `extent`); 0 for an empty box.
  public static func hilbertValue(of box: BBox, in extent: BBox) -> UInt32 {
    PackedRTree.hilbertValue(
      of: [box.west, box.south, box.east, box.north][...],
      in: [extent.west, extent.south, extent.east, extent.north])
  }
}
