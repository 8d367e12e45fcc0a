internal import Glibc

/// A POSIX extended regular expression compiled once by the C library (`regcomp` with
/// `REG_EXTENDED | REG_NOSUB`), matched anywhere in a text (`regexec`).
///
/// geopipe never calls `setlocale`, so the "C" locale applies: the expression works on bytes
/// (`.` matches one byte of a UTF-8 character), and `~*` ignores the case of ASCII letters.
final class RegularExpression: @unchecked Sendable, Equatable {
  /// The compiled expression; `regexec` only reads it, so threads may share it.
  private let compiled: UnsafeMutablePointer<regex_t>
  /// The pattern as written.
  let pattern: String
  /// Whether case is ignored.
  let ignoresCase: Bool

  /// What is wrong with a pattern, in the C library's words.
  struct Problem: Error {
    var message: String
  }

  /// Compiles `pattern`.
  init(_ pattern: String, ignoringCase: Bool) throws(Problem) {
    // Compiled before any property is set, so that a failure does not run deinit.
    let compiled = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
    let flags = REG_EXTENDED | REG_NOSUB | (ignoringCase ? REG_ICASE : 0)
    let status = pattern.withCString { regcomp(compiled, $0, flags) }
    guard status == 0 else {
      var message = [CChar](repeating: 0, count: 256)
      regerror(status, compiled, &message, message.count)
      compiled.deallocate()
      let text = String(
        decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw Problem(message: "invalid regular expression: \(text)")
    }
    self.compiled = compiled
    self.pattern = pattern
    ignoresCase = ignoringCase
  }

  deinit {
    regfree(compiled)
    compiled.deallocate()
  }

  /// Whether the expression matches somewhere in `text`.
  func matches(_ text: String) -> Bool {
    text.withCString { regexec(compiled, $0, 0, nil, 0) == 0 }
  }

  static func == (a: RegularExpression, b: RegularExpression) -> Bool {
    a.pattern == b.pattern && a.ignoresCase == b.ignoresCase
  }
}
