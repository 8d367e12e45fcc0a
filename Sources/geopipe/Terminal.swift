import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit
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

  /// The width of the terminal on standard error, when it is one and says.
  static var stderrColumns: Int? {
    var size = winsize()
    guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// Writes a line to standard error.
  static func printError(_ text: String) {
    printErrorRaw(text.hasSuffix("\n") ? text : text + "\n")
  }
}

/// Prints "features, bytes, rate" and where a long stage is on standard error while a command
/// runs.
///
/// Of a chain of piped commands sharing a terminal, only the last one (whose standard output
/// is not a pipe) draws one line rewritten in place; the others print a labelled line of their
/// own when their stage reports something new (a zoom done, a run spilled), at most one a
/// second, clearing the last command's line first, so that no two processes overwrite one
/// line. With `--progress` and standard error not a terminal (a log), a line every few
/// seconds and a last one at the end.
final class ProgressLine: Sendable {
  /// How the progress is shown.
  enum Mode: Sendable {
    /// One line rewritten in place (the last command of a chain, on a terminal).
    case inPlace
    /// A labelled line for each new stage report (a command writing to a pipe, on a terminal).
    case reports
    /// A line every few seconds and one at the end (`--progress`).
    case log
  }

  private let counters: RunCounters
  private let label: String
  private let total: Int?
  private let mode: Mode
  private let clearsLine: Bool
  private let started = Date()
  private let stopped = Atomic<Bool>(false)
  private let done = Mutex<Bool>(false)

  /// How progress is shown for a command, or nil for not at all: nothing with `--quiet`, or
  /// when standard error is not a terminal and `--progress` was not given.
  static func mode(requested: Bool, quiet: Bool) -> Mode? {
    guard !quiet else { return nil }
    if Terminal.stderrIsTerminal && !Terminal.stdoutIsPipe { return .inPlace }
    if requested { return .log }
    return Terminal.stderrIsTerminal ? .reports : nil
  }

  /// `total` is the input's size in bytes, when known, for a percentage.
  init(counters: RunCounters, label: String, total: Int?, mode: Mode) {
    self.counters = counters
    self.label = label
    self.total = total
    self.mode = mode
    clearsLine = Terminal.stderrIsTerminal
  }

  func start() {
    let interval = mode == .log ? 5 : 0.25
    Thread.detachNewThread { [self] in
      var shown = 0
      var shownAt = Date.distantPast
      while !stopped.load(ordering: .relaxed) {
        Thread.sleep(forTimeInterval: interval)
        if stopped.load(ordering: .relaxed) { break }
        done.withLock { finished in
          guard !finished else { return }
          switch mode {
          case .inPlace: Terminal.printErrorRaw("\r\u{1B}[K" + fitted(line()))
          case .log: Terminal.printErrorRaw(prefix + line() + "\n")
          case .reports:
            let detail = counters.detail
            guard detail.version != shown, Date().timeIntervalSince(shownAt) >= 1 else { return }
            shown = detail.version
            shownAt = Date()
            Terminal.printErrorRaw(prefix + "\(label): \(detail.text)\n")
          }
        }
      }
    }
  }

  func stop() {
    stopped.store(true, ordering: .relaxed)
    done.withLock { finished in
      if !finished {
        switch mode {
        case .inPlace: Terminal.printErrorRaw("\r\u{1B}[K")
        case .log: Terminal.printErrorRaw(prefix + line() + "\n")
        case .reports: break
        }
      }
      finished = true
    }
  }

  /// The line cut to the terminal's width: a line that wrapped could not be rewritten in
  /// place.
  private func fitted(_ text: String) -> String {
    guard let columns = Terminal.stderrColumns, text.count >= columns else { return text }
    return String(text.prefix(max(columns - 1, 0)))
  }

  /// Clears a line another command of the chain may be drawing, on a terminal.
  private var prefix: String { clearsLine ? "\r\u{1B}[K" : "" }

  /// `label: [where the stage is; ]features, MB, MB/s[ (percent)]`: the stage's own report
  /// first, so that a line cut to the terminal's width keeps it.
  private func line() -> String {
    let features = counters.features.load(ordering: .relaxed)
    let bytes = Double(counters.bytes.load(ordering: .relaxed))
    let seconds = max(Date().timeIntervalSince(started), 0.001)
    var text = label + ": "
    let detail = counters.detail.text
    if !detail.isEmpty { text += detail + "; " }
    text += String(
      format: "%@ features, %.1f MB, %.1f MB/s", ProgressLine.grouped(features), bytes / 1e6,
      bytes / 1e6 / seconds)
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
