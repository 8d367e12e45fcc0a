import GeoPipeCore

/// What the first bytes of an input look like, before any reader has seen them.
enum InputContent {
  /// Nothing, or only whitespace.
  case empty
  /// `{`, a record separator (RFC 8142) or an error record: GeoJSON text.
  case geoJSON
  /// `[`: a JSON array.
  case jsonArray
  /// A format that geopipe recognises but does not read, such as GML or a GeoPackage.
  case foreign(ForeignFormat)
  /// Other text: CSV, or prose.
  case text

  /// Classifies `head`, the first bytes of an input (a BOM already removed).
  init(_ head: [UInt8]) {
    if let foreign = ForeignFormat(head) {
      self = .foreign(foreign)
      return
    }
    guard let first = head.first(where: { !isSpace($0) }) else {
      self = .empty
      return
    }
    switch first {
    // A JSON reader reports bad bytes where they are.
    case 0x7B, 0x1E, 0x21: self = .geoJSON
    case 0x5B: self = .jsonArray
    default:
      if head.contains(0) || !isUTF8(head) {
        self = .foreign(ForeignFormat(name: "binary data", advice: ""))
      } else {
        self = .text
      }
    }
  }
}

/// A format recognised by its bytes that no geopipe reader reads.
struct ForeignFormat {
  /// What it is, as a noun phrase ("a KML document").
  var name: String
  /// What to do about it.
  var advice: String

  /// Converting with GDAL is the usual way into GeoJSON.
  private static let ogr = "convert it first, e.g. with ogr2ogr -f GeoJSONSeq out.geojsonl INPUT"

  /// A format named here.
  init(name: String, advice: String) {
    self.name = name
    self.advice = advice
  }

  /// The format that `head` starts with, or nil for text or JSON that a reader may read.
  init?(_ head: [UInt8]) {
    func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
      head.count >= offset + magic.count && Array(head[offset..<(offset + magic.count)]) == magic
    }
    let ogr = Self.ogr
    if starts(Array("SQLite format 3\0".utf8)) {
      // SQLite's header keeps the application id at offset 68 (big-endian).
      if starts(Array("GPKG".utf8), at: 68) || starts(Array("GP1".utf8), at: 68) {
        (name, advice) = ("a GeoPackage (an SQLite database)", ogr)
      } else if starts(Array("MPBX".utf8), at: 68) {
        name = "an MBTiles tile set (an SQLite database)"
        advice = "it holds tiles, not features"
      } else {
        (name, advice) = ("an SQLite database (a GeoPackage or MBTiles file?)", ogr)
      }
    } else if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) {
      (name, advice) = ("a zip archive (a zipped shapefile, KMZ or GeoPackage?)", "unzip it first")
    } else if starts(Array("PMTiles".utf8)) {
      (name, advice) = ("a PMTiles tile set", "it holds tiles, not features")
    } else if starts([0x00, 0x00, 0x27, 0x0A]) {
      (name, advice) = ("an ESRI shapefile (.shp)", ogr)
    } else if starts(Array("PAR1".utf8)) {
      (name, advice) = ("a Parquet file (GeoParquet?)", ogr)
    } else if starts([0x66, 0x67, 0x62, 0x03]) {
      (name, advice) = ("a FlatGeobuf file", ogr)
    } else if starts([0x89, 0x50, 0x4E, 0x47]) {
      (name, advice) = ("a PNG image", "geopipe reads vector data")
    } else if starts([0xFF, 0xD8, 0xFF]) {
      (name, advice) = ("a JPEG image", "geopipe reads vector data")
    } else if starts(Array("%PDF".utf8)) {
      (name, advice) = ("a PDF document", "geopipe reads vector data")
    } else if starts([0xFF, 0xFE]) || starts([0xFE, 0xFF]) {
      (name, advice) = ("UTF-16 text", "convert it to UTF-8, e.g. with iconv -f UTF-16 -t UTF-8")
    } else if let xml = Self.xml(head) {
      (name, advice) = (xml, xml == "an HTML page" || xml == "an SVG image" ? "" : ogr)
    } else {
      return nil
    }
  }

  /// What an XML document is, from its root element, or nil when `head` is not XML.
  private static func xml(_ head: [UInt8]) -> String? {
    guard let first = head.firstIndex(where: { !isSpace($0) }), head[first] == 0x3C,
      first + 1 < head.count
    else { return nil }
    let next = head[first + 1]
    // "<?xml", "<!--", "<!DOCTYPE" or an element name.
    guard next == 0x3F || next == 0x21 || (next | 0x20 >= 0x61 && next | 0x20 <= 0x7A) else {
      return nil
    }
    let text = String(decoding: head[first...], as: UTF8.self).lowercased()
    let roots: [(tag: String, name: String)] = [
      ("<osm", "an OpenStreetMap XML file"),
      ("<svg", "an SVG image"), ("<html", "an HTML page"), ("<!doctype html", "an HTML page"),
      ("<gml:", "a GML document"), ("<wfs:", "a GML document"),
    ]
    for root in roots where text.contains(root.tag) { return root.name }
    return "an XML document"
  }
}

