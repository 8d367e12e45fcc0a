import GeoPipeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Something that fills buffers with bytes: a file, standard input, a decompressor.
public protocol ByteSource: AnyObject {
  /// Reads up to `buffer.count` bytes; returns 0 only at the end of the input.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Bytes from a file descriptor (a file, or standard input when the path is `-`).
public final class FileByteSource: ByteSource {
  /// The name used in messages.
  public let name: String
  private let fd: Int32
  private let ownsDescriptor: Bool

  /// Opens `path` for reading; `-` means standard input.
  public init(path: String) throws {
    name = path
    if path == "-" {
      fd = 0
      ownsDescriptor = false
      return
    }
    let opened = open(path, O_RDONLY | O_CLOEXEC)
    guard opened >= 0 else {
      throw GeoPipeError(
        "cannot open '\(path)': \(String(cString: strerror(errno)))", status: .noInput)
    }
    var info = stat()
    if fstat(opened, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
      close(opened)
      throw GeoPipeError("cannot read '\(path)': it is a directory", status: .noInput)
    }
    fd = opened
    ownsDescriptor = true
  }

  deinit {
    if ownsDescriptor { close(fd) }
  }

  /// Reads the next bytes, retrying on EINTR.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    while true {
      let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
      if n >= 0 { return n }
      if errno == EINTR { continue }
      throw GeoPipeError(
        "cannot read '\(name)': \(String(cString: strerror(errno)))", status: .ioError)
    }
  }
}

/// Bytes from memory, for tests, fuzzing and the Swift API.
public final class MemoryByteSource: ByteSource {
  private let bytes: [UInt8]
  private var offset = 0
  private let chunkLimit: Int

  /// Serves `bytes`; `chunkLimit` caps each read, to exercise buffer refills in tests.
  public init(_ bytes: [UInt8], chunkLimit: Int = .max) {
    self.bytes = bytes
    self.chunkLimit = chunkLimit
  }

  /// Copies the next bytes.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let n = min(buffer.count, bytes.count - offset, chunkLimit)
    guard n > 0 else { return 0 }
    bytes.withUnsafeBytes { source in
      guard let from = source.baseAddress else { return }
      buffer.baseAddress?.copyMemory(from: from + offset, byteCount: n)
    }
    offset += n
    return n
  }
}
