internal import CSnappy
internal import CZstd
import GeoPipeCore
import GeoPipeIO

/// Decompresses and compresses pages with a column chunk's codec: Snappy (libsnappy's C API),
/// gzip (through GeoPipeIO's zlib wrappers) and Zstandard (libzstd), or none.
///
/// One per reader or writer; not shared across threads.
final class PageCodec {
  private var gunzip: GzipDecompressor?
  private var gzip: GzipCompressor?
  private let zstdD: OpaquePointer
  private let zstdC: OpaquePointer
  /// The Zstandard level pages are written at.
  var zstdLevel: Int32 = 3

  init() throws {
    guard let d = ZSTD_createDCtx() else { throw ParquetError("cannot start Zstandard") }
    guard let c = ZSTD_createCCtx() else {
      ZSTD_freeDCtx(d)
      throw ParquetError("cannot start Zstandard")
    }
    zstdD = d
    zstdC = c
  }

  deinit {
    ZSTD_freeDCtx(zstdD)
    ZSTD_freeCCtx(zstdC)
  }

  /// The `size` bytes that `input` decompresses to, or an error saying how it failed.
  func decompress(_ input: UnsafeRawBufferPointer, codec: Codec, size: Int) throws -> [UInt8] {
    switch codec {
    case .uncompressed:
      guard input.count == size else {
        throw ParquetError("the page holds \(input.count) bytes where its header says \(size)")
      }
      return Array(input)
    case .snappy:
      var length = 0
      guard
        snappy_uncompressed_length(
          input.baseAddress?.assumingMemoryBound(to: CChar.self), input.count, &length)
          == SNAPPY_OK, length == size
      else { throw ParquetError("the page's Snappy data does not decompress to \(size) bytes") }
      var output = [UInt8](repeating: 0, count: size)
      let status = output.withUnsafeMutableBytes { out in
        snappy_uncompress(
          input.baseAddress?.assumingMemoryBound(to: CChar.self), input.count,
          out.baseAddress?.assumingMemoryBound(to: CChar.self), &length)
      }
      guard status == SNAPPY_OK, length == size else {
        throw ParquetError("the page's Snappy data is corrupt")
      }
      return output
    case .gzip:
      let inflater = try gunzip ?? GzipDecompressor()
      gunzip = inflater
      let output: [UInt8]
      do {
        output = try inflater.decompress(input, limit: size)
      } catch let error as GeoPipeError {
        throw ParquetError("the page's gzip data: \(error.message)")
      }
      guard output.count == size else {
        throw ParquetError("the page decompresses to \(output.count) bytes, not \(size)")
      }
      return output
    case .zstd:
      var output = [UInt8](repeating: 0, count: size)
      let result = output.withUnsafeMutableBytes { out in
        ZSTD_decompressDCtx(zstdD, out.baseAddress, size, input.baseAddress, input.count)
      }
      if ZSTD_isError(result) != 0 {
        throw ParquetError(
          "the page's Zstandard data is corrupt (\(String(cString: ZSTD_getErrorName(result))))")
      }
      guard result == size else {
        throw ParquetError("the page decompresses to \(result) bytes, not \(size)")
      }
      return output
    case .lzo, .brotli, .lz4, .lz4Raw:
      throw ParquetError("the \(Self.name(codec)) codec is not supported")
    }
  }

  /// `input` compressed with `codec` (one of those `compressionNames` offers).
  func compress(_ input: [UInt8], codec: Codec) throws -> [UInt8] {
    switch codec {
    case .snappy:
      var length = snappy_max_compressed_length(input.count)
      var output = [UInt8](repeating: 0, count: length)
      let status = input.withUnsafeBytes { inp in
        output.withUnsafeMutableBytes { out in
          snappy_compress(
            inp.baseAddress?.assumingMemoryBound(to: CChar.self), inp.count,
            out.baseAddress?.assumingMemoryBound(to: CChar.self), &length)
        }
      }
      guard status == SNAPPY_OK else { throw ParquetError("Snappy compression failed") }
      output.removeLast(output.count - length)
      return output
    case .gzip:
      let deflater = try gzip ?? GzipCompressor()
      gzip = deflater
      return try deflater.compress(input)
    case .zstd:
      var output = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count))
      let result = input.withUnsafeBytes { inp in
        output.withUnsafeMutableBytes { out in
          ZSTD_compressCCtx(
            zstdC, out.baseAddress, out.count, inp.baseAddress, inp.count, zstdLevel)
        }
      }
      guard ZSTD_isError(result) == 0 else { throw ParquetError("Zstandard compression failed") }
      output.removeLast(output.count - result)
      return output
    default:
      return input
    }
  }

  /// The codecs `--compression` offers, by name.
  static let compressionNames: [(String, Codec)] = [
    ("zstd", .zstd), ("snappy", .snappy), ("gzip", .gzip), ("none", .uncompressed),
  ]

  static func name(_ codec: Codec) -> String {
    switch codec {
    case .uncompressed: "UNCOMPRESSED"
    case .snappy: "SNAPPY"
    case .gzip: "GZIP"
    case .lzo: "LZO"
    case .brotli: "BROTLI"
    case .lz4: "LZ4"
    case .zstd: "ZSTD"
    case .lz4Raw: "LZ4_RAW"
    }
  }
}

/// A failure inside the Parquet decoder or encoder, whose message the reader prefixes with the
/// file, row group and column.
struct ParquetError: Error {
  var message: String

  init(_ message: String) { self.message = message }
}
