internal import CZlib
import GeoPipeCore

/// Compresses into gzip format (RFC 1952) on its way to another sink.
public final class GzipSink: ByteSink {
  private let downstream: ByteSink
  private var stream = z_stream()
  private var output: UnsafeMutablePointer<UInt8>
  private let outputSize = 1 << 18

  /// Wraps `downstream`.
  public init(_ downstream: ByteSink, level: Int32 = 6) throws {
    self.downstream = downstream
    output = .allocate(capacity: outputSize)
    // 15 + 16: a 32 KiB window and a gzip header rather than a zlib one.
    let status = geopipe_deflateInit2(&stream, level, 15 + 16)
    guard status == Z_OK else {
      output.deallocate()
      throw GeoPipeError("cannot start gzip compression (zlib status \(status))", status: .ioError)
    }
  }

  deinit {
    deflateEnd(&stream)
    output.deallocate()
  }

  /// Compresses and forwards bytes.
  public func write(_ bytes: UnsafeRawBufferPointer) throws {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
    stream.avail_in = UInt32(bytes.count)
    try pump(flush: Z_NO_FLUSH)
  }

  /// Finishes the gzip stream and commits the downstream sink.
  public func commit() throws {
    stream.next_in = nil
    stream.avail_in = 0
    try pump(flush: Z_FINISH)
    try downstream.commit()
  }

  /// Discards the output.
  public func abort() { downstream.abort() }

  private func pump(flush: Int32) throws {
    while true {
      stream.next_out = output
      stream.avail_out = UInt32(outputSize)
      let status = deflate(&stream, flush)
      guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
        throw GeoPipeError("gzip compression failed (zlib status \(status))", status: .ioError)
      }
      let produced = outputSize - Int(stream.avail_out)
      if produced > 0 {
        try downstream.write(UnsafeRawBufferPointer(start: output, count: produced))
      }
      if flush == Z_FINISH ? status == Z_STREAM_END : (stream.avail_in == 0 && stream.avail_out > 0)
      {
        return
      }
    }
  }
}
