import GeoPipeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The line a geopipe stage writes at the end of its output when it fails, so that the next
/// geopipe stage in a shell pipe fails too instead of committing a truncated file.
///
/// It is deliberately not JSON (`!geopipe-error {"status":65,"message":"..."}`), so other
/// GeoJSON tools reject it as malformed rather than silently accept a truncated stream.
public enum ErrorRecord {
  /// The bytes that start a record.
  public static let prefix: [UInt8] = Array("!geopipe-error ".utf8)

  /// The record for an error, ending with a newline.
  public static func encode(_ error: GeoPipeError) -> [UInt8] {
    var writer = JSONTextWriter()
    writer.bytes.append(contentsOf: prefix)
    writer.bytes.append(contentsOf: "{\"status\":".utf8)
    writer.writeInteger(Int64(error.status.rawValue))
    writer.bytes.append(contentsOf: ",\"message\":".utf8)
    writer.writeString(error.description)
    writer.bytes.append(contentsOf: "}\n".utf8)
    return writer.bytes
  }

  /// The error a reader raises on meeting a record.
  static func upstreamError(status: Int64?, at location: SourceLocation) -> GeoPipeError {
    let exit = status.flatMap { ExitStatus(rawValue: Int32(truncatingIfNeeded: $0)) } ?? .dataError
    // The stage that failed has already printed its message; say only where the input ended.
    return GeoPipeError(
      "\(location.file): the input ends with an error from an earlier geopipe stage "
        + "(exit status \(exit.rawValue))", status: exit)
  }
}

/// The error record for a command stopped by a signal: an interrupt (SIGINT, SIGTERM, SIGHUP)
/// or a crash (SIGSEGV, SIGBUS, SIGABRT …), so that a geopipe command reading its output fails
/// instead of committing what arrived before the signal.
///
/// SIGKILL cannot be caught: a pipeline that must notice it checks every command's status
/// (`set -o pipefail`).
public enum SignalRecord {
  private static let armed = Atomic<Bool>(false)

  /// Says that standard output carries features that another command may read; until then a
  /// signal writes no record.
  public static func arm() { armed.store(true, ordering: .relaxed) }

  /// Whether a signal should write a record (safe to call in a signal handler).
  public static var isArmed: Bool { armed.load(ordering: .relaxed) }

  /// The record for a command stopped by `signal` (`SIGINT`), led by a line break so that it
  /// starts a line even if the signal came in the middle of one.
  public static func record(for signal: String, crashed: Bool) -> [UInt8] {
    let what = crashed ? "geopipe crashed (\(signal))" : "interrupted by \(signal)"
    return [0x0A] + ErrorRecord.encode(GeoPipeError(what, status: .ioError))
  }

  /// Ends standard output with the record for an interrupt, if armed, then runs `finish`
  /// (which exits) while no other thread can write after the record.
  ///
  /// A write in progress on another thread is waited for, up to a second.
  public static func endOutput(
    interruptedBy signal: String, finish: @escaping () -> Never
  ) -> Never {
    let bytes = isArmed ? record(for: signal, crashed: false) : []
    let end = { () -> Never in
      bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count, let base = raw.baseAddress {
          let n = Glibc.write(1, base + offset, raw.count - offset)
          if n < 0 && errno != EINTR { break }
          offset += max(n, 0)
        }
      }
      finish()
    }
    for _ in 0..<200 {
      _ = StandardOutput.withLockIfAvailable(end)
      usleep(5_000)
    }
    end()
  }
}
