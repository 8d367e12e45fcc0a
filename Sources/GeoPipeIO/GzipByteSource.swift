internal import CZlib
import GeoPipeCore

/// Decompresses gzip (RFC 1952) or zlib data from another source, including concatenated
/// gzip members as `gzip -c a b >> c` makes them.
public final class GzipByteSource: ByteSource {
  private let upstream: ByteSource
  // An error met after some output was produced, thrown on the next read.
  private var pendingError: GeoPipeError?
  private var stream = z_stream()
  private var input: UnsafeMutableRawBufferPointer
  private var finished = false
  private var upstreamEnded = false
  // Raw deflate (RFC 1951, as zip members hold it): no header, one stream.
  private let raw: Bool
  private let noun: String

  /// Wraps `upstream`.
  public convenience init(_ upstream: ByteSource) throws {
    try self.init(upstream, raw: false)
  }

  /// Wraps `upstream`, whose bytes are raw deflate data (RFC 1951) when `raw`, else gzip or
  /// zlib.
  init(_ upstream: ByteSource, raw: Bool) throws {
    self.upstream = upstream
    self.raw = raw
    noun = raw ? "deflate data" : "gzip data"
    input = .allocate(byteCount: 1 << 18, alignment: 16)
    // -15: raw deflate with a 32 KiB window; 15 + 32: a 32 KiB window, and detect gzip or zlib
    // headers automatically.
    let status = geopipe_inflateInit2(&stream, raw ? -15 : 15 + 32)
    guard status == Z_OK else {
      input.deallocate()
      throw GeoPipeError(
        "cannot start \(raw ? "deflate" : "gzip") decompression (zlib status \(status))",
        status: .ioError)
    }
  }

  deinit {
    inflateEnd(&stream)
    input.deallocate()
  }

  /// Inflates into `buffer`.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    if let pendingError {
      self.pendingError = nil
      finished = true
      throw pendingError
    }
    guard !finished, let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
    stream.next_out = out.assumingMemoryBound(to: UInt8.self)
    stream.avail_out = UInt32(min(buffer.count, Int(UInt32.max)))
    while stream.avail_out > 0 {
      try refillInput()
      let status = inflate(&stream, Z_NO_FLUSH)
      if status == Z_STREAM_END {
        // Another gzip member may follow; anything else after the end is ignored, as gzip does.
        try refillInput()
        if !raw, stream.avail_in > 0, stream.next_in.pointee == 0x1F {
          inflateReset(&stream)
          continue
        }
        finished = true
        break
      }
      if status == Z_BUF_ERROR {
        // No progress was possible: more input is needed, and there is none left.
        if upstreamEnded && stream.avail_in == 0 {
          return try fail(
            GeoPipeError.data("the \(noun) ends early: the file is truncated", at: nil), buffer)
        }
        continue
      }
      guard status == Z_OK else {
        let detail = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
        return try fail(GeoPipeError.data("the \(noun) is corrupt (\(detail))", at: nil), buffer)
      }
    }
    return buffer.count - Int(stream.avail_out)
  }

  /// Reads more compressed bytes when zlib has used up the last ones.
  private func refillInput() throws {
    guard stream.avail_in == 0 && !upstreamEnded else { return }
    let n = try upstream.read(into: input)
    if n == 0 {
      upstreamEnded = true
    } else {
      stream.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
      stream.avail_in = UInt32(n)
    }
  }

  /// Hands over the bytes inflated before `error` and keeps the error for the next read, so
  /// that the reader can say where the text broke off.
  private func fail(_ error: GeoPipeError, _ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let produced = buffer.count - Int(stream.avail_out)
    guard produced > 0 else {
      finished = true
      throw error
    }
    pendingError = error
    return produced
  }
}
