internal import CShapelib

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file shapelib reads and writes through geopipe's hooks: one buffered window over a file
/// descriptor, read with `pread` and written back with `pwrite`.
///
/// shapelib seeks before every record it reads or writes. With C streams each of those seeks
/// drops the stream's buffer (and `ftello` alone is a system call), so a million records cost
/// millions of system calls; here a seek only moves the position, and the window is read or
/// written when the position leaves it.
final class HookFile {
  private static let capacity = 1 << 20

  private let descriptor: Int32
  private let buffer: UnsafeMutableRawPointer
  /// The file offset of the window's first byte.
  private var start: Int64 = 0
  /// The valid bytes in the window (read from the file or written since).
  private var length = 0
  /// The window's bytes written since it was last flushed, as a range of the window.
  private var dirtyLow = Int.max
  private var dirtyHigh = 0
  /// Where the next read or write happens.
  private(set) var position: Int64 = 0
  /// Set when a read or a write of the file failed.
  private(set) var failed = false

  /// Opens `path` with a C `fopen` mode (`rb`, `r+b`, `wb+`, …).
  init?(path: UnsafePointer<CChar>, mode: String) {
    let flags: Int32 =
      mode.contains("w")
      ? O_RDWR | O_CREAT | O_TRUNC : (mode.contains("+") ? O_RDWR : O_RDONLY)
    let descriptor = open(path, flags | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return nil }
    self.descriptor = descriptor
    buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.capacity, alignment: 16)
  }

  deinit {
    buffer.deallocate()
  }

  /// Reads up to `count` bytes at the position into `destination`; returns how many were read.
  func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
    var done = 0
    while done < count {
      let offset = position - start
      if offset >= 0 && offset < Int64(length) {
        let available = min(count - done, length - Int(offset))
        (destination + done).copyMemory(from: buffer + Int(offset), byteCount: available)
        done += available
        position += Int64(available)
        continue
      }
      guard flush() else { return done }
      if count - done >= Self.capacity {
        // Large reads go straight to the caller.
        let n = pread(descriptor, destination + done, count - done, off_t(position))
        guard n > 0 else {
          if n < 0 { failed = true }
          return done
        }
        done += n
        position += Int64(n)
        continue
      }
      start = position
      let n = pread(descriptor, buffer, Self.capacity, off_t(position))
      guard n > 0 else {
        length = 0
        if n < 0 { failed = true }
        return done
      }
      length = n
    }
    return done
  }

  /// Writes `count` bytes from `source` at the position; returns how many were written.
  func write(from source: UnsafeRawPointer, count: Int) -> Int {
    let offset = position - start
    if offset < 0 || offset > Int64(length) || offset + Int64(count) > Int64(Self.capacity) {
      guard flush() else { return 0 }
      if count >= Self.capacity {
        var done = 0
        while done < count {
          let n = pwrite(descriptor, source + done, count - done, off_t(position))
          guard n > 0 else {
            failed = true
            return done
          }
          done += n
          position += Int64(n)
        }
        return done
      }
      start = position
      length = 0
    }
    let at = Int(position - start)
    (buffer + at).copyMemory(from: source, byteCount: count)
    length = max(length, at + count)
    dirtyLow = min(dirtyLow, at)
    dirtyHigh = max(dirtyHigh, at + count)
    position += Int64(count)
    return count
  }

  /// Moves the position as `fseek` does; false when it would be negative.
  func seek(_ offset: Int64, whence: Int32) -> Bool {
    let base: Int64
    switch whence {
    case SEEK_SET: base = 0
    case SEEK_CUR: base = position
    case SEEK_END: base = size
    default: return false
    }
    guard base + offset >= 0 else { return false }
    position = base + offset
    return true
  }

  /// The file's size, counting bytes written but not yet flushed.
  private var size: Int64 {
    var status = stat()
    let onDisk = fstat(descriptor, &status) == 0 ? Int64(status.st_size) : 0
    return dirtyHigh > dirtyLow ? max(onDisk, start + Int64(dirtyHigh)) : onDisk
  }

  /// Writes the window's unwritten bytes to the file.
  @discardableResult
  func flush() -> Bool {
    guard dirtyHigh > dirtyLow else { return !failed }
    var done = dirtyLow
    while done < dirtyHigh {
      let n = pwrite(descriptor, buffer + done, dirtyHigh - done, off_t(start + Int64(done)))
      guard n > 0 else {
        failed = true
        break
      }
      done += n
    }
    dirtyLow = .max
    dirtyHigh = 0
    return !failed
  }

  /// Flushes and closes the file; false when anything written was lost.
  func finish() -> Bool {
    let flushed = flush()
    let closed = close(descriptor) == 0
    return flushed && closed
  }

  // MARK: The hooks

  /// The handle shapelib holds for a file.
  func handle() -> SAFile {
    Unmanaged.passRetained(self).toOpaque().assumingMemoryBound(to: Int32.self)
  }

  static func from(_ file: SAFile?) -> HookFile? {
    file.map { Unmanaged<HookFile>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
  }

  /// Sets the file functions of `hooks` to these files'; `open` opens a file by the name
  /// shapelib gives.
  static func install(
    in hooks: inout SAHooks,
    open: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> SAFile?
  ) {
    hooks.FOpen = open
    hooks.FRead = { pointer, size, count, file in
      guard let pointer, let file = HookFile.from(file), size > 0 else { return 0 }
      let (total, overflow) = Int(size).multipliedReportingOverflow(by: Int(count))
      guard !overflow else { return 0 }
      return SAOffset(file.read(into: pointer, count: total) / Int(size))
    }
    hooks.FWrite = { pointer, size, count, file in
      guard let pointer, let file = HookFile.from(file), size > 0 else { return 0 }
      let (total, overflow) = Int(size).multipliedReportingOverflow(by: Int(count))
      guard !overflow else { return 0 }
      return SAOffset(file.write(from: pointer, count: total) / Int(size))
    }
    hooks.FSeek = { file, offset, whence in
      guard let file = HookFile.from(file) else { return SAOffset(bitPattern: -1) }
      // SAOffset is unsigned: a backwards SEEK_CUR arrives as a large value.
      let signed = Int64(bitPattern: UInt64(offset))
      return file.seek(signed, whence: whence) ? 0 : SAOffset(bitPattern: -1)
    }
    hooks.FTell = { file in
      guard let file = HookFile.from(file) else { return SAOffset(bitPattern: -1) }
      return SAOffset(file.position)
    }
    hooks.FFlush = { file in
      guard let file = HookFile.from(file) else { return -1 }
      return file.flush() ? 0 : -1
    }
    hooks.FClose = { file in
      guard let file else { return -1 }
      let unmanaged = Unmanaged<HookFile>.fromOpaque(UnsafeRawPointer(file))
      let closed = unmanaged.takeUnretainedValue().finish()
      unmanaged.release()
      return closed ? 0 : -1
    }
  }
}
