/// Why a GEOS operation failed.
public enum GEOSError: Error, Sendable, Equatable, CustomStringConvertible {
  /// `GEOS_init_r` returned no context (out of memory).
  case contextUnavailable
  /// A GEOS call failed; `message` is GEOS's own error text (empty if it gave none).
  case operationFailed(operation: String, message: String)

  /// An actionable sentence.
  public var description: String {
    switch self {
    case .contextUnavailable:
      "cannot create a GEOS context (out of memory?)"
    case .operationFailed(let operation, let message):
      message.isEmpty ? "GEOS \(operation) failed" : "GEOS \(operation) failed: \(message)"
    }
  }
}
