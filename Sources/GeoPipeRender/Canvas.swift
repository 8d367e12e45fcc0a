/// A colour with opacity, each component from 0 to 1.
struct RGBA: Hashable {
  var red: Double
  var green: Double
  var blue: Double
  var alpha: Double

  init(_ red: Double, _ green: Double, _ blue: Double, _ alpha: Double = 1) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  /// A colour from its 24-bit `0xrrggbb` value, opaque.
  init(rgb: UInt32) {
    self.init(
      Double(rgb >> 16 & 255) / 255, Double(rgb >> 8 & 255) / 255, Double(rgb & 255) / 255)
  }

  /// `#rgb` or `#rrggbb`, with an opacity; nil for other text.
  init?(css: String, alpha: Double = 1) {
    var hex = Array(css.utf8)
    guard hex.first == UInt8(ascii: "#") else { return nil }
    hex.removeFirst()
    if hex.count == 3 { hex = hex.flatMap { [$0, $0] } }
    guard hex.count == 6 else { return nil }
    var values: [Double] = []
    for k in stride(from: 0, to: 6, by: 2) {
      guard let high = RGBA.hexValue(hex[k]), let low = RGBA.hexValue(hex[k + 1]) else {
        return nil
      }
      values.append(Double(high * 16 + low) / 255)
    }
    self.init(values[0], values[1], values[2], min(max(alpha, 0), 1))
  }

  /// The colour as `#rrggbb`.
  var hex: String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = [UInt8(ascii: "#")]
    for value in [red, green, blue] {
      let byte = Int((min(max(value, 0), 1) * 255).rounded())
      out.append(digits[byte >> 4])
      out.append(digits[byte & 15])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The same colour darkened by `amount` (0 to 1).
  func darker(_ amount: Double) -> RGBA {
    RGBA(red * (1 - amount), green * (1 - amount), blue * (1 - amount), alpha)
  }

  func with(alpha: Double) -> RGBA { RGBA(red, green, blue, alpha) }

  static let white = RGBA(1, 1, 1)

  private static func hexValue(_ byte: UInt8) -> Int? {
    switch byte {
    case 0x30...0x39: Int(byte - 0x30)
    case 0x41...0x46: Int(byte - 0x41 + 10)
    case 0x61...0x66: Int(byte - 0x61 + 10)
    default: nil
    }
  }
}

/// A line's paint.
struct Stroke: Hashable {
  var color: RGBA
  var width: Double
}

/// One step of a path, in viewport points.
enum PathStep {
  case move(Double, Double)
  case line(Double, Double)
  case close
}

/// How text sits on its point.
enum TextAnchor {
  case start
  case middle
  case end
}

/// A marker pin's look: a MapKit-style balloon with a white dot, its tip on the location.
struct PinStyle: Hashable {
  var color: RGBA
  /// The balloon's radius in points.
  var radius: Double
}

/// What the map is drawn on: the PNG (cairo) and SVG back ends draw the same operations, so
/// both show the same map.
protocol Canvas: AnyObject {
  /// Fills the whole viewport.
  func background(_ color: RGBA)
  /// Fills (even-odd) and strokes a path.
  func path(_ steps: [PathStep], fill: RGBA?, stroke: Stroke?)
  /// Fills and strokes a circle.
  func circle(x: Double, y: Double, radius: Double, fill: RGBA?, stroke: Stroke?)
  /// Fills a pie wedge from `start` to `end` radians (clockwise from 12 o'clock).
  func wedge(x: Double, y: Double, radius: Double, start: Double, end: Double, fill: RGBA)
  /// Draws a pin whose tip is at x, y.
  func pin(x: Double, y: Double, style: PinStyle)
  /// Draws text with its baseline at y, with an optional halo around the glyphs.
  func text(
    _ text: String, x: Double, y: Double, size: Double, bold: Bool, color: RGBA, halo: RGBA?,
    anchor: TextAnchor)
  /// Draws a raster tile stretched over the parallelogram with corner `origin` (the image's
  /// top left) and edges `across` (along its top) and `down` (along its left side), in
  /// viewport points, filtered; tiles that share an edge leave no seam between them.
  func image(
    _ image: RasterImage, origin: (x: Double, y: Double), across: (x: Double, y: Double),
    down: (x: Double, y: Double))
  /// Draws only inside the closed path until `unclip()`.
  func clip(_ steps: [PathStep])
  /// Ends the last `clip(_:)`.
  func unclip()
  /// The encoded image.
  func encoded() throws -> [UInt8]
}

extension Canvas {
  /// The outline of a pin with its tip at x, y: a circle of `radius` centred 2·radius above
  /// the tip and the two tangents from the tip (which meet the circle 60° either side of its
  /// lowest point).
  static func pinGeometry(x: Double, y: Double, radius r: Double) -> (
    center: (x: Double, y: Double), right: (x: Double, y: Double), left: (x: Double, y: Double)
  ) {
    let cy = y - 2 * r
    let dx = r * 0.866_025_403_784_438_6
    let dy = r * 0.5
    return ((x, cy), (x + dx, cy + dy), (x - dx, cy + dy))
  }
}
