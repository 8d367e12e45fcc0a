import GeoPipeCore

/// The parts of a KML `Style` that simplestyle-spec properties can say: the inverse of
/// `KMLWriter`'s styles.
struct KMLStyle {
  /// `IconStyle/color`, `aabbggrr`.
  var iconColor: String?
  /// `IconStyle/scale`.
  var iconScale: String?
  /// `LineStyle/color`.
  var lineColor: String?
  /// `LineStyle/width`.
  var lineWidth: String?
  /// `PolyStyle/color`.
  var polyColor: String?
  /// `PolyStyle/fill`: false for `0`.
  var polyFill: Bool?

  /// `self` with the values `other` sets put over it.
  func merged(with other: KMLStyle) -> KMLStyle {
    KMLStyle(
      iconColor: other.iconColor ?? iconColor, iconScale: other.iconScale ?? iconScale,
      lineColor: other.lineColor ?? lineColor, lineWidth: other.lineWidth ?? lineWidth,
      polyColor: other.polyColor ?? polyColor, polyFill: other.polyFill ?? polyFill)
  }

  /// The simplestyle-spec properties, in the order `marker-color`, `marker-size`, `stroke`,
  /// `stroke-opacity`, `stroke-width`, `fill`, `fill-opacity`.
  ///
  /// Opacities are the alpha byte over 255 rounded to two decimals, and left out at their
  /// simplestyle defaults (1 for the stroke; 0.6 for the fill, which `KMLWriter` writes as
  /// `99`); marker-size is `small`, `medium` or `large` for the scales `KMLWriter` writes (0.8,
  /// 1, 1.3) and left out for others.
  func append(to properties: inout JSONObject) {
    if let color = iconColor.flatMap(Self.parse) {
      properties.appendUnchecked("marker-color", .string(color.css))
    }
    if let scale = iconScale.flatMap({ XMLValues.number(Array($0.utf8)) }),
      let size = Self.markerSizes.first(where: { abs($0.scale - scale) < 1e-9 })?.name
    {
      properties.appendUnchecked("marker-size", .string(size))
    }
    if let color = lineColor.flatMap(Self.parse) {
      properties.appendUnchecked("stroke", .string(color.css))
      if color.alpha != 255 {
        properties.appendUnchecked("stroke-opacity", .double(Self.opacity(color.alpha)))
      }
    }
    if let width = lineWidth.flatMap(XMLValues.typedNumber) {
      properties.appendUnchecked("stroke-width", width)
    }
    let fillColor = polyColor.flatMap(Self.parse)
    if let fillColor { properties.appendUnchecked("fill", .string(fillColor.css)) }
    if polyFill == false {
      properties.appendUnchecked("fill-opacity", .integer(0))
    } else if let fillColor, fillColor.alpha != 0x99 {
      properties.appendUnchecked("fill-opacity", .double(Self.opacity(fillColor.alpha)))
    }
  }

  private static let markerSizes: [(name: String, scale: Double)] = [
    ("small", 0.8), ("medium", 1), ("large", 1.3),
  ]

  private static func opacity(_ alpha: UInt8) -> Double {
    (Double(alpha) / 255 * 100).rounded() / 100
  }

  /// `aabbggrr` (KML's colour) as `#rrggbb` and the alpha byte; nil for other text.
  static func parse(_ kml: String) -> (css: String, alpha: UInt8)? {
    let hex = Array(XMLValues.trimmed(kml).lowercased().utf8)
    guard hex.count == 8, let value = UInt32(String(decoding: hex, as: UTF8.self), radix: 16)
    else { return nil }
    let digits = Array("0123456789abcdef".utf8)
    var css: [UInt8] = [UInt8(ascii: "#")]
    for shift in [0, 8, 16] {
      let byte = (value >> UInt32(shift)) & 0xFF
      css.append(digits[Int(byte >> 4)])
      css.append(digits[Int(byte & 15)])
    }
    return (String(decoding: css, as: UTF8.self), UInt8(value >> 24))
  }
}
