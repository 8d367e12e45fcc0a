import GeoPipeCore

/// The type of an option's value, which decides how it is parsed and validated.
public enum OptionKind: Sendable, Equatable {
  /// A switch: present or not (`--quiet`).
  case flag
  /// Any text.
  case string
  /// A whole number.
  case integer
  /// A number.
  case number
  /// One of a fixed set of words.
  case choice([String])
  /// A box `W,S,E,N` in degrees (W > E crosses the antimeridian).
  case bbox
  /// A point `LON,LAT`.
  case point
  /// A comma-separated list of text; given more than once, the lists are joined.
  case list
  /// A path to a file (`-` for standard input or output).
  case path
  /// Named values `KEY=VALUE`: a repeatable option on the command line
  /// (`--set a=1 --set b=2`), a mapping in a pipeline file (`set: {a: 1, b: 2}`).
  case pairs

  /// A choice of an enum's raw values, in its case order.
  public static func choice<Choice: CaseIterable & RawRepresentable>(of type: Choice.Type)
    -> OptionKind where Choice.RawValue == String
  {
    .choice(Choice.allCases.map(\.rawValue))
  }

  /// The placeholder shown in help.
  public var placeholder: String {
    switch self {
    case .flag: ""
    case .string: "<text>"
    case .integer: "<n>"
    case .number: "<x>"
    case .choice(let words): "<\(words.joined(separator: "|"))>"
    case .bbox: "<w,s,e,n>"
    case .point: "<lon,lat>"
    case .list: "<a,b,...>"
    case .path: "<path>"
    case .pairs: "<key=value>"
    }
  }
}

/// One option of a stage: its name (kebab-case, the same on the command line and in pipeline
/// files), type, default and help.
public struct OptionSpec: Sendable {
  /// The name without dashes (`where`, `on-error`).
  public var name: String
  /// The value's type.
  public var kind: OptionKind
  /// The default value, as text, or nil for none.
  public var defaultValue: String?
  /// One line of help.
  public var help: String
  /// Whether the option must be given.
  public var isRequired: Bool
  /// Whether it is given without `--name` on the command line (a stage's main file, `path`).
  public var isPositional: Bool
  /// Whether a positional option takes every remaining word (`check FILE...`); its value is
  /// then a list of the words as given.
  public var isVariadic: Bool
  /// The values a whole-number option accepts, nil for any (`precision`: 0 to 17).
  public var range: ClosedRange<Int>?
  /// Whether the value is an expression (`--where`), whose quoted text may hold braces: a
  /// pipeline file's check leaves them to the expression's own syntax check.
  public var isExpression: Bool
  /// Whether the value may hold `{property}` templates, which the stage fills in per feature.
  ///
  /// Elsewhere a pipeline file's check rejects them: the value must be a constant.
  public var acceptsTemplates: Bool
  /// Checks a value beyond its kind (a colour, an expression's syntax) before anything runs.
  ///
  /// Returns what is wrong and where in the text, or nil when the value is fine. For `.pairs`
  /// it is given each VALUE.
  public var validate: (@Sendable (String) -> ValueProblem?)?
  /// The one-letter name the command line also takes (`-q` for `--quiet`), if any.
  public var shortName: Character?

  /// Creates an option.
  public init(
    _ name: String, _ kind: OptionKind, default defaultValue: String? = nil, required: Bool = false,
    positional: Bool = false, variadic: Bool = false, range: ClosedRange<Int>? = nil,
    expression: Bool = false, templates: Bool = false, short: Character? = nil,
    validate: (@Sendable (String) -> ValueProblem?)? = nil, help: String
  ) {
    self.name = name
    shortName = short
    self.kind = kind
    self.defaultValue = defaultValue
    self.help = help
    isRequired = required
    isPositional = positional
    isVariadic = variadic
    self.range = range
    isExpression = expression
    acceptsTemplates = templates
    self.validate = validate
  }
}

/// What an option's `validate` found wrong with a value.
public struct ValueProblem: Error, Sendable, Equatable {
  /// What is wrong, as a sentence fragment (`'#ggg' is not a colour; use #rgb or #rrggbb`).
  public var message: String
  /// The character offset (0-based) in the value text where the problem starts.
  public var offset: Int

  /// Creates a problem.
  public init(_ message: String, offset: Int = 0) {
    self.message = message
    self.offset = offset
  }
}

/// What is wrong with a stage's option values taken together, and which option to point at.
public struct OptionProblem: Sendable, Equatable {
  /// The option the problem is reported at (the stage, when the option was not given).
  public var option: String
  /// What is wrong, as a sentence.
  public var message: String

  /// Creates a problem.
  public init(option: String, _ message: String) {
    self.option = option
    self.message = message
  }
}

/// A parsed, validated option value.
public enum OptionValue: Sendable, Equatable {
  case flag(Bool)
  case string(String)
  case integer(Int)
  case number(Double)
  case bbox(BBox)
  case point(Double, Double)
  case list([String])
  case pairs([KeyValue])
}

/// One `KEY=VALUE` of a `.pairs` option.
public struct KeyValue: Sendable, Equatable {
  /// The name before `=`.
  public var key: String
  /// The text after `=`.
  public var value: String

  /// Creates a pair.
  public init(key: String, value: String) {
    self.key = key
    self.value = value
  }
}

/// The values of a stage's options after parsing, with defaults filled in.
public struct OptionValues: Sendable {
  private var values: [String: OptionValue] = [:]

