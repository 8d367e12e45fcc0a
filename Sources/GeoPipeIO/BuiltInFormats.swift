import GeoPipeCore

/// The text formats that content detection tells apart, and GeoJSON's sequence variant.
enum TextFormat: String, Sendable {
  case geojson
  case geojsonseq
  case csv
}

extension FeatureFormat {
  /// GeoJSON (RFC 7946): a FeatureCollection, Features or bare geometries; written as a
  /// FeatureCollection.
  public static let geoJSON = FeatureFormat(
    name: "geojson", title: "GeoJSON", extensions: ["geojson", "json"], recognize: nil,
    open: { input, options in try FeatureReaders.openText(input, options: options, as: .geojson) },
    create: { output, options in GeoJSONWriter(sink: try output.sink(), options: options) },
    layers: nil, readOptions: [], writeOptions: [], text: .geojson
  ).splitting(by: FeatureReaders.openGeoJSONShare)

  /// GeoJSON text sequences: one Feature per line, or RS-delimited (RFC 8142); `.geojsons`
  /// asks for record separators.
  public static let geoJSONSeq = FeatureFormat(
    name: "geojsonseq", title: "GeoJSONSeq",
    extensions: ["geojsonl", "geojsons", "geojsonseq", "ndjson", "jsonl", "ldjson"],
    recognize: nil,
    open: { input, options in
      try FeatureReaders.openText(input, options: options, as: .geojsonseq)
    },
    create: { output, given in
      var options = given
      if FeatureFormats.fileExtension(of: output.path) == "geojsons" {
        options.recordSeparator = true
      }
      return GeoJSONSeqWriter(sink: try output.sink(), options: options)
    },
    layers: nil, readOptions: [], writeOptions: [], text: .geojsonseq
  ).splitting(by: FeatureReaders.openSequenceShare)

  /// Delimited text (RFC 4180) with coordinate or WKT columns; `.tsv` is tab-separated.
  public static let csv = FeatureFormat(
    name: "csv", title: "CSV", extensions: ["csv", "tsv", "txt"], recognize: nil,
    open: { input, options in try FeatureReaders.openText(input, options: options, as: .csv) },
    create: { output, given in
      var options = given
      if FeatureFormats.fileExtension(of: output.path) == "tsv" { options.csv.delimiter = 0x09 }
      if output.path != "-" { options.csv.scratchFolder = OutputPath.parent(of: output.path) }
      return CSVWriter(sink: try output.sink(), options: options)
    },
    layers: nil, readOptions: [], writeOptions: [], text: .csv
  ).splitting(by: FeatureReaders.openCSVShare)

  /// KML 2.2, written with styles from the simplestyle-spec properties.
  public static let kml = FeatureFormat(
    name: "kml", title: "KML", extensions: ["kml"],
    recognize: { head in XMLRoot.name(of: head) == "kml" },
    create: { output, options in KMLWriter(sink: try output.sink(), options: options) })
}

/// The root element of an XML document, from its first bytes.
public enum XMLRoot {
  /// The root element's name without a namespace prefix, lowercase (`kml`, `gpx`), or nil when
  /// `head` does not start (after a BOM and whitespace) with an XML declaration, comment,
  /// doctype or element.
  public static func name(of head: [UInt8]) -> String? {
    var k = 0
    if head.count >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF { k = 3 }
    while k < head.count && [0x20, 0x09, 0x0A, 0x0D].contains(head[k]) { k += 1 }
    guard k + 1 < head.count, head[k] == 0x3C else { return nil }
    // Past declarations, processing instructions, comments and the doctype to the first element.
    while k + 1 < head.count {
      guard head[k] == 0x3C else {
        k += 1
        continue
      }
      let next = head[k + 1]
      if next == 0x3F || next == 0x21 {
        guard let close = head[k...].firstIndex(of: 0x3E) else { return nil }
        if next == 0x21, head.count > k + 4, head[k + 2] == 0x2D, head[k + 3] == 0x2D {
          // A comment ends at "-->".
          var end = k + 4
          while end + 2 < head.count
            && !(head[end] == 0x2D && head[end + 1] == 0x2D && head[end + 2] == 0x3E)
          {
            end += 1
          }
          k = end + 3
        } else {
          k = close + 1
        }
        continue
      }
      var end = k + 1
      while end < head.count, head[end] > 0x20, head[end] != 0x3E, head[end] != 0x2F {
        end += 1
      }
      guard end > k + 1 else { return nil }
      var name = String(decoding: head[(k + 1)..<end], as: UTF8.self).lowercased()
      if let colon = name.lastIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
      return name
    }
    return nil
  }
}
