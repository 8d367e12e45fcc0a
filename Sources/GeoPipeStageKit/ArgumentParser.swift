import GeoPipeCore

/// Parses command-line words against a table of options.
///
/// `--name value` and `--name=value` both work; an option that takes a value takes the next
/// word even when it starts with `-` (`--bbox -10,35,30,60`). Flags take no value
/// (`--name=false` is accepted); a `.pairs` or `.list` option may be given more than once
/// (`-y name -y pop` is `-y name,pop`). Words that
/// are not options fill the positional options in order; `--` ends the options. Unknown
/// options get a "did you mean" suggestion. A variadic positional takes every remaining word.
public struct ArgumentParser {
  /// The options understood, positional ones in order.
  public let options: [OptionSpec]

  /// Creates a parser.
  public init(options: [OptionSpec]) {
    self.options = options
  }

  /// Parses `words`, fills in defaults and checks required options.
  public func parse(_ words: [String]) throws -> OptionValues {
    var values = OptionValues()
    var given = Set<String>()
    let positionals = options.filter(\.isPositional)
    var nextPositional = 0
    var k = 0
    var onlyPositionals = false
    func assignPositional(_ word: String) throws {
      guard nextPositional < positionals.count else {
        throw GeoPipeError.usage("unexpected argument '\(word)'")
      }
      let spec = positionals[nextPositional]
      given.insert(spec.name)
      if spec.isVariadic {
        values.set(spec.name, .list((values.list(spec.name) ?? []) + [word]))
        return
      }
      values.set(spec.name, try spec.parse(word))
      nextPositional += 1
    }
    while k < words.count {
      let word = words[k]
      k += 1
      if onlyPositionals || !word.hasPrefix("-") || word == "-" {
        try assignPositional(word)
        continue
      }
      if word == "--" {
        onlyPositionals = true
        continue
      }
      guard word.hasPrefix("--") else {
        throw GeoPipeError.usage(
          "unknown option '\(word)'\(suggestion(for: String(word.dropFirst())))")
      }
      var name = String(word.dropFirst(2))
      var inline: String?
      if let equals = name.firstIndex(of: "=") {
        inline = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      guard
        let spec = options.first(where: { $0.name == name && !$0.isPositional })
          ?? options.first(where: { $0.name == name })
      else {
        throw GeoPipeError.usage("unknown option '--\(name)'\(suggestion(for: name))")
      }
      guard !given.contains(name) || spec.kind == .pairs || spec.kind == .list else {
        throw GeoPipeError.usage("--\(name) is given more than once")
      }
      given.insert(name)
      if spec.kind == .flag {
        values.set(name, try inline.map(spec.parse) ?? .flag(true))
        continue
      }
      let text: String
      if let inline {
        text = inline
      } else {
        guard k < words.count else {
          throw GeoPipeError.usage("--\(name) needs a value \(spec.kind.placeholder)")
        }
        text = words[k]
        k += 1
      }
      let value = try spec.parse(text)
      if case .pairs(let more) = value {
        values.set(name, .pairs(values.pairs(name) + more))
      } else if case .list(let more) = value, let earlier = values.list(name) {
        values.set(name, .list(earlier + more))
      } else {
        values.set(name, value)
      }
    }
    for spec in options where !values.has(spec.name) {
      if let defaultValue = spec.defaultValue {
        values.set(spec.name, try spec.parse(defaultValue))
      } else if spec.isRequired {
        throw GeoPipeError.usage(
          spec.isPositional ? "missing \(spec.name.uppercased())" : "missing --\(spec.name)")
      }
    }
    return values
  }

  private func suggestion(for name: String) -> String {
    guard let best = Suggestions.closest(to: name, among: options.map(\.name)) else { return "" }
    return "; did you mean '--\(best)'?"
  }
}

/// "Did you mean" suggestions by edit distance.
public enum Suggestions {
  /// The candidate closest to `word` (within a third of its length, at least 2 edits), or a
  /// candidate that starts with it, or one of three letters or more that it starts with
  /// (`output` for `out`).
  public static func closest(to word: String, among candidates: [String]) -> String? {
    let limit = max(2, word.count / 3)
    let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
    if let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit { return best.0 }
    guard !word.isEmpty else { return nil }
    return candidates.first { $0.hasPrefix(word) }
      ?? candidates.first { $0.count >= 3 && word.hasPrefix($0) }
  }

  /// Levenshtein distance between two strings.
  public static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    var current = previous
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        current[j] = min(
          previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}
