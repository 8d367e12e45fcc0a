import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeStages
import Synchronization

/// Standard error, progress and terminal checks for the command-line front end.
enum Terminal {
  static var stderrIsTerminal: Bool { isatty(2) == 1 }
  static var stdinIsTerminal: Bool { isatty(0) == 1 }
  static var stdoutIsTerminal: Bool { isatty(1) == 1 }

  /// Whether standard output is a pipe or socket (another process reads it).
  static var stdoutIsPipe: Bool {
    var info = stat()
    guard fstat(1, &info) == 0 else { return false }
    let type = info.st_mode & S_IFMT
    return type == S_IFIFO || type == S_IFSOCK
  }

  /// Writes a line to standard error.
  static func printError(_ text: String) {
    printErrorRaw(text.hasSuffix("\n") ? text : text + "\n")
  }
}

/// Prints "features, bytes, rate" on standard error while a command runs: one line rewritten
/// in place on a terminal, or a line every few seconds and a last one at the end otherwise
/// (`--progress` into a log).
final class ProgressLine: Sendable {
  private let counters: RunCounters
  private let label: String
  private let total: Int?
  private let inPlace: Bool
  private let started = Date()
  private let stopped = Atomic<Bool>(false)
  private let done = Mutex<Bool>(false)

  /// `total` is the input's size in bytes, when known, for a percentage.
  init(counters: RunCounters, label: String, total: Int?) {
    self.counters = counters
    self.label = label
    self.total = total
    inPlace = Terminal.stderrIsTerminal
  }

  func start() {
    let interval = inPlace ? 0.25 : 5
    Thread.detachNewThread { [self] in
      while !stopped.load(ordering: .relaxed) {
        Thread.sleep(forTimeInterval: interval)
        if stopped.load(ordering: .relaxed) { break }
        done.withLock { finished in
          if !finished { Terminal.printErrorRaw(inPlace ? "\r\u{1B}[K" + line() : line() + "\n") }
        }
      }
    }
  }

  func stop() {
    stopped.store(true, ordering: .relaxed)
    done.withLock { finished in
      if !finished { Terminal.printErrorRaw(inPlace ? "\r\u{1B}[K" : line() + "\n") }
      finished = true
    }
  }

  private func line() -> String {
    let features = counters.features.load(ordering: .relaxed)
    let bytes = Double(counters.bytes.load(ordering: .relaxed))
    let seconds = max(Date().timeIntervalSince(started), 0.001)
    var text = String(
      format: "%@: %@ features, %.1f MB, %.1f MB/s", label, ProgressLine.grouped(features),
      bytes / 1e6, bytes / 1e6 / seconds)
    if let total, total > 0 {
      text += String(format: " (%.0f%%)", min(100, bytes * 100 / Double(total)))
    }
    return text
  }

  /// The size of a plain (not compressed) input file, for the percentage.
  static func size(of path: String) -> Int? {
    guard path != "-", !path.lowercased().hasSuffix(".gz") else { return nil }
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int(info.st_size)
  }

  static func grouped(_ n: Int) -> String {
    let digits = String(n)
    var out = ""
    for (k, c) in digits.enumerated() {
      if k > 0 && (digits.count - k) % 3 == 0 { out.append(",") }
      out.append(c)
    }
    return out
  }
}

extension Terminal {
  /// Writes text to standard error as it is (the progress line rewrites itself with `\r`).
  static func printErrorRaw(_ text: String) {
    _ = text.utf8CString.withUnsafeBufferPointer { buffer in
      write(2, buffer.baseAddress, buffer.count - 1)
    }
  }
}
