/// Why a command failed, with the exit status the CLI reports for it.
///
/// The statuses follow BSD's sysexits.h, as documented in the README.
public enum ExitStatus: Int32, Sendable {
  /// Success.
  case success = 0
  /// A validation found problems.
  case findings = 1
  /// The command line was wrong.
  case usage = 64
  /// The input data was malformed.
  case dataError = 65
  /// An input file could not be opened.
  case noInput = 66
  /// An output file could not be created.
  case cannotCreate = 73
  /// Reading or writing failed.
  case ioError = 74
  /// A pipeline file is invalid.
  case config = 78
}

/// An error that a user can act on: a message, where it happened, and an exit status.
public struct GeoPipeError: Error, Sendable, CustomStringConvertible {
  /// What went wrong, as a sentence that says what to do where that helps.
  public var message: String
  /// Where in an input the problem is, if it is in an input.
  public var location: SourceLocation?
  /// The exit status the CLI ends with.
  public var status: ExitStatus
  /// What kind of input problem this is, when a reader knows.
  public var problem: InputProblem?

  /// Creates an error.
  public init(
    _ message: String, at location: SourceLocation? = nil, status: ExitStatus,
    problem: InputProblem? = nil
  ) {
    self.message = message
    self.location = location
    self.status = status
    self.problem = problem
  }

  /// Bad input data at a place in a file (exit 65).
  public static func data(
    _ message: String, at location: SourceLocation?, problem: InputProblem? = nil
  ) -> GeoPipeError {
    GeoPipeError(message, at: location, status: .dataError, problem: problem)
  }

  /// A wrong command line or option value (exit 64).
  public static func usage(_ message: String) -> GeoPipeError {
    GeoPipeError(message, status: .usage)
  }

  /// `file:line:column: error: message`, or `error: message` without a location.
  public var description: String {
    if let location { "\(location): error: \(message)" } else { "error: \(message)" }
  }
}
