import GeoPipeIO
import Synchronization

/// Prints reader notes and warnings to standard error, capping repeated warnings.
final class DiagnosticPrinter: Sendable {
  private let quiet: Bool
  private let printed = Mutex<Int>(0)
  private let limit = 20

  init(quiet: Bool) {
    self.quiet = quiet
  }

  func report(_ diagnostic: ReadDiagnostic) {
    guard !quiet else { return }
    printed.withLock { count in
      count += 1
      if count <= limit {
        // A stage that reports while it finishes (tiles) may do so under a progress line
        // drawn in place: the line is cleared first, so the message starts a line of its own.
        let clear = Terminal.stderrIsTerminal ? "\r\u{1B}[K" : ""
        Terminal.printError(clear + diagnostic.description)
      } else if count == limit + 1 {
        Terminal.printError("note: further warnings are not shown")
      }
    }
  }
}
