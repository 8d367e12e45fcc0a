import GeoPipeCore

/// Writes a KML 2.2 document (OGC 07-147r2): one Placemark per feature.
///
/// The simplestyle-spec 1.1.0 properties become an inline `Style` (colours as KML's
/// `aabbggrr`): `marker-color` and `marker-size` an `IconStyle`, `stroke`, `stroke-opacity` and
/// `stroke-width` a `LineStyle`, `fill` and `fill-opacity` a `PolyStyle`. `title` is the
/// placemark's `name` and `description` its `description`, which the balloon shows; other
/// properties go to `ExtendedData`, except null values, which KML cannot say. Multi-part geometries and collections are `MultiGeometry`.
public final class KMLWriter: BufferedFeatureWriter, FeatureWriter {
  private let precision: Int?

  /// Creates a writer.
  public init(sink: ByteSink, options: WriteOptions = WriteOptions()) {
    precision = options.precision
    super.init(sink: sink)
    text.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
    text.raw("<kml xmlns=\"http://www.opengis.net/kml/2.2\">\n<Document>\n")
  }

  /// Writes one Placemark.
  public func write(_ feature: Feature) throws {
    text.raw("<Placemark")
    if let id = feature.id {
      text.raw(" id=\"")
      escape(id.stringValue ?? Self.plain(id))
      text.raw("\"")
    }
    text.raw(">\n")
    let properties = feature.properties ?? JSONObject()
    if let title = properties["title"], !title.isNull {
      element("name", Self.plain(title))
    }
    if let description = properties["description"], !description.isNull {
      element("description", Self.plain(description))
    }
    writeStyle(properties)
    // A null value has no text in KML: it is left out rather than written as "null".
    let extended = properties.filter { !Self.styleKeys.contains($0.key) && !$0.value.isNull }
    if !extended.isEmpty {
      text.raw("<ExtendedData>\n")
      for member in extended {
        text.raw("<Data name=\"")
        escape(member.key)
        text.raw("\"><value>")
        escape(Self.plain(member.value))
        text.raw("</value></Data>\n")
      }
      text.raw("</ExtendedData>\n")
    }
    if let geometry = feature.geometry { writeGeometry(geometry) }
    text.raw("</Placemark>\n")
    try flushIfFull()
  }

  /// Closes the document, flushes and commits.
  public func finish() throws {
    text.raw("</Document>\n</kml>\n")
    try flush()
    try sink.commit()
  }

  // MARK: Styles

  /// The simplestyle-spec keys, which become the name, description and style.
  static let styleKeys: Set<String> = [
    "title", "description", "marker-color", "marker-size", "marker-symbol", "stroke",
    "stroke-width", "stroke-opacity", "fill", "fill-opacity",
  ]

  private func writeStyle(_ properties: JSONObject) {
    let markerColor = properties["marker-color"]?.stringValue.flatMap { Self.kmlColor($0) }
    let markerScale = properties["marker-size"]?.stringValue.flatMap { Self.markerScales[$0] }
    let strokeOpacity = properties["stroke-opacity"]?.numberValue ?? 1
    let stroke = properties["stroke"]?.stringValue.flatMap {
      Self.kmlColor($0, opacity: strokeOpacity)
    }
    let strokeWidth = properties["stroke-width"]?.numberValue
    // simplestyle-spec's default fill opacity is 0.6.
    let fillOpacity = properties["fill-opacity"]?.numberValue ?? 0.6
    let fill = properties["fill"]?.stringValue.flatMap { Self.kmlColor($0, opacity: fillOpacity) }
    let hasBalloon = properties["title"] != nil || properties["description"] != nil
    guard
      markerColor != nil || markerScale != nil || stroke != nil || strokeWidth != nil
        || fill != nil || hasBalloon
    else { return }
    text.raw("<Style>\n")
    if markerColor != nil || markerScale != nil {
      text.raw("<IconStyle>")
      if let markerColor { element("color", markerColor, newline: false) }
      if let markerScale { element("scale", markerScale, newline: false) }
      text.raw("</IconStyle>\n")
    }
    if stroke != nil || strokeWidth != nil {
      text.raw("<LineStyle>")
      if let stroke { element("color", stroke, newline: false) }
      if let strokeWidth {
        text.raw("<width>")
        text.writeCoordinate(strokeWidth)
        text.raw("</width>")
      }
      text.raw("</LineStyle>\n")
    }
    if let fill {
      text.raw("<PolyStyle>")
      element("color", fill, newline: false)
      text.raw("</PolyStyle>\n")
    }
    if hasBalloon {
      text.raw("<BalloonStyle><text><![CDATA[<b>$[name]</b><br/>$[description]]]></text>")
      text.raw("</BalloonStyle>\n")
    }
    text.raw("</Style>\n")
  }

