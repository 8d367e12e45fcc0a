/// A compiled SQL `like` pattern: `%` matches any run of characters (none included), `_`
/// exactly one character (one Unicode scalar, as PostgreSQL and SQLite count them), and the
/// escape character, when there is one, makes the character after it literal.
///
/// Matching works on the UTF-8 bytes of the text without copying them; with `ignoringCase`
/// the pattern is lowercased once and each text as it is matched.
struct LikePattern: Sendable, Equatable {
  private enum Kind: UInt8, Sendable { case literal, one, any }

  /// One step of the pattern; a literal's bytes are `literals[start..<end]`.
  private struct Step: Sendable, Equatable {
    var kind: Kind
    var start: Int
    var end: Int
  }

  private let steps: [Step]
  private let literals: [UInt8]
  private let ignoresCase: Bool

  /// What is wrong with a pattern.
  struct Problem: Error {
    var message: String
  }

  /// Compiles `pattern`; fails when it ends with its escape character.
  init(_ pattern: String, escape: Unicode.Scalar?, ignoringCase: Bool) throws(Problem) {
    var steps: [Step] = []
    var literals: [UInt8] = []
    var escaped = false
    func appendLiteral(_ scalar: Unicode.Scalar) {
      let start = literals.count
      literals.append(contentsOf: UTF8.encode(scalar).map { Array($0) } ?? [])
      if let last = steps.last, last.kind == .literal, last.end == start {
        steps[steps.count - 1].end = literals.count
      } else {
        steps.append(Step(kind: .literal, start: start, end: literals.count))
      }
    }
    let text = ignoringCase ? pattern.lowercased() : pattern
    for scalar in text.unicodeScalars {
      if escaped {
        appendLiteral(scalar)
        escaped = false
      } else if scalar == escape {
        escaped = true
      } else if scalar == "%" {
        // Runs of % are one step.
        if steps.last?.kind != .any { steps.append(Step(kind: .any, start: 0, end: 0)) }
      } else if scalar == "_" {
        steps.append(Step(kind: .one, start: 0, end: 0))
      } else {
        appendLiteral(scalar)
      }
    }
    if escaped {
      throw Problem(message: "the like pattern ends with its escape character")
    }
    self.steps = steps
    self.literals = literals
    ignoresCase = ignoringCase
  }

  /// The escape character a text names: exactly one character.
  static func escapeScalar(_ text: String) -> Unicode.Scalar? {
    var scalars = text.unicodeScalars.makeIterator()
    guard let first = scalars.next(), scalars.next() == nil else { return nil }
    return first
  }

  /// Whether the whole of `text` matches.
  func matches(_ text: String) -> Bool {
    var text = ignoresCase ? text.lowercased() : text
    return text.withUTF8 { bytes in matches(bytes) }
  }

  private func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    literals.withUnsafeBufferPointer { literals in
      let n = text.count
      var step = 0
      var position = 0
      // Where to resume after the last %: the step after it and the text position it took.
      var resumeStep = -1
      var resumePosition = 0
      while true {
        if step < steps.count {
          let current = steps[step]
          switch current.kind {
          case .any:
            if step + 1 == steps.count { return true }
            resumeStep = step + 1
            resumePosition = position
            step += 1
            continue
          case .one:
            if position < n {
              position = Self.nextScalar(text, after: position)
              step += 1
              continue
            }
          case .literal:
            let count = current.end - current.start
            if position + count <= n {
              var k = 0
              while k < count, text[position + k] == literals[current.start + k] { k += 1 }
              if k == count {
                position += count
                step += 1
                continue
              }
            }
          }
        } else if position == n {
          return true
        }
        guard resumeStep >= 0, resumePosition < n else { return false }
        resumePosition = Self.nextScalar(text, after: resumePosition)
        position = resumePosition
        step = resumeStep
      }
    }
  }

  /// The index after the UTF-8 scalar that starts at `index`.
  private static func nextScalar(_ text: UnsafeBufferPointer<UInt8>, after index: Int) -> Int {
    var next = index + 1
    while next < text.count, text[next] & 0xC0 == 0x80 { next += 1 }
    return next
  }
}
