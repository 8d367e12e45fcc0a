import GeoPipeCore
import GeoPipeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes of a FlatGeobuf file read front to back through a buffer, from any byte source (a
/// pipe, a gzip stream).
final class SequentialInput {
  private let source: ByteSource
  private var buffer: UnsafeMutableRawPointer
  private var capacity: Int
  /// The bytes in the buffer are `start..<end`.
  private var start = 0
  private var end = 0
  private var atEnd = false
  /// Bytes taken from the source.
  private(set) var bytesRead = 0
  /// The file offset of the buffer's `start`.
  private(set) var offset = 0

  init(source: ByteSource) {
    self.source = source
    capacity = 1 << 20
    buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
  }

  deinit {
    buffer.deallocate()
  }

  /// Makes `count` bytes available from the current offset; returns how many there are (fewer
  /// only at the end of the input).
  ///
  /// The buffer grows with the bytes that arrive, never to a count the input does not hold.
  func fill(_ count: Int) throws -> Int {
    if end - start >= count || atEnd { return min(count, end - start) }
    if start > 0 {
      buffer.copyMemory(from: buffer + start, byteCount: end - start)
      end -= start
      start = 0
    }
    while end < count {
      if end == capacity { grow(to: min(count, 2 * capacity)) }
      let room = UnsafeMutableRawBufferPointer(start: buffer + end, count: capacity - end)
      let n = try source.read(into: room)
      if n == 0 {
        atEnd = true
        break
      }
      end += n
      bytesRead += n
    }
    return min(count, end)
  }

  private func grow(to size: Int) {
    let grown = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    grown.copyMemory(from: buffer, byteCount: end)
    buffer.deallocate()
    buffer = grown
    capacity = size
  }

  /// The `count` bytes from the current offset, which `fill` has made available.
  func bytes(_ count: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: buffer + start, count: count)
  }

  /// Moves past `count` available bytes.
  func consume(_ count: Int) {
    start += count
    offset += count
  }

  /// Reads and drops `count` bytes; returns how many there were.
  func skip(_ count: Int) throws -> Int {
    var left = count
    while left > 0 {
      let n = try fill(min(left, capacity))
      if n == 0 { break }
      consume(n)
      left -= n
    }
    return count - left
  }
}

/// A file read at given offsets (`pread`), counting the bytes it reads.
final class PositionalInput {
  private let fd: Int32
  private let name: String
  /// The file's size.
  let size: Int
  /// Bytes read so far.
  private(set) var bytesRead = 0

  init(path: String, name: String) throws {
    fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw GeoPipeError(
        "cannot open '\(name)': \(String(cString: strerror(errno)))", status: .noInput)
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      close(fd)
      throw GeoPipeError(
        "cannot read '\(name)': \(String(cString: strerror(errno)))", status: .ioError)
    }
    size = Int(info.st_size)
    self.name = name
  }

  deinit {
    close(fd)
  }

  /// Reads up to `count` bytes at `offset` (fewer only at the end of the file).
  func read(_ count: Int, at offset: Int) throws -> [UInt8] {
    let wanted = max(0, min(count, size - offset))
    var bytes = [UInt8](repeating: 0, count: wanted)
    var done = 0
    try bytes.withUnsafeMutableBytes { raw in
      guard let base = raw.baseAddress else { return }
      while done < wanted {
        let n = pread(fd, base + done, wanted - done, off_t(offset + done))
        if n < 0 {
          if errno == EINTR { continue }
          throw GeoPipeError(
            "cannot read '\(name)': \(String(cString: strerror(errno)))", status: .ioError)
        }
        if n == 0 { break }
        done += n
      }
    }
    bytesRead += done
    return done == wanted ? bytes : Array(bytes[..<done])
  }
}