  /// Creates an empty set.
  public init() {}

  /// Sets a value.
  public mutating func set(_ name: String, _ value: OptionValue) { values[name] = value }

  /// Removes a value.
  public mutating func remove(_ name: String) { values[name] = nil }

  /// Whether the option has a value (given or defaulted).
  public func has(_ name: String) -> Bool { values[name] != nil }

  /// A flag's value (false when absent).
  public func flag(_ name: String) -> Bool {
    if case .flag(let on)? = values[name] { on } else { false }
  }

  /// A text, choice or path value.
  public func string(_ name: String) -> String? {
    if case .string(let text)? = values[name] { text } else { nil }
  }

  /// A choice value as the enum whose raw values are the choices (`OptionKind.choice(of:)`).
  public func choice<Choice: RawRepresentable>(_ name: String, as type: Choice.Type) -> Choice?
  where Choice.RawValue == String {
    string(name).flatMap(Choice.init(rawValue:))
  }

  /// A whole-number value.
  public func integer(_ name: String) -> Int? {
    if case .integer(let n)? = values[name] { n } else { nil }
  }

  /// A number value.
  public func number(_ name: String) -> Double? {
    switch values[name] {
    case .number(let x)?: x
    case .integer(let n)?: Double(n)
    default: nil
    }
  }

  /// A box value.
  public func bbox(_ name: String) -> BBox? {
    if case .bbox(let box)? = values[name] { box } else { nil }
  }

  /// A point value as (lon, lat).
  public func point(_ name: String) -> (lon: Double, lat: Double)? {
    if case .point(let lon, let lat)? = values[name] { (lon, lat) } else { nil }
  }

  /// A list value.
  public func list(_ name: String) -> [String]? {
    if case .list(let items)? = values[name] { items } else { nil }
  }

  /// A pairs value, in the order given.
  public func pairs(_ name: String) -> [KeyValue] {
    if case .pairs(let items)? = values[name] { items } else { [] }
  }
}

extension OptionSpec {
  /// Parses and validates a value given as text; errors say which option and why.
  public func parse(_ text: String) throws -> OptionValue {
    do {
      return try value(from: text)
    } catch {
      var message = "invalid value '\(text)' for --\(name): \(error.message)"
      if isExpression, !text.contains("\n") {
        // The text again with a caret under the character the problem starts at.
        message += "\n  \(text)\n  " + String(repeating: " ", count: error.offset) + "^"
      }
      throw GeoPipeError.usage(message)
    }
  }

  /// Parses and validates a value given as text; the error says what is wrong and where in
  /// the text.
  public func value(from text: String) throws(ValueProblem) -> OptionValue {
    func bad(_ why: String) -> ValueProblem { ValueProblem(why) }
    if kind != .pairs, let validate, let problem = validate(text) { throw problem }
    switch kind {
    case .flag:
      switch text.lowercased() {
      case "true", "yes", "1", "on": return .flag(true)
      case "false", "no", "0", "off": return .flag(false)
      default: throw bad("expected true or false")
      }
    case .string, .path:
      return .string(text)
    case .integer:
      guard let n = Int(text) else { throw bad("expected a whole number") }
      if let range, !range.contains(n) {
        throw bad("expected a whole number from \(range.lowerBound) to \(range.upperBound)")
      }
      return .integer(n)
    case .number:
      guard let x = Double(text), x.isFinite else { throw bad("expected a number") }
      return .number(x)
    case .choice(let words):
      guard words.contains(text) else {
        throw bad("expected one of \(words.joined(separator: ", "))")
      }
      return .string(text)
    case .list:
      return .list(text.split(separator: ",", omittingEmptySubsequences: true).map(String.init))
    case .pairs:
      guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
        throw bad("expected KEY=VALUE")
      }
      let value = String(text[text.index(after: equals)...])
      if let validate, var problem = validate(value) {
        problem.offset += text.distance(from: text.startIndex, to: equals) + 1
        throw problem
      }
      return .pairs([KeyValue(key: String(text[..<equals]), value: value)])
    case .point:
      let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(Self.number)
      guard parts.count == 2, let lon = parts[0], let lat = parts[1] else {
        throw bad("expected LON,LAT (longitude first, as in GeoJSON)")
      }
      guard lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90 else {
        throw bad("expected LON,LAT with longitude in [-180, 180] and latitude in [-90, 90]")
      }
      return .point(lon, lat)
    case .bbox:
      // Spaces may follow the commas, as fio writes boxes ("W, S, E, N").
      let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(Self.number)
      guard parts.count == 4, let w = parts[0], let s = parts[1], let e = parts[2], let n = parts[3]
      else { throw bad("expected W,S,E,N (four numbers, west first)") }
      guard s <= n else {
        throw bad("south (\(s)) is greater than north (\(n)); the order is W,S,E,N")
      }
      guard w >= -180 && w <= 180 && e >= -180 && e <= 180 && s >= -90 && n <= 90 else {
        throw bad("longitudes must be in [-180, 180] and latitudes in [-90, 90]")
      }
      return .bbox(BBox(west: w, south: s, east: e, north: n))
    }
  }

  /// A number in a point or a box, with spaces around it allowed.
  private static func number(_ text: Substring) -> Double? {
    var slice = text
    while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
    while slice.last == " " || slice.last == "\t" { slice.removeLast() }
    return Double(slice)
  }
}
