import Foundation

/// Draws the map as SVG 1.1 text: numbers rounded to 0.01 point, so the same map always gives
/// the same bytes.
final class SVGCanvas: Canvas {
  private var out: [UInt8] = []
  private let width: Double
  private let height: Double
  private var clips = 0

  init(width: Double, height: Double) {
    self.width = width
    self.height = height
    out.reserveCapacity(1 << 16)
    append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
    append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
    number(width)
    append("\" height=\"")
    number(height)
    append("\" viewBox=\"0 0 ")
    number(width)
    append(" ")
    number(height)
    append("\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n")
  }

  func background(_ color: RGBA) {
    append("<rect width=\"100%\" height=\"100%\"")
    paint("fill", color)
    append("/>\n")
  }

  func path(_ steps: [PathStep], fill: RGBA?, stroke: Stroke?) {
    append("<path d=\"")
    pathData(steps)
    append("\"")
    if let fill {
      paint("fill", fill)
      append(" fill-rule=\"evenodd\"")
    } else {
      append(" fill=\"none\"")
    }
    strokeAttributes(stroke)
    append(" stroke-linejoin=\"round\" stroke-linecap=\"round\"/>\n")
  }

  func circle(x: Double, y: Double, radius: Double, fill: RGBA?, stroke: Stroke?) {
    append("<circle cx=\"")
    number(x)
    append("\" cy=\"")
    number(y)
    append("\" r=\"")
    number(radius)
    append("\"")
    if let fill { paint("fill", fill) } else { append(" fill=\"none\"") }
    strokeAttributes(stroke)
    append("/>\n")
  }

  func wedge(x: Double, y: Double, radius: Double, start: Double, end: Double, fill: RGBA) {
    if end - start >= 2 * .pi - 1e-9 {
      circle(x: x, y: y, radius: radius, fill: fill, stroke: nil)
      return
    }
    append("<path d=\"M")
    pair(x, y)
    append("L")
    pair(x + radius * sin(start), y - radius * cos(start))
    append("A")
    pair(radius, radius)
    append(end - start > .pi ? " 0 1 1 " : " 0 0 1 ")
    pair(x + radius * sin(end), y - radius * cos(end))
    append("Z\"")
    paint("fill", fill)
    append("/>\n")
  }

  func pin(x: Double, y: Double, style: PinStyle) {
    let r = style.radius
    let shape = Self.pinGeometry(x: x, y: y, radius: r)
    append("<path d=\"M")
    pair(x, y)
    append("L")
    pair(shape.right.x, shape.right.y)
    append("A")
    pair(r, r)
    append(" 0 1 0 ")
    pair(shape.left.x, shape.left.y)
    append("Z\"")
    paint("fill", style.color)
    strokeAttributes(Stroke(color: style.color.darker(0.35), width: 1))
    append("/>\n")
    circle(x: shape.center.x, y: shape.center.y, radius: r * 0.4, fill: .white, stroke: nil)
  }

  func text(
    _ text: String, x: Double, y: Double, size: Double, bold: Bool, color: RGBA, halo: RGBA?,
    anchor: TextAnchor
  ) {
    append("<text x=\"")
    number(x)
    append("\" y=\"")
    number(y)
    append("\" font-size=\"")
    number(size)
    append("\"")
    if bold { append(" font-weight=\"bold\"") }
    switch anchor {
    case .start: break
    case .middle: append(" text-anchor=\"middle\"")
    case .end: append(" text-anchor=\"end\"")
    }
    paint("fill", color)
    if let halo {
      paint("stroke", halo)
      append(" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"")
    }
    append(">")
    escape(text)
    append("</text>\n")
  }

  /// The tile's bytes as they are, in a `data:` URL, on a unit square mapped by a matrix.
  func image(
    _ image: RasterImage, origin: (x: Double, y: Double), across: (x: Double, y: Double),
    down: (x: Double, y: Double)
  ) {
    append("<image xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"1\" height=\"1\"")
    append(" preserveAspectRatio=\"none\" transform=\"matrix(")
    for (k, value) in [across.x, across.y, down.x, down.y, origin.x, origin.y].enumerated() {
      if k > 0 { append(" ") }
      number(value)
    }
    append(")\" xlink:href=\"data:\(image.format.mimeType);base64,")
    append(Data(image.bytes).base64EncodedString())
    append("\"/>\n")
  }

  func clip(_ steps: [PathStep]) {
    clips += 1
    append("<clipPath id=\"clip\(clips)\"><path d=\"")
    pathData(steps)
    append("\"/></clipPath>\n<g clip-path=\"url(#clip\(clips))\">\n")
  }

  func unclip() { append("</g>\n") }

  func encoded() throws -> [UInt8] {
    append("</svg>\n")
    return out
  }

  // MARK: Text

  private func strokeAttributes(_ stroke: Stroke?) {
    guard let stroke else { return }
    paint("stroke", stroke.color)
    append(" stroke-width=\"")
    number(stroke.width)
    append("\"")
  }

  private func paint(_ attribute: String, _ color: RGBA) {
    append(" \(attribute)=\"\(color.hex)\"")
    if color.alpha < 1 {
      append(" \(attribute)-opacity=\"")
      number(color.alpha)
      append("\"")
    }
  }

  private func pathData(_ steps: [PathStep]) {
    for step in steps {
      switch step {
      case .move(let x, let y):
        append("M")
        pair(x, y)
      case .line(let x, let y):
        append("L")
        pair(x, y)
      case .close: append("Z")
      }
    }
  }

  private func pair(_ x: Double, _ y: Double) {
    number(x)
    append(",")
    number(y)
  }

  /// Appends a number rounded to two decimals, without trailing zeros.
  private func number(_ value: Double) {
    guard value.isFinite else {
      append("0")
      return
    }
    var hundredths = Int64((value * 100).rounded())
    if hundredths < 0 {
      out.append(UInt8(ascii: "-"))
      hundredths = -hundredths
    }
    out.append(contentsOf: String(hundredths / 100).utf8)
    let fraction = hundredths % 100
    if fraction != 0 {
      out.append(UInt8(ascii: "."))
      out.append(UInt8(ascii: "0") + UInt8(fraction / 10))
      if fraction % 10 != 0 { out.append(UInt8(ascii: "0") + UInt8(fraction % 10)) }
    }
  }

  private func escape(_ text: String) {
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "&"): append("&amp;")
      case UInt8(ascii: "<"): append("&lt;")
      case UInt8(ascii: ">"): append("&gt;")
      case ..<0x20: continue
      default: out.append(byte)
      }
    }
  }

  private func append(_ text: String) {
    out.append(contentsOf: text.utf8)
  }
}