extension FeatureReaders {
  /// The format to read `head`, the first bytes of an input, with: `expected` (from the file's
  /// extension) when the bytes agree with it, else the one the bytes suggest.
  ///
  /// Throws naming what the bytes are when no reader can read them, or when they contradict
  /// the extension.
  static func detect(
    _ head: [UInt8], name: String, location: SourceLocation, expected: TextFormat? = nil
  ) throws -> TextFormat {
    let content = InputContent(head)
    switch (content, expected) {
    case (.foreign(let format), _):
      var advice = format.advice.isEmpty ? "" : "; \(format.advice)"
      if advice.hasSuffix(" INPUT") && name != "<stdin>" {
        advice = advice.dropLast(5) + (name.contains(" ") ? "'\(name)'" : name)
      }
      throw GeoPipeError.data(
        "the input is \(format.name), which geopipe does not read (it reads "
          + "\(FeatureFormats.titles(FeatureFormats.readable)))\(advice)", at: location)
    case (.jsonArray, .csv), (.text, .csv), (.empty, .csv): return .csv
    case (.jsonArray, _):
      throw GeoPipeError.data(
        "the input is a JSON array; geopipe reads GeoJSON (a FeatureCollection, Features or "
          + "geometries) and CSV", at: location)
    case (.empty, .geojson):
      throw GeoPipeError.data("empty file, expected GeoJSON", at: location)
    case (.empty, .geojsonseq), (.geoJSON, .geojsonseq): return .geojsonseq
    case (.empty, nil), (.geoJSON, nil), (.geoJSON, .geojson): return .geojson
    case (.geoJSON, .csv):
      throw GeoPipeError.data(
        "expected CSV (the file name ends in .\(fileExtension(name))), but the file holds JSON "
          + "(it starts with '\(firstCharacter(head))'); use --input-format geojson to read it as "
          + "GeoJSON", at: location)
    case (.text, nil): return .csv
    case (.text, .geojson), (.text, .geojsonseq):
      let line = firstLine(head)
      let looksLikeCSV = line.contains { $0 == "," || $0 == ";" || $0 == "\t" || $0 == "|" }
      let hint = looksLikeCSV ? "; use --input-format csv to read it as CSV" : ""
      throw GeoPipeError.data(
        "expected GeoJSON (the file name ends in .\(fileExtension(name))), but the file starts "
          + "with \(looksLikeCSV ? "CSV" : "plain") text: \"\(line)\"\(hint)", at: location)
    }
  }

  /// An input whose name says `expected`, a format recognised by its bytes, holds something
  /// else: the error, saying what the bytes look like.
  static func contradiction(_ head: [UInt8], name: String, expected: FeatureFormat)
    -> GeoPipeError
  {
    let found =
      switch InputContent(head) {
      case .empty: "is empty"
      case .geoJSON, .jsonArray: "holds JSON (it starts with '\(firstCharacter(head))')"
      case .foreign(let format): "is \(format.name)"
      case .text: "starts with text: \"\(firstLine(head))\""
      }
    return GeoPipeError.data(
      "expected \(expected.title) (the file name ends in .\(fileExtension(name))), but the file "
        + found, at: SourceLocation(file: name, line: 1, column: 1))
  }

  /// The extension that decided the format, for messages.
  static func fileExtension(_ name: String) -> String {
    var name = Substring(name)
    if name.lowercased().hasSuffix(".gz") { name = name.dropLast(3) }
    return name.split(separator: ".").last.map(String.init) ?? ""
  }

  private static func firstCharacter(_ head: [UInt8]) -> String {
    head.first { !isSpace($0) }.map { String(UnicodeScalar($0)) } ?? ""
  }

  /// The first line that is not blank, shortened for a message.
  private static func firstLine(_ head: [UInt8]) -> String {
    let start = head.firstIndex { !isSpace($0) } ?? head.count
    let end = head[start...].firstIndex { $0 == 0x0A || $0 == 0x0D } ?? head.count
    var line = String(decoding: head[start..<end], as: UTF8.self)
    if line.count > 60 { line = String(line.prefix(57)) + "..." }
    return line
  }
}

private func isSpace(_ byte: UInt8) -> Bool {
  byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
}

/// Whether `bytes` is UTF-8, allowing a sequence cut at its end.
private func isUTF8(_ bytes: [UInt8]) -> Bool {
  var n = bytes.count
  var back = 0
  while n > 0 && back < 3 && bytes[n - 1] & 0xC0 == 0x80 {
    n -= 1
    back += 1
  }
  if n > 0 && bytes[n - 1] >= 0xC0 { n -= 1 } else { n += back }
  return String(validating: bytes.prefix(n), as: UTF8.self) != nil
}
