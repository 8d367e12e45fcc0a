import GeoPipeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an output file goes, checked and prepared before any work is done: not an existing
/// folder, its missing parent folders created (`mkdir -p`), and temporary files that a killed
/// run left beside it removed.
///
/// Every writer of files (features, maps, tilesets, gazetteers) goes through this type, so
/// they fail alike: 73 when the output cannot be created, 74 when writing it fails. Temporary
/// files are named `.NAME.geopipe-PID-XXXXXX` beside the output; one whose process is gone is
/// removed by the next run writing the same output. `commit(temporary:fd:)` makes the result
/// durable (the file and its folder are synced) and keeps the mode of a file it replaces.
public final class OutputPath: @unchecked Sendable {
  /// The destination, as given (named in messages).
  public let path: String
  /// The file replaced: `path`, or the file it links to when it is a symbolic link to an
  /// existing file (so the link stays a link).
  private let target: String
  /// The folder the destination is in.
  public let folder: String
  /// The destination's file name.
  public let name: String
  /// The permissions of the file being replaced, if there is one.
  let existingMode: mode_t?
  /// Whether the destination is a device, FIFO or socket, written in place (`/dev/full`).
  public let isSpecialFile: Bool
  /// The folders this run created, outermost first; removed again if the run fails and they
  /// are empty.
  private var createdFolders: [String] = []

  /// Checks `path` and creates its missing parent folders.
  public init(_ path: String) throws {
    self.path = path
    let target = Self.resolvingLink(path)
    self.target = target
    let slash = target.lastIndex(of: "/")
    folder = Self.parent(of: target)
    name = slash.map { String(target[target.index(after: $0)...]) } ?? target
    guard !name.isEmpty, name != ".", name != ".." else {
      throw GeoPipeError(
        "cannot create '\(path)': it names a folder, not a file", status: .cannotCreate)
    }
    var info = stat()
    if stat(path, &info) == 0 {
      let type = info.st_mode & S_IFMT
      if type == S_IFDIR {
        throw GeoPipeError(
          "cannot create '\(path)': it is a folder; give a file name", status: .cannotCreate)
      }
      isSpecialFile = type != S_IFREG
      existingMode = type == S_IFREG ? info.st_mode & 0o7777 : nil
    } else {
      isSpecialFile = false
      existingMode = nil
    }
    if !isSpecialFile {
      try createFolders()
      removeStaleTemporaryFiles()
    }
  }

  // MARK: Temporary files

