#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `count` bytes from `base` to the file descriptor, retrying short writes and EINTR.
///
/// Returns 0 when everything was written, else the `errno` of the failure.
public func writeAll(_ fd: Int32, _ base: UnsafeRawPointer, count: Int) -> Int32 {
  var offset = 0
  while offset < count {
    let n = write(fd, base + offset, count - offset)
    if n >= 0 {
      offset += n
    } else if errno != EINTR {
      return errno
    }
  }
  return 0
}
