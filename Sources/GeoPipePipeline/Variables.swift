import Foundation
import GeoPipeStageKit
import GeoPipeStages

/// The variables of a pipeline file: its `vars`, overridden by `--var name=value`, plus
/// `${env.NAME}` for the environment and `${pipeline_dir}` for the file's folder.
public struct Variables: Sendable {
  /// Values by name.
  public var values: [String: String]
  /// The environment `${env.NAME}` reads.
  public var environment: [String: String]

  /// Creates variables.
  public init(
    values: [String: String] = [:],
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.values = values
    self.environment = environment
  }

  /// The result of substituting into one text.
  struct Substitution {
    /// The text with variables replaced; `$${…}` gives the literal text `${…}`.
    var text: String
    /// The same for an option that takes `{property}` templates: the braces of a `$${…}`
    /// escape are doubled (`${{…}}`), so that the template shows them literally too.
    var templateText: String
    /// Whether anything was replaced (then offsets into `text` no longer match the file).
    var changed: Bool
    /// Undefined variables and malformed references, with character offsets into the original.
    var problems: [(message: String, offset: Int)]
    /// The variables the text refers to (`${name}`; not `${env.NAME}`), defined or not.
    var names: [String] = []
  }

  /// Replaces `${name}` and `${env.NAME}`; `$${` stands for a literal `${`.
  func substitute(_ text: String) -> Substitution {
    guard text.contains("$") else {
      return Substitution(text: text, templateText: text, changed: false, problems: [])
    }
    let chars = Array(text)
    var out = ""
    var templateOut = ""
    var problems: [(String, Int)] = []
    var names: [String] = []
    var changed = false
    var k = 0
    while k < chars.count {
      let c = chars[k]
      guard c == "$" else {
        out.append(c)
        templateOut.append(c)
        k += 1
        continue
      }
      if k + 2 < chars.count, chars[k + 1] == "$", chars[k + 2] == "{" {
        // `$${name}`: the text `${name}`, taken literally by templates too.
        let end = chars[(k + 3)...].firstIndex(of: "}") ?? chars.count
        let inner = String(chars[(k + 3)..<end])
        out += "${" + inner
        templateOut += "${{" + inner.replacingOccurrences(of: "{", with: "{{")
        if end < chars.count {
          out += "}"
          templateOut += "}}"
        }
        k = min(end + 1, chars.count)
        changed = true
        continue
      }
      guard k + 1 < chars.count, chars[k + 1] == "{" else {
        out.append(c)
        templateOut.append(c)
        k += 1
        continue
      }
      guard let close = chars[(k + 2)...].firstIndex(of: "}") else {
        problems.append(("unclosed '${' (write '$${' for a literal '${')", k))
        out += String(chars[k...])
        templateOut += String(chars[k...])
        break
      }
      let name = String(chars[(k + 2)..<close]).trimmingCharacters(in: .whitespaces)
      changed = true
      if !name.hasPrefix("env.") { names.append(name) }
      if let value = lookup(name) {
        out += value
        templateOut += value
      } else if name.hasPrefix("env.") {
        problems.append(("environment variable '\(name.dropFirst(4))' is not set", k))
      } else {
        let known = values.keys.sorted()
        var message = "undefined variable '\(name)'"
        if let best = Suggestions.closest(to: name, among: known) {
          message += "; did you mean '\(best)'?"
        } else if known.isEmpty {
          message += " (define it under 'vars:' or with --var \(name)=VALUE)"
        }
        problems.append((message, k))
      }
      k = close + 1
    }
    return Substitution(
      text: out, templateText: templateOut, changed: changed, problems: problems, names: names)
  }

  private func lookup(_ name: String) -> String? {
    if name.hasPrefix("env.") { return environment[String(name.dropFirst(4))] }
    return values[name]
  }
}
