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
        Terminal.printError(diagnostic.description)
      } else if count == limit + 1 {
        Terminal.printError("note: further warnings are not shown")
      }
    }
  }
}
