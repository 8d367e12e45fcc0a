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
/// A failed or interrupted run leaves no partial file, and no folder it created for the file.
/// The path `-` is standard output; an existing device, FIFO or socket (`/dev/stdout`,
/// `/dev/full`) is written in place.
public final class OutputFile: ByteSink {
  /// The destination path (`-` for standard output).
  public let path: String
  private var fd: Int32
  private let destination: OutputPath?
  /// The temporary file renamed into place on commit; nil for standard output, a device, and
  /// once committed or aborted.
  public private(set) var temporaryPath: String?
  private var finished = false
  /// The block a file written with direct I/O gathers its bytes in.
  private var staging: DirectStaging?

  /// Checks the destination, creates its missing folders and the temporary file (or takes
  /// standard output for `-`).
  ///
  /// With `direct`, a regular file is written with direct I/O (`O_DIRECT` on Linux), past the
  /// page cache, where the file system allows it: for large copies that nothing reads soon.
  public init(path: String, direct: Bool = false) throws {
    self.path = path
    if path == "-" {
      fd = 1
      destination = nil
      return
    }
    let destination = try OutputPath(path)
    self.destination = destination
    if destination.isSpecialFile {
      fd = open(path, O_WRONLY | O_CLOEXEC)
      guard fd >= 0 else { throw destination.cannotCreate(errno) }
      return
    }
    do {
      (temporaryPath, fd) = try destination.makeTemporaryFile()
    } catch {
      destination.discard(temporary: nil)
      throw error
    }
    if direct { staging = DirectStaging(fd: fd) }
  }

  deinit {
    if !finished { abort() }
  }

  /// Writes all bytes, retrying short writes and EINTR.
  public func write(_ bytes: UnsafeRawBufferPointer) throws {
    guard let base = bytes.baseAddress else { return }
    if fd == 1 {
      try StandardOutput.withLock { try write(base, count: bytes.count) }
    } else {
      try write(base, count: bytes.count)
    }
  }

  private func write(_ base: UnsafeRawPointer, count: Int) throws {
    let code = staging?.append(base, count: count) ?? writeAll(fd, base, count: count)
    try check(code)
  }

  private func check(_ code: Int32) throws {
    if code == 0 { return }
    if code == EPIPE { throw BrokenPipe() }
    if let destination { throw destination.cannotWrite(code) }
    throw GeoPipeError(
      "cannot write '\(path)': \(OutputPath.reason(code, folder: "."))", status: .ioError)
  }

  /// Syncs the file, gives it the mode of the file it replaces (a new file's otherwise) and
  /// renames it into place; syncs the folder.
  public func commit() throws {
    guard !finished else { return }
    finished = true
    guard let destination else { return }
    guard let temporaryPath else {
      // A device or FIFO written in place.
      let closed = close(fd) == 0 ? 0 : errno
      fd = -1
      if closed != 0 { throw destination.cannotWrite(closed) }
      return
    }
    let descriptor = fd
    fd = -1
    self.temporaryPath = nil
    // The bytes still gathered for direct I/O.
    let staged = staging?.finish() ?? 0
    staging = nil
    if staged != 0 {
      close(descriptor)
      destination.discard(temporary: temporaryPath)
      try check(staged)
    }
    do {
      try destination.commit(temporary: temporaryPath, fd: descriptor)
    } catch {
      destination.discard(temporary: nil)
      throw error
    }
  }

  /// Removes the temporary file, and the folders created for it when they are empty.
  public func abort() {
    finished = true
    staging = nil
    guard let destination else { return }
    if fd >= 0 { close(fd) }
    fd = -1
    destination.discard(temporary: temporaryPath)
    temporaryPath = nil
  }
}

/// Standard output, shared by every writer of the process, so that an interrupt can end it
/// with an error record between two writes rather than inside one.
public enum StandardOutput {
  private static let lock = Mutex<Void>(())

  /// Runs `body` while no other thread writes to standard output.
  public static func withLock<T>(_ body: () throws -> T) rethrows -> T {
    try lock.withLock { _ in try body() }
  }

  /// Runs `body` if no other thread is writing to standard output; nil otherwise.
  public static func withLockIfAvailable<T>(_ body: () -> T) -> T? {
    lock.withLockIfAvailable { _ in body() }
  }
}

/// The temporary files and folders being written, so that an interrupted run can remove them.
public enum TemporaryFiles {
  private static let paths = Mutex<(files: Set<String>, folders: Set<String>)>(([], []))

  /// Adds a temporary file to remove on an interrupt.
  public static func register(_ path: String) { paths.withLock { _ = $0.files.insert(path) } }
  /// Forgets a temporary file (renamed into place or removed).
  public static func unregister(_ path: String) { paths.withLock { _ = $0.files.remove(path) } }
  /// Adds a folder created for an output, removed on an interrupt when empty.
  public static func registerFolder(_ path: String) {
    paths.withLock { _ = $0.folders.insert(path) }
  }
  /// Forgets a created folder (its output was committed, or it was removed).
  public static func unregisterFolder(_ path: String) {
    paths.withLock { _ = $0.folders.remove(path) }
  }

  /// Removes every temporary file still registered, then the created folders left empty
  /// (called on SIGINT, SIGTERM and SIGHUP).
  public static func removeAll() {
    paths.withLock { set in
      for path in set.files { unlink(path) }
      // Deepest first, so a folder is empty when its parent's turn comes.
      for path in set.folders.sorted(by: { $0.utf8.count > $1.utf8.count }) { rmdir(path) }
      set = ([], [])
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
