internal import CZlib
import GeoPipeCore

/// A reusable gzip (RFC 1952) or zlib decompressor for many small buffers, such as vector
/// tiles and PMTiles directories.
///
/// One zlib stream, reset for each buffer; not shared across threads.
public final class GzipDecompressor {
  private var stream = z_stream()
  private var output: [UInt8] = []

  /// A decompressor that detects a gzip or zlib header.
  public init() throws {
    // 15 + 32: a 32 KiB window, and detect gzip or zlib headers automatically.
    let status = geopipe_inflateInit2(&stream, 15 + 32)
    guard status == Z_OK else {
      throw GeoPipeError(
        "cannot start gzip decompression (zlib status \(status))", status: .ioError)
    }
  }

  deinit { inflateEnd(&stream) }

  /// Whether `bytes` start with the gzip magic number (1f 8b).
  public static func isGzip(_ bytes: some Collection<UInt8>) -> Bool {
    var iterator = bytes.makeIterator()
    return iterator.next() == 0x1f && iterator.next() == 0x8b
  }

  /// The bytes of the first gzip member in `input`, at most `limit` of them.
  ///
  /// Throws a `GeoPipeError` (bad input data) for data that is not gzip, is truncated or
  /// inflates past `limit`; its message says which, for the caller to name the input.
  public func decompress(_ input: UnsafeRawBufferPointer, limit: Int = 1 << 30) throws
    -> [UInt8]
  {
    inflateReset(&stream)
    if output.count < 4 * input.count + 1024 {
      output = [UInt8](repeating: 0, count: min(limit + 1, 4 * input.count + 1024))
    }
    stream.next_in = UnsafeMutablePointer(
      mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
    stream.avail_in = UInt32(input.count)
    var produced = 0
    while true {
      let status: Int32 = output.withUnsafeMutableBufferPointer { out in
        stream.next_out = out.baseAddress.map { $0 + produced }
        stream.avail_out = UInt32(out.count - produced)
        let status = inflate(&stream, Z_NO_FLUSH)
        produced = out.count - Int(stream.avail_out)
        return status
      }
      if status == Z_STREAM_END { return Array(output[0..<produced]) }
      guard status == Z_OK || status == Z_BUF_ERROR else {
        throw GeoPipeError("the data is not valid gzip (zlib status \(status))", status: .dataError)
      }
      if stream.avail_in == 0 && produced < output.count {
        throw GeoPipeError("the gzip data is truncated", status: .dataError)
      }
      guard output.count <= limit else {
        throw GeoPipeError("the data inflates to more than \(limit) bytes", status: .dataError)
      }
      output += [UInt8](repeating: 0, count: min(output.count, limit + 1 - output.count))
    }
  }

  /// `decompress` over an array.
  public func decompress(_ input: [UInt8], limit: Int = 1 << 30) throws -> [UInt8] {
    try input.withUnsafeBytes { try decompress($0, limit: limit) }
  }
}
