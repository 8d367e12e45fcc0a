import GeoPipeCore

/// A property the `style` stage writes, and what its values must be.
///
/// The simplestyle-spec 1.1.0 keys keep their names; other keys take the `geopipe:` prefix.
public struct StyleKey: Sendable, Equatable {
  /// What a key's values must be.
  public enum Kind: Sendable, Equatable {
    /// Any text.
    case text
    /// `#rgb` or `#rrggbb`.
    case colour
    /// A number in a range, written as a JSON number.
    case number(minimum: Double, maximum: Double?)
    /// One of a few words.
    case word([String], what: String)
  }

  /// The option's name (`marker-color`, `priority`).
  public var option: String
  /// The property written (`marker-color`, `geopipe:priority`).
  public var property: String
  /// What the values must be.
  public var kind: Kind
  /// One line of help.
  public var help: String

  /// The keys in the order they are written.
  public static let all: [StyleKey] = [
    StyleKey(option: "title", kind: .text, help: "The title, shown in a marker's popup."),
    StyleKey(option: "description", kind: .text, help: "A longer description."),
    StyleKey(option: "marker-color", kind: .colour, help: "The marker colour: #rgb or #rrggbb."),
    StyleKey(
      option: "marker-size", kind: .word(["small", "medium", "large"], what: "marker size"),
      help: "The marker size: small, medium or large."),
    StyleKey(
      option: "marker-symbol", kind: .text,
      help: "The marker symbol: a Maki icon name, a digit or a letter."),
    StyleKey(option: "stroke", kind: .colour, help: "The line colour: #rgb or #rrggbb."),
    StyleKey(
      option: "stroke-width", kind: .number(minimum: 0, maximum: nil),
      help: "The line width in pixels, 0 or more."),
    StyleKey(
      option: "stroke-opacity", kind: .number(minimum: 0, maximum: 1),
      help: "The line opacity, from 0 to 1."),
    StyleKey(option: "fill", kind: .colour, help: "The polygon fill colour: #rgb or #rrggbb."),
    StyleKey(
      option: "fill-opacity", kind: .number(minimum: 0, maximum: 1),
      help: "The polygon fill opacity, from 0 to 1."),
    StyleKey(
      option: "priority", property: "geopipe:priority",
      kind: .word(["required", "high", "low"], what: "priority"),
      help:
        "The display priority, as in MapKit: required, high or low (written as geopipe:priority)."),
  ]

  /// Creates a key; the property is the option's name unless given.
  public init(option: String, property: String? = nil, kind: Kind, help: String) {
    self.option = option
    self.property = property ?? option
    self.kind = kind
    self.help = help
  }

  /// What is wrong with `text` as a value of this key, with the offset of the first bad
  /// character, or nil when it is fine.
  public func problem(with text: String) -> ValueProblem? {
    switch kind {
    case .text:
      return nil
    case .colour:
      let chars = Array(text)
      guard chars.first == "#" else {
        return ValueProblem("'\(text)' is not a colour: use #rgb or #rrggbb")
      }
      if let bad = chars.dropFirst().firstIndex(where: { !$0.isHexDigit }) {
        return ValueProblem("'\(text)' is not a colour: use #rgb or #rrggbb", offset: bad)
      }
      guard chars.count == 4 || chars.count == 7 else {
        return ValueProblem("'\(text)' is not a colour: use #rgb or #rrggbb (3 or 6 digits)")
      }
      return nil
    case .number(let minimum, let maximum):
      let range =
        maximum.map { "from \(Self.show(minimum)) to \(Self.show($0))" }
        ?? "\(Self.show(minimum)) or more"
      guard let x = Self.number(text), x >= minimum, x <= (maximum ?? .infinity) else {
        return ValueProblem("'\(text)' is not a valid \(option): use a number \(range)")
      }
      return nil
    case .word(let words, let what):
      guard words.contains(text) else {
        let list = words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
        return ValueProblem("'\(text)' is not a \(what): use \(list)")
      }
      return nil
    }
  }

  /// The JSON value written for a valid text: a number for numeric keys (an integer when the
  /// text is one), else the text.
  public func value(of text: String) -> JSONValue {
    guard case .number = kind else { return .string(text) }
    if let n = Int64(text) { return .integer(n) }
    return Self.number(text).map { .double($0) } ?? .string(text)
  }

  /// A number written as JSON writes it (`2`, `0.5`, `-1e3`), without spaces.
  private static func number(_ text: String) -> Double? {
    var chars = Substring(text)
    if chars.first == "-" { chars = chars.dropFirst() }
    let whole = chars.prefix { $0.isASCII && $0.isNumber }
    guard !whole.isEmpty else { return nil }
    chars = chars.dropFirst(whole.count)
    if chars.first == "." {
      let fraction = chars.dropFirst().prefix { $0.isASCII && $0.isNumber }
      guard !fraction.isEmpty else { return nil }
      chars = chars.dropFirst(fraction.count + 1)
    }
    if chars.first == "e" || chars.first == "E" {
      chars = chars.dropFirst()
      if chars.first == "+" || chars.first == "-" { chars = chars.dropFirst() }
      let exponent = chars.prefix { $0.isASCII && $0.isNumber }
      guard !exponent.isEmpty else { return nil }
      chars = chars.dropFirst(exponent.count)
    }
    guard chars.isEmpty, let x = Double(text), x.isFinite else { return nil }
    return x
  }

  private static func show(_ x: Double) -> String { Template.displayText(x) }
}
