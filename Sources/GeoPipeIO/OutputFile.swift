import GeoPipeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thrown when the reader of standard output has gone away (`geopipe read x | head`).
public struct BrokenPipe: Error {}

/// Where bytes go: a file, standard output, a compressor.
public protocol ByteSink: AnyObject {
  /// Writes all of `bytes`.
  func write(_ bytes: UnsafeRawBufferPointer) throws
  /// Flushes and makes the output final (renames a temporary file into place).
  func commit() throws
  /// Discards the output (removes a temporary file).
  ///
  /// Safe to call more than once.
  func abort()
}

/// A file written atomically: bytes go to a temporary file in the same folder, renamed over the
/// destination by `commit()`.
///
/// A failed or interrupted run leaves no partial file. The path `-` is standard output.
public final class OutputFile: ByteSink {
  /// The destination path (`-` for standard output).
  public let path: String
  private var fd: Int32
  private var temporaryPath: String?
  private var finished = false

  /// Creates the temporary file (or takes standard output for `-`).
  public init(path: String) throws {
    self.path = path
    if path == "-" {
      fd = 1
      return
    }
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { String(path[..<$0]) } ?? "."
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    var template = Array("\(folder.isEmpty ? "/" : folder)/.\(name).geopipe-XXXXXX".utf8CString)
    let opened = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    guard opened >= 0 else {
      let reason = String(cString: strerror(errno))
      throw GeoPipeError("cannot create '\(path)': \(reason)", status: .cannotCreate)
    }
    fd = opened
    let temporary = String(
      decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    temporaryPath = temporary
    TemporaryFiles.register(temporary)
  }

  deinit {
    if !finished { abort() }
  }

  /// Writes all bytes, retrying short writes and EINTR.
  public func write(_ bytes: UnsafeRawBufferPointer) throws {
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
      let n = Glibc.write(fd, base + offset, bytes.count - offset)
      if n >= 0 {
        offset += n
        continue
      }
      if errno == EINTR { continue }
      if errno == EPIPE { throw BrokenPipe() }
      let reason = String(cString: strerror(errno))
      throw GeoPipeError("cannot write '\(path)': \(reason)", status: .ioError)
    }
  }

  /// Closes the file and renames it into place, with the permissions a new file would get.
  public func commit() throws {
    guard !finished else { return }
    finished = true
    guard let temporaryPath else { return }
    let mask = umask(0)
    umask(mask)
    fchmod(fd, 0o666 & ~mask)
    let closed = close(fd)
    fd = -1
    defer { TemporaryFiles.unregister(temporaryPath) }
    guard closed == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporaryPath)
      throw GeoPipeError("cannot write '\(path)': \(reason)", status: .ioError)
    }
    guard rename(temporaryPath, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporaryPath)
      throw GeoPipeError("cannot create '\(path)': \(reason)", status: .cannotCreate)
    }
  }

  /// Removes the temporary file.
  public func abort() {
    finished = true
    guard let temporaryPath else { return }
    if fd >= 0 { close(fd) }
    fd = -1
    unlink(temporaryPath)
    TemporaryFiles.unregister(temporaryPath)
    self.temporaryPath = nil
  }
}

/// The temporary files being written, so that an interrupted run can remove them.
public enum TemporaryFiles {
  private static let paths = Mutex<Set<String>>([])

  /// Adds a temporary file to remove on an interrupt.
  public static func register(_ path: String) { paths.withLock { _ = $0.insert(path) } }
  /// Forgets a temporary file (renamed into place or removed).
  public static func unregister(_ path: String) { paths.withLock { _ = $0.remove(path) } }

  /// Removes every temporary file still registered (called on SIGINT/SIGTERM).
  public static func removeAll() {
    paths.withLock { set in
      for path in set { unlink(path) }
      set.removeAll()
    }
  }
}

/// A byte sink that collects into memory, for tests and the Swift API.
public final class MemorySink: ByteSink {
  /// Everything written, once committed.
  public private(set) var bytes: [UInt8] = []
  /// Whether `commit()` was called.
  public private(set) var isCommitted = false

  /// Creates an empty sink.
  public init() {}

  /// Appends bytes.
  public func write(_ bytes: UnsafeRawBufferPointer) throws { self.bytes.append(contentsOf: bytes) }
  /// Marks the output final.
  public func commit() throws { isCommitted = true }
  /// Drops what was written.
  public func abort() { bytes = [] }
}
