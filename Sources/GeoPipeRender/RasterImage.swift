internal import CCairo
internal import CJPEG
internal import CWebP
import Foundation

/// A raster tile decoded into a cairo image surface (premultiplied ARGB32), with the bytes it
/// was decoded from (which the SVG back end embeds as they are).
///
/// PNG is decoded by cairo (`cairo_image_surface_create_from_png_stream`), JPEG by libjpeg
/// (`jpeg_read_scanlines` into B, G, R, A) and WebP by libwebp (`WebPDecodeBGRA`).
final class RasterImage {
  /// The image formats raster tiles come in.
  enum Format: String {
    case png
    case jpeg
    case webp

    /// The MIME type, for a `data:` URL.
    var mimeType: String { "image/\(rawValue)" }

    /// The format its first bytes show, or nil.
    init?(magic bytes: [UInt8]) {
      if bytes.starts(with: [0x89, 0x50, 0x4e, 0x47]) {
        self = .png
      } else if bytes.starts(with: [0xff, 0xd8, 0xff]) {
        self = .jpeg
      } else if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)),
        Array(bytes[8..<12]) == Array("WEBP".utf8)
      {
        self = .webp
      } else {
        return nil
      }
    }
  }

  /// A tile larger than this many pixels on a side is refused.
  static let maxSide = 4096

  let format: Format
  let bytes: [UInt8]
  let surface: OpaquePointer
  let width: Int
  let height: Int

  /// Decodes a tile; throws a `RasterImageError` saying what is wrong with the bytes.
  init(bytes: [UInt8]) throws {
    guard let format = Format(magic: bytes) else {
      let start = bytes.prefix(4).map { String($0, radix: 16) }.joined(separator: " ")
      throw RasterImageError(
        "it is not a PNG, JPEG or WebP image (it starts with \(start.isEmpty ? "nothing" : start))"
      )
    }
    self.format = format
    self.bytes = bytes
    let surface: OpaquePointer =
      switch format {
      case .png: try Self.decodePNG(bytes)
      case .jpeg: try Self.decodeJPEG(bytes)
      case .webp: try Self.decodeWebP(bytes)
      }
    self.surface = surface
    width = Int(cairo_image_surface_get_width(surface))
    height = Int(cairo_image_surface_get_height(surface))
  }

  deinit { cairo_surface_destroy(surface) }

  /// The pixel at x, y as 0xAARRGGBB (premultiplied), for tests.
  func pixel(x: Int, y: Int) -> UInt32 {
    let rowBytes = Int(cairo_image_surface_get_stride(surface))
    guard let data = cairo_image_surface_get_data(surface) else { return 0 }
    return data.advanced(by: y * rowBytes + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) {
      $0.pointee
    }
  }

  private static func decodePNG(_ bytes: [UInt8]) throws -> OpaquePointer {
    final class Reader {
      let bytes: [UInt8]
      var position = 0
      init(_ bytes: [UInt8]) { self.bytes = bytes }
    }
    let reader = Reader(bytes)
    let surface = withExtendedLifetime(reader) {
      cairo_image_surface_create_from_png_stream(
        { closure, data, length in
          guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
          let reader = Unmanaged<Reader>.fromOpaque(closure).takeUnretainedValue()
          let count = Int(length)
          guard reader.bytes.count - reader.position >= count else {
            return CAIRO_STATUS_READ_ERROR
          }
          reader.bytes.withUnsafeBufferPointer {
            guard let base = $0.baseAddress else { return }
            data.update(from: base + reader.position, count: count)
          }
          reader.position += count
          return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(reader).toOpaque())
    }
    guard let surface else { throw RasterImageError("cairo could not decode the PNG") }
    let status = cairo_surface_status(surface)
    guard status == CAIRO_STATUS_SUCCESS else {
      cairo_surface_destroy(surface)
      throw RasterImageError(
        "cairo could not decode the PNG: \(String(cString: cairo_status_to_string(status)))")
    }
    let width = Int(cairo_image_surface_get_width(surface))
    let height = Int(cairo_image_surface_get_height(surface))
    guard width <= maxSide, height <= maxSide else {
      cairo_surface_destroy(surface)
      throw RasterImageError(
        "the image is \(width)x\(height) pixels, larger than \(maxSide)x\(maxSide)")
    }
    return surface
  }

  private static func decodeJPEG(_ bytes: [UInt8]) throws -> OpaquePointer {
    var width: Int32 = 0
    var height: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    let pixels = bytes.withUnsafeBufferPointer { buffer in
      geopipe_jpeg_decode(
        buffer.baseAddress, UInt(buffer.count), Int32(maxSide), &width, &height, &message,
        message.count)
    }
    guard let pixels else {
      let text = String(
        decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw RasterImageError("libjpeg could not decode the JPEG: \(text)")
    }
    defer { free(pixels) }
    return try surface(from: pixels, width: Int(width), height: Int(height), premultiply: false)
  }

  private static func decodeWebP(_ bytes: [UInt8]) throws -> OpaquePointer {
    var width: Int32 = 0
    var height: Int32 = 0
    guard WebPGetInfo(bytes, bytes.count, &width, &height) != 0 else {
      throw RasterImageError("libwebp could not read the WebP header")
    }
    guard Int(width) <= maxSide, Int(height) <= maxSide else {
      throw RasterImageError(
        "the image is \(width)x\(height) pixels, larger than \(maxSide)x\(maxSide)")
    }
    guard let pixels = WebPDecodeBGRA(bytes, bytes.count, &width, &height) else {
      throw RasterImageError("libwebp could not decode the WebP image")
    }
    defer { WebPFree(pixels) }
    return try surface(from: pixels, width: Int(width), height: Int(height), premultiply: true)
  }

  /// A cairo image surface of B, G, R, A rows (4 · width bytes each), premultiplying alpha
  /// when the pixels are straight.
  private static func surface(
    from pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, premultiply: Bool
  ) throws -> OpaquePointer {
    guard
      let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
    else { throw RasterImageError("cannot create a \(width)x\(height) image") }
    guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS,
      let data = cairo_image_surface_get_data(surface)
    else {
      cairo_surface_destroy(surface)
      throw RasterImageError("cannot create a \(width)x\(height) image")
    }
    let rowBytes = Int(cairo_image_surface_get_stride(surface))
    cairo_surface_flush(surface)
    for row in 0..<height {
      let source = pixels + row * width * 4
      let target = data + row * rowBytes
      // Cairo's ARGB32 is a native-endian 32-bit word, so B, G, R, A in memory here.
      target.update(from: source, count: width * 4)
      guard premultiply else { continue }
      for k in stride(from: 0, to: width * 4, by: 4) {
        let alpha = UInt32(target[k + 3])
        guard alpha != 255 else { continue }
        for c in 0..<3 { target[k + c] = UInt8((UInt32(target[k + c]) * alpha + 127) / 255) }
      }
    }
    cairo_surface_mark_dirty(surface)
    return surface
  }
}

/// What is wrong with a raster tile's bytes.
struct RasterImageError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