  private static let markerScales = ["small": "0.8", "medium": "1", "large": "1.3"]

  /// `#rgb` or `#rrggbb` with an opacity from 0 to 1 as KML's `aabbggrr`; nil for another text.
  static func kmlColor(_ css: String, opacity: Double = 1) -> String? {
    var hex = Array(css.utf8)
    guard hex.first == UInt8(ascii: "#") else { return nil }
    hex.removeFirst()
    if hex.count == 3 { hex = hex.flatMap { [$0, $0] } }
    guard hex.count == 6, hex.allSatisfy({ hexValue($0) != nil }) else { return nil }
    let alpha = UInt8((min(max(opacity, 0), 1) * 255).rounded())
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = [digits[Int(alpha >> 4)], digits[Int(alpha & 15)]]
    for pair in [4, 2, 0] {
      out.append(contentsOf: hex[pair..<pair + 2].map { digits[Int(hexValue($0) ?? 0)] })
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }

  // MARK: Geometry

  private func writeGeometry(_ geometry: Geometry) {
    switch geometry {
    case .point(let p):
      text.raw("<Point><coordinates>")
      writePosition(p)
      text.raw("</coordinates></Point>\n")
    case .lineString(let line):
      text.raw("<LineString><coordinates>")
      writeCoordinates(line)
      text.raw("</coordinates></LineString>\n")
    case .polygon(let rings):
      writePolygon(rings)
    case .multiPoint(let points):
      text.raw("<MultiGeometry>\n")
      for p in points { writeGeometry(.point(p)) }
      text.raw("</MultiGeometry>\n")
    case .multiLineString(let lines):
      text.raw("<MultiGeometry>\n")
      for line in lines { writeGeometry(.lineString(line)) }
      text.raw("</MultiGeometry>\n")
    case .multiPolygon(let polygons):
      text.raw("<MultiGeometry>\n")
      for rings in polygons { writePolygon(rings) }
      text.raw("</MultiGeometry>\n")
    case .geometryCollection(let members):
      text.raw("<MultiGeometry>\n")
      for member in members { writeGeometry(member) }
      text.raw("</MultiGeometry>\n")
    }
  }

  private func writePolygon(_ rings: [CoordinateArray]) {
    text.raw("<Polygon>\n")
    for (k, ring) in rings.enumerated() {
      if k == 0 {
        text.raw("<outerBoundaryIs><LinearRing><coordinates>")
      } else {
        text.raw("<innerBoundaryIs><LinearRing><coordinates>")
      }
      writeCoordinates(ring)
      if k == 0 {
        text.raw("</coordinates></LinearRing></outerBoundaryIs>\n")
      } else {
        text.raw("</coordinates></LinearRing></innerBoundaryIs>\n")
      }
    }
    text.raw("</Polygon>\n")
  }

  private func writeCoordinates(_ coordinates: CoordinateArray) {
    for (k, p) in coordinates.enumerated() {
      if k > 0 { text.bytes.append(0x20) }
      writePosition(p)
    }
  }

  /// `lon,lat[,alt]`, as KML's `coordinates` lists them.
  private func writePosition(_ p: Position) {
    text.writeCoordinate(p.x, precision: precision)
    text.bytes.append(0x2C)
    text.writeCoordinate(p.y, precision: precision)
    if p.hasZ {
      text.bytes.append(0x2C)
      text.writeCoordinate(p.z, precision: precision)
    }
  }

  // MARK: Text

  private func element(_ name: StaticString, _ value: String, newline: Bool = true) {
    text.bytes.append(0x3C)
    text.raw(name)
    text.bytes.append(0x3E)
    escape(value)
    text.raw("</")
    text.raw(name)
    text.bytes.append(0x3E)
    if newline { text.bytes.append(0x0A) }
  }

  /// Appends text with XML's five special characters escaped; control characters that XML 1.0
  /// cannot hold are dropped.
  private func escape(_ value: String) {
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "&"): text.raw("&amp;")
      case UInt8(ascii: "<"): text.raw("&lt;")
      case UInt8(ascii: ">"): text.raw("&gt;")
      case UInt8(ascii: "\""): text.raw("&quot;")
      case UInt8(ascii: "'"): text.raw("&apos;")
      case 0x09, 0x0A, 0x0D: text.bytes.append(byte)
      case ..<0x20: continue
      default: text.bytes.append(byte)
      }
    }
  }

  /// A property value as text: strings as they are, other values as JSON.
  static func plain(_ value: JSONValue) -> String {
    if let string = value.stringValue { return string }
    var json = JSONTextWriter()
    json.writeValue(value)
    return String(decoding: json.bytes, as: UTF8.self)
  }
}
