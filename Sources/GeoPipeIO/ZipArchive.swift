internal import CZlib
import GeoPipeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A zip archive read from a file: its central directory, and members extracted to files.
///
/// Stored and deflated members are read (APPNOTE.TXT §4.3, §4.4), with their sizes and CRC-32
/// checked; ZIP64 archives, encryption and multi-disk archives are refused.
public final class ZipArchive {
  /// One member of the archive, as its central directory describes it.
  public struct Entry: Sendable {
    /// The member's path in the archive (`data/roads.shp`).
    public let name: String
    /// Its size once extracted.
    public let size: Int
    let compressedSize: Int
    let method: UInt16
    let crc: UInt32
    let flags: UInt16
    let localHeaderOffset: Int
  }

  /// The archive's name, for messages.
  public let name: String
  /// The members, in central directory order (folders left out).
  public private(set) var entries: [Entry] = []
  private let fd: Int32
  private let fileSize: Int

  /// Opens `path` and reads its central directory; `name` is used in messages.
  public init(path: String, name: String) throws {
    self.name = name
    fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw GeoPipeError(
        "cannot open '\(name)': \(String(cString: strerror(errno)))", status: .noInput)
    }
    var info = stat()
    fileSize = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
    do {
      entries = try readDirectory()
    } catch {
      close(fd)
      throw error
    }
  }

  deinit {
    close(fd)
  }

  /// Whether a file's first bytes are a zip archive's (a local file header, or the end record
  /// of an empty archive).
  public static func isZip(_ head: [UInt8]) -> Bool {
    head.count >= 4 && head[0] == 0x50 && head[1] == 0x4B
      && ((head[2] == 0x03 && head[3] == 0x04) || (head[2] == 0x05 && head[3] == 0x06))
  }

  /// Writes the member `entry` to a new file at `path`, checking its size and CRC-32.
  public func extract(_ entry: Entry, to path: String) throws {
    let out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard out >= 0 else {
      throw GeoPipeError(
        "cannot extract '\(entry.name)' from '\(name)' to '\(path)': "
          + String(cString: strerror(errno)), status: .ioError)
    }
    defer { close(out) }
    let header = try bytes(at: entry.localHeaderOffset, count: 30, for: entry)
    guard le32(header, 0) == 0x0403_4B50 else {
      throw bad("the local header of '\(entry.name)' is missing", at: entry.localHeaderOffset)
    }
    let dataOffset =
      entry.localHeaderOffset + 30 + Int(le16(header, 26)) + Int(le16(header, 28))
    guard dataOffset <= fileSize, entry.compressedSize <= fileSize - dataOffset else {
      throw bad("'\(entry.name)' runs past the end of the archive", at: entry.localHeaderOffset)
    }
    let stored = FileRangeSource(fd: fd, offset: dataOffset, count: entry.compressedSize)
    let source: ByteSource = entry.method == 8 ? try GzipByteSource(stored, raw: true) : stored
    let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
    defer { block.deallocate() }
    var crc = crc32(0, nil, 0)
    var written = 0
    while true {
      let n: Int
      do {
        n = try source.read(into: block)
      } catch let error as GeoPipeError {
        throw bad("'\(entry.name)': \(error.message)", at: entry.localHeaderOffset)
      }
      if n == 0 { break }
      written += n
      guard written <= entry.size else { break }
      if let base = block.baseAddress {
        crc = crc32(crc, base.assumingMemoryBound(to: UInt8.self), UInt32(n))
        let code = writeAll(out, UnsafeRawPointer(base), count: n)
        if code != 0 {
          throw GeoPipeError(
            "cannot extract '\(entry.name)' from '\(name)': "
              + String(cString: strerror(code)), status: .ioError)
        }
      }
    }
    guard written == entry.size else {
      throw bad(
        "'\(entry.name)' holds \(written < entry.size ? "fewer" : "more") bytes than the "
          + "\(entry.size) its directory entry says", at: entry.localHeaderOffset)
    }
    guard UInt32(crc) == entry.crc else {
      throw bad(
        "'\(entry.name)' is corrupt (its CRC-32 does not match)", at: entry.localHeaderOffset)
    }
  }

  /// Finds the end of central directory record (APPNOTE §4.3.16) and reads the entries.
  private func readDirectory() throws -> [Entry] {
    // The record is 22 bytes, followed by a comment of up to 65535 bytes.
    let tailSize = min(fileSize, 22 + 65535)
    guard tailSize >= 22 else {
      throw bad("the file is too short to be a zip archive", at: 0)
    }
    let tail = try bytes(at: fileSize - tailSize, count: tailSize, for: nil)
    var k = tailSize - 22
    while k >= 0 && le32(tail, k) != 0x0605_4B50 { k -= 1 }
    guard k >= 0 else {
      throw bad("no end of central directory record: the archive is truncated or not a zip", at: 0)
    }
    let count = Int(le16(tail, k + 10))
    let directorySize = Int(le32(tail, k + 12))
    let directoryOffset = Int(le32(tail, k + 16))
    if le16(tail, k + 4) != 0 || le16(tail, k + 6) != 0 {
      throw bad("multi-disk zip archives are not read", at: fileSize - tailSize + k)
    }
    if count == 0xFFFF || directoryOffset == 0xFFFF_FFFF || directorySize == 0xFFFF_FFFF {
      throw bad("ZIP64 archives are not read: unzip it first", at: fileSize - tailSize + k)
    }
    guard directoryOffset <= fileSize, directorySize <= fileSize - directoryOffset else {
      throw bad("the central directory lies outside the file", at: fileSize - tailSize + k)
    }
    let directory = try bytes(at: directoryOffset, count: directorySize, for: nil)
    var entries: [Entry] = []
    var p = 0
    for _ in 0..<count {
      guard p + 46 <= directory.count, le32(directory, p) == 0x0201_4B50 else {
        throw bad("the central directory is corrupt", at: directoryOffset + p)
      }
      let nameLength = Int(le16(directory, p + 28))
      let extraLength = Int(le16(directory, p + 30))
      let commentLength = Int(le16(directory, p + 32))
      guard p + 46 + nameLength <= directory.count else {
        throw bad("the central directory is corrupt", at: directoryOffset + p)
      }
      let name = String(decoding: directory[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self)
      let entry = Entry(
        name: name, size: Int(le32(directory, p + 24)),
        compressedSize: Int(le32(directory, p + 20)), method: le16(directory, p + 10),
        crc: le32(directory, p + 16), flags: le16(directory, p + 8),
        localHeaderOffset: Int(le32(directory, p + 42)))
      p += 46 + nameLength + extraLength + commentLength
      if name.hasSuffix("/") { continue }
      if entry.size == 0xFFFF_FFFF || entry.compressedSize == 0xFFFF_FFFF
        || entry.localHeaderOffset == 0xFFFF_FFFF
      {
        throw bad("ZIP64 members are not read ('\(name)'): unzip it first", at: directoryOffset)
      }
      if entry.flags & 1 != 0 {
        throw bad("'\(name)' is encrypted", at: directoryOffset)
      }
      if entry.method != 0 && entry.method != 8 {
        throw bad(
          "'\(name)' is compressed with method \(entry.method); only stored and deflated "
            + "members are read", at: directoryOffset)
      }
      entries.append(entry)
    }
    return entries
  }

  /// `count` bytes at `offset`, or an error when the file ends first.
  private func bytes(at offset: Int, count: Int, for entry: Entry?) throws -> [UInt8] {
    guard offset >= 0, count >= 0, offset <= fileSize, count <= fileSize - offset else {
      throw bad("the archive is truncated", at: offset)
    }
    var result = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let n = result.withUnsafeMutableBytes { buffer in
        pread(fd, buffer.baseAddress.map { $0 + done }, count - done, off_t(offset + done))
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        throw GeoPipeError(
          "cannot read '\(name)': "
            + (n < 0 ? String(cString: strerror(errno)) : "the file ends early"), status: .ioError)
      }
      done += n
    }
    return result
  }

  private func bad(_ message: String, at offset: Int) -> GeoPipeError {
    GeoPipeError.data("\(name): \(message) (byte \(offset))", at: nil)
  }
}

/// A range of a file's bytes, read with `pread`.
private final class FileRangeSource: ByteSource {
  private let fd: Int32
  private var offset: Int
  private var remaining: Int

  init(fd: Int32, offset: Int, count: Int) {
    self.fd = fd
    self.offset = offset
    remaining = count
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard remaining > 0 else { return 0 }
    while true {
      let n = pread(fd, buffer.baseAddress, min(buffer.count, remaining), off_t(offset))
      if n < 0 && errno == EINTR { continue }
      guard n >= 0 else {
        throw GeoPipeError(
          "cannot read a zip member: \(String(cString: strerror(errno)))", status: .ioError)
      }
      offset += n
      remaining -= n
      return n
    }
  }
}

private func le16(_ bytes: [UInt8], _ k: Int) -> UInt16 {
  UInt16(bytes[k]) | UInt16(bytes[k + 1]) << 8
}

private func le32(_ bytes: [UInt8], _ k: Int) -> UInt32 {
  UInt32(bytes[k]) | UInt32(bytes[k + 1]) << 8 | UInt32(bytes[k + 2]) << 16
    | UInt32(bytes[k + 3]) << 24
}
