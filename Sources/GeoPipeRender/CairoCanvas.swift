internal import CCairo
import Foundation
import GeoPipeCore

/// Draws the map into a cairo image surface (ARGB32) and encodes it as PNG.
///
/// The canvas works in points; `scale` device pixels make one point. Pins are drawn once per
/// look into a small sprite and then copied at whole device pixels, which keeps a hundred
/// thousand markers fast.
final class CairoCanvas: Canvas {
  private let surface: OpaquePointer
  private let context: OpaquePointer
  private let scale: Double
  private var sprites: [PinStyle: Sprite] = [:]

  /// A pre-drawn pin and the device-pixel offset of its tip.
  private struct Sprite {
    var surface: OpaquePointer
    var width: Int32
    var height: Int32
    var tipX: Int32
    var tipY: Int32
  }

  /// Creates a canvas of width×height points at `scale` pixels per point.
  init(width: Double, height: Double, scale: Double) throws {
    let pixelWidth = Int32((width * scale).rounded())
    let pixelHeight = Int32((height * scale).rounded())
    guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pixelWidth, pixelHeight),
      cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
    else {
      throw GeoPipeError(
        "render: cannot create a \(pixelWidth)x\(pixelHeight) image", status: .ioError)
    }
    guard let context = cairo_create(surface), cairo_status(context) == CAIRO_STATUS_SUCCESS
    else {
      cairo_surface_destroy(surface)
      throw GeoPipeError("render: cannot create a cairo context", status: .ioError)
    }
    self.surface = surface
    self.context = context
    self.scale = scale
    cairo_scale(context, scale, scale)
    cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
    cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
    cairo_set_fill_rule(context, CAIRO_FILL_RULE_EVEN_ODD)
  }

  deinit {
    for sprite in sprites.values { cairo_surface_destroy(sprite.surface) }
    cairo_destroy(context)
    cairo_surface_destroy(surface)
  }

  func background(_ color: RGBA) {
    setSource(color)
    cairo_paint(context)
  }

  func path(_ steps: [PathStep], fill: RGBA?, stroke: Stroke?) {
    trace(steps)
    paint(fill: fill, stroke: stroke)
  }

  func circle(x: Double, y: Double, radius: Double, fill: RGBA?, stroke: Stroke?) {
    cairo_new_path(context)
    cairo_arc(context, x, y, radius, 0, 2 * .pi)
    cairo_close_path(context)
    paint(fill: fill, stroke: stroke)
  }

  func wedge(x: Double, y: Double, radius: Double, start: Double, end: Double, fill: RGBA) {
    cairo_new_path(context)
    if end - start < 2 * .pi - 1e-9 { cairo_move_to(context, x, y) }
    // Cairo's angles start at 3 o'clock; the wedges' at 12.
    cairo_arc(context, x, y, radius, start - .pi / 2, end - .pi / 2)
    cairo_close_path(context)
    paint(fill: fill, stroke: nil)
  }

  func pin(x: Double, y: Double, style: PinStyle) {
    guard let sprite = sprite(for: style) else { return }
    let left = Int32((x * scale).rounded()) - sprite.tipX
    let top = Int32((y * scale).rounded()) - sprite.tipY
    cairo_save(context)
    cairo_identity_matrix(context)
    cairo_set_source_surface(context, sprite.surface, Double(left), Double(top))
    cairo_rectangle(
      context, Double(left), Double(top), Double(sprite.width), Double(sprite.height))
    cairo_fill(context)
    cairo_restore(context)
  }

  func text(
    _ text: String, x: Double, y: Double, size: Double, bold: Bool, color: RGBA, halo: RGBA?,
    anchor: TextAnchor
  ) {
    cairo_select_font_face(
      context, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
      bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
    cairo_set_font_size(context, size)
    var extents = cairo_text_extents_t()
    cairo_text_extents(context, text, &extents)
    var left = x
    switch anchor {
    case .start: break
    case .middle: left -= extents.x_advance / 2
    case .end: left -= extents.x_advance
    }
    cairo_new_path(context)
    cairo_move_to(context, left, y)
    if let halo {
      cairo_text_path(context, text)
      setSource(halo)
      cairo_set_line_width(context, 3)
      cairo_stroke_preserve(context)
      setSource(color)
      cairo_fill(context)
    } else {
      setSource(color)
      cairo_show_text(context, text)
    }
  }

  func image(
    _ image: RasterImage, origin: (x: Double, y: Double), across: (x: Double, y: Double),
    down: (x: Double, y: Double)
  ) {
    let width = Double(image.width)
    let height = Double(image.height)
    cairo_save(context)
    var matrix = cairo_matrix_t(
      xx: across.x / width, yx: across.y / width, xy: down.x / height, yy: down.y / height,
      x0: origin.x, y0: origin.y)
    cairo_transform(context, &matrix)
    cairo_set_source_surface(context, image.surface, 0, 0)
    let pattern = cairo_get_source(context)
    cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
    // Pixels past the image's edge repeat its edge, and the square is filled without
    // antialiasing: each device pixel belongs to exactly one of the tiles that share an edge.
    cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
    cairo_set_antialias(context, CAIRO_ANTIALIAS_NONE)
    cairo_new_path(context)
    cairo_rectangle(context, 0, 0, width, height)
    cairo_fill(context)
    cairo_restore(context)
  }

  func clip(_ steps: [PathStep]) {
    cairo_save(context)
    trace(steps)
    cairo_clip(context)
  }

  func unclip() { cairo_restore(context) }

  func encoded() throws -> [UInt8] {
    cairo_surface_flush(surface)
    final class Buffer {
      var bytes: [UInt8] = []
    }
    let buffer = Buffer()
    let status = cairo_surface_write_to_png_stream(
      surface,
      { closure, data, length in
        guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
        let buffer = Unmanaged<Buffer>.fromOpaque(closure).takeUnretainedValue()
        buffer.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
        return CAIRO_STATUS_SUCCESS
      }, Unmanaged.passUnretained(buffer).toOpaque())
    guard status == CAIRO_STATUS_SUCCESS else {
      throw GeoPipeError(
        "render: cairo could not encode the PNG: \(String(cString: cairo_status_to_string(status)))",
        status: .ioError)
    }
    return buffer.bytes
  }

  // MARK: Helpers

  /// Makes `steps` the current path.
  private func trace(_ steps: [PathStep]) {
    cairo_new_path(context)
    for step in steps {
      switch step {
      case .move(let x, let y): cairo_move_to(context, x, y)
      case .line(let x, let y): cairo_line_to(context, x, y)
      case .close: cairo_close_path(context)
      }
    }
  }

  private func setSource(_ color: RGBA) {
    cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha)
  }

  private func paint(fill: RGBA?, stroke: Stroke?) {
    if let fill {
      setSource(fill)
      if stroke != nil { cairo_fill_preserve(context) } else { cairo_fill(context) }
    }
    if let stroke {
      setSource(stroke.color)
      cairo_set_line_width(context, stroke.width)
      cairo_stroke(context)
    }
  }

  /// The sprite of a pin look, drawn on first use.
  private func sprite(for style: PinStyle) -> Sprite? {
    if let sprite = sprites[style] { return sprite }
    let r = style.radius * scale
    let width = Int32((2 * r + 4).rounded(.up))
    let height = Int32((3 * r + 4).rounded(.up))
    let tipX = width / 2
    let tipY = height - 2
    guard let image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height) else {
      return nil
    }
    guard let cr = cairo_create(image) else {
      cairo_surface_destroy(image)
      return nil
    }
    let shape = Self.pinGeometry(x: Double(tipX), y: Double(tipY), radius: r)
    cairo_move_to(cr, Double(tipX), Double(tipY))
    cairo_line_to(cr, shape.right.x, shape.right.y)
    cairo_arc_negative(cr, shape.center.x, shape.center.y, r, .pi / 6, .pi * 5 / 6 - 2 * .pi)
    cairo_close_path(cr)
    let color = style.color
    cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    cairo_fill_preserve(cr)
    let edge = color.darker(0.35)
    cairo_set_source_rgba(cr, edge.red, edge.green, edge.blue, edge.alpha)
    cairo_set_line_width(cr, scale)
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
    cairo_stroke(cr)
    cairo_new_path(cr)
    cairo_arc(cr, shape.center.x, shape.center.y, r * 0.4, 0, 2 * .pi)
    cairo_set_source_rgba(cr, 1, 1, 1, 1)
    cairo_fill(cr)
    cairo_destroy(cr)
    cairo_surface_flush(image)
    let sprite = Sprite(surface: image, width: width, height: height, tipX: tipX, tipY: tipY)
    sprites[style] = sprite
    return sprite
  }
}
