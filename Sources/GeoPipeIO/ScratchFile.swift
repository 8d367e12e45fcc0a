import GeoPipeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file for bytes that are written once and read back (a CSV's rows before its header, a
/// tileset's tile data before its directories, FlatGeobuf features before their index).
///
/// It is removed from its folder as soon as it is created, so nothing is left behind however
/// the run ends; the space is freed when it is closed.
public final class ScratchFile {
  private var fd: Int32
  /// The output the scratch file serves, named in errors.
  private let output: String

  /// Creates a scratch file in `folder` (the output's own, so it is on the same disk) for the
  /// output `output`.
  public init(in folder: String, for output: String) throws {
    self.output = output
    var template = Array("\(folder)/.geopipe-scratch-\(getpid())-XXXXXX".utf8CString)
    fd = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    guard fd >= 0 else {
      throw GeoPipeError(
        "cannot create '\(output)': cannot create a scratch file in '\(folder)': "
          + OutputPath.reason(errno, folder: folder), status: .cannotCreate)
    }
    template.withUnsafeBufferPointer { buffer in
      if let base = buffer.baseAddress { _ = unlink(base) }
    }
  }

  /// `$TMPDIR`, else `/tmp`.
  public static var temporaryFolder: String {
    guard let folder = getenv("TMPDIR").map({ String(cString: $0) }), !folder.isEmpty else {
      return "/tmp"
    }
    return folder
  }

  deinit {
    if fd >= 0 { close(fd) }
  }

  /// Appends all of `bytes`.
  public func write(_ bytes: UnsafeRawBufferPointer) throws {
    guard let base = bytes.baseAddress else { return }
    let code = writeAll(fd, base, count: bytes.count)
    if code != 0 { throw failure(code) }
  }

  /// Reads everything written, from the start, in blocks handed to `body`.
  public func readAll(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    guard lseek(fd, 0, SEEK_SET) == 0 else { throw failure(errno) }
    let size = 1 << 20
    let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    defer { block.deallocate() }
    while true {
      let n = Glibc.read(fd, block, size)
      if n == 0 { return }
      if n < 0 {
        if errno == EINTR { continue }
        throw failure(errno)
      }
      try body(UnsafeRawBufferPointer(start: block, count: n))
    }
  }

  /// Reads up to `buffer.count` bytes from `offset` into `buffer`; returns how many were read
  /// (fewer only at the end of what was written).
  public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    var done = 0
    while done < buffer.count {
      let n = pread(fd, base + done, buffer.count - done, off_t(offset + done))
      if n == 0 { break }
      if n < 0 {
        if errno == EINTR { continue }
        throw failure(errno)
      }
      done += n
    }
    return done
  }

  /// Calls `body` with everything written, mapped into memory (for bytes read back in another
  /// order than they were written).
  public func withMappedBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
    let size = Int(lseek(fd, 0, SEEK_END))
    guard size > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
    guard let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else {
      throw failure(errno)
    }
    defer { munmap(map, size) }
    return try body(UnsafeRawBufferPointer(start: map, count: size))
  }

  private func failure(_ code: Int32) -> GeoPipeError {
    GeoPipeError(
      "cannot write '\(output)': \(OutputPath.reason(code, folder: "."))", status: .ioError)
  }
}