  /// Creates a uniquely named temporary file beside the destination, registered for removal on
  /// an interrupt; returns its path and an open descriptor.
  public func makeTemporaryFile() throws -> (path: String, fd: Int32) {
    var template = Array("\(folder)/.\(name).geopipe-\(getpid())-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    guard fd >= 0 else { throw cannotCreate(errno) }
    let temporary = String(
      decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    TemporaryFiles.register(temporary)
    return (temporary, fd)
  }

  /// Makes a finished temporary file the destination: syncs it, gives it the mode of the file
  /// it replaces (or a new file's), closes `fd`, renames it into place and syncs the folder.
  ///
  /// On failure the temporary file is removed. Pass `fd` -1 for a file already closed (an
  /// SQLite database): it is opened again to be synced.
  public func commit(temporary: String, fd given: Int32) throws {
    defer { TemporaryFiles.unregister(temporary) }
    let fd = given >= 0 ? given : open(temporary, O_RDONLY)
    guard fd >= 0 else {
      let code = errno
      unlink(temporary)
      throw cannotWrite(code)
    }
    let mask = umask(0)
    umask(mask)
    fchmod(fd, existingMode ?? (0o666 & ~mask))
    let synced = fsync(fd) == 0 ? 0 : errno
    let closed = close(fd) == 0 ? 0 : errno
    if synced != 0 || closed != 0 {
      unlink(temporary)
      throw cannotWrite(synced != 0 ? synced : closed)
    }
    guard rename(temporary, target) == 0 else {
      let code = errno
      unlink(temporary)
      throw cannotCreate(code)
    }
    try syncFolders()
    for created in createdFolders { TemporaryFiles.unregisterFolder(created) }
    createdFolders = []
  }

  /// Removes a temporary file and the folders this run created, when they are empty.
  public func discard(temporary: String?) {
    if let temporary {
      unlink(temporary)
      TemporaryFiles.unregister(temporary)
    }
    for created in createdFolders.reversed() {
      rmdir(created)
      TemporaryFiles.unregisterFolder(created)
    }
    createdFolders = []
  }

  // MARK: Errors

  /// A failure to create the output (exit 73), with a reason a user can act on.
  public func cannotCreate(_ code: Int32) -> GeoPipeError {
    GeoPipeError(
      "cannot create '\(path)': \(Self.reason(code, folder: folder))", status: .cannotCreate)
  }

  /// A failure while writing the output (exit 74).
  public func cannotWrite(_ code: Int32) -> GeoPipeError {
    GeoPipeError("cannot write '\(path)': \(Self.reason(code, folder: folder))", status: .ioError)
  }

  /// `strerror` in lower case, with a hint for the common cases.
  static func reason(_ code: Int32, folder: String) -> String {
    switch code {
    case EACCES, EPERM: "permission denied (cannot write in the folder '\(folder)')"
    case ENOSPC: "no space left on the device"
    case EDQUOT: "disk quota exceeded"
    case EROFS: "the file system is read-only"
    case EFBIG: "the file is too large for this system's limits"
    default: String(cString: strerror(code)).lowercasedFirst
    }
  }

  // MARK: Folders

  /// `mkdir -p` of the destination's folder, remembering what was created.
  private func createFolders() throws {
    var missing: [String] = []
    var current = folder
    var info = stat()
    while stat(current, &info) != 0 {
      guard errno == ENOENT || errno == ENOTDIR else { throw cannotCreate(errno) }
      missing.append(current)
      current = Self.parent(of: current)
    }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      throw GeoPipeError(
        "cannot create '\(path)': '\(current)' is not a folder", status: .cannotCreate)
    }
    for created in missing.reversed() {
      guard mkdir(created, 0o777) == 0 || errno == EEXIST else {
        let reason = Self.reason(errno, folder: Self.parent(of: created))
        discard(temporary: nil)
        throw GeoPipeError(
          "cannot create the folder '\(created)' for '\(path)': \(reason)", status: .cannotCreate)
      }
      createdFolders.append(created)
      TemporaryFiles.registerFolder(created)
    }
  }

  /// The file a symbolic link leads to, when it exists; else `path` itself.
  private static func resolvingLink(_ path: String) -> String {
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK,
      let resolved = realpath(path, nil)
    else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The folder holding `path` (`.` for a bare name).
  public static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// Syncs the destination's folder (so the rename is durable) and the folders created for it.
  private func syncFolders() throws {
    var folders = [folder]
    if let outermost = createdFolders.first {
      folders.append(Self.parent(of: outermost))
      folders += createdFolders.dropLast()
    }
    for folder in folders {
      let fd = open(folder, O_RDONLY | O_DIRECTORY)
      guard fd >= 0 else { continue }
      // Some file systems cannot sync a folder (EINVAL); the data itself is synced.
      let failed = fsync(fd) != 0 && errno != EINVAL ? errno : 0
      close(fd)
      if failed != 0 { throw cannotWrite(failed) }
    }
  }

  /// Removes `.NAME.geopipe-PID-…` files beside the destination whose process is gone.
  private func removeStaleTemporaryFiles() {
    guard let directory = opendir(folder) else { return }
    defer { closedir(directory) }
    let prefix = Array(".\(name).geopipe-".utf8)
    let me = getpid()
    while let entry = readdir(directory) {
      let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        Array(raw.prefix { $0 != 0 })
      }
      guard entryName.count > prefix.count, entryName.starts(with: prefix) else { continue }
      let digits = entryName[prefix.count...].prefix { $0 >= 0x30 && $0 <= 0x39 }
      guard let pid = pid_t(String(decoding: digits, as: UTF8.self)), pid > 0, pid != me else {
        continue
      }
      if kill(pid, 0) != 0 && errno == ESRCH {
        unlink("\(folder)/\(String(decoding: entryName, as: UTF8.self))")
      }
    }
  }
}

extension String {
  /// The string with its first letter in lower case (`strerror`'s "No such file" → "no such").
  fileprivate var lowercasedFirst: String {
    guard let first else { return self }
    return first.lowercased() + dropFirst()
  }
}
