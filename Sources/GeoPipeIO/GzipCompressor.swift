internal import CZlib
import GeoPipeCore

/// A reusable gzip compressor (RFC 1952) for many small buffers, such as vector tiles.
///
/// One zlib stream, reset for each buffer; not shared across threads.
public final class GzipCompressor {
  private var stream = z_stream()
  private var output: [UInt8] = []

  /// A compressor at zlib's `level` (1 fastest to 9 smallest; 6, zlib's default).
  public init(level: Int32 = 6) throws {
    // 15 + 16: a 32 KiB window and a gzip header.
    let status = geopipe_deflateInit2(&stream, level, 15 + 16)
    guard status == Z_OK else {
      throw GeoPipeError("cannot start gzip compression (zlib status \(status))", status: .ioError)
    }
  }

  deinit { deflateEnd(&stream) }

  /// The gzip member holding `input`.
  public func compress(_ input: [UInt8]) throws -> [UInt8] {
    deflateReset(&stream)
    let bound = Int(deflateBound(&stream, UInt(input.count))) + 32
    if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
    let status: Int32 = input.withUnsafeBufferPointer { inp in
      output.withUnsafeMutableBufferPointer { out in
        stream.next_in = UnsafeMutablePointer(mutating: inp.baseAddress)
        stream.avail_in = UInt32(inp.count)
        stream.next_out = out.baseAddress
        stream.avail_out = UInt32(out.count)
        return deflate(&stream, Z_FINISH)
      }
    }
    guard status == Z_STREAM_END else {
      throw GeoPipeError("gzip compression failed (zlib status \(status))", status: .ioError)
    }
    return Array(output[0..<Int(stream.total_out)])
  }
}
