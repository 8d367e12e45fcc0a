import GeoPipeCore

/// The value of a style option: a constant, a template, or a rule that picks an output by a
/// property.
///
/// The text is the same on the command line and in a pipeline file:
/// - a constant: `#d33`, `2`, `large`;
/// - a template over properties: `{name}, {admin1}`, `{population:,}` (see ``Template``);
/// - `match(PROP, VALUE: OUT, ..., else: OUT)`: the output of the first VALUE equal to the
///   property's text (`1` matches the number 1 and the string "1"); `else` for a missing or
///   null property and for other values; without `else`, nothing;
/// - `steps(PROP, OUT0, STOP1: OUT1, STOP2: OUT2, ...)`: OUT0 below STOP1, OUTk from STOPk
///   up (stops increase), as MapLibre's `step`; numeric strings count as numbers, and a missing
///   or non-numeric property gives nothing.
///
/// Tokens are bare words, which end at `,`, `:` or `)`, or quoted strings, `'single'` or
/// `"double"`, with the quote doubled inside (`'it''s'`). PROP is bare or double-quoted.
/// Each OUT is itself a constant or a template.
public enum StyleValue: Sendable, Equatable {
  /// The same text for every feature.
  case constant(String)
  /// A template with at least one field.
  case template(Template)
  /// `match(PROP, VALUE: OUT, ..., else: OUT)`.
  case match(MatchRule)
  /// `steps(PROP, OUT0, STOP: OUT, ...)`.
  case steps(StepsRule)
  /// `case when … then … else … end`: an expression of the `--where` language whose value,
  /// as text, is the output (null sets nothing).
  case expression(Expression)

  /// Parses a value.
  ///
  /// `check` is given every constant output (the whole value when it is a constant, each
  /// constant OUT of a rule) and returns what is wrong with it, with an offset into that
  /// output's text. Errors carry the character offset (0-based) into `text`.
  public init(
    _ text: String, check: @escaping (String) -> ValueProblem? = { _ in nil }
  ) throws(ValueProblem) {
    if Self.startsCaseExpression(text) {
      self = .expression(try Self.caseExpression(text, check: check))
      return
    }
    let chars = Array(text)
    var parser = RuleParser(chars: chars, check: check)
    if let rule = RuleParser.ruleStart(in: chars) {
      parser.k = rule.open + 1
      if rule.name == "match" {
        self = .match(try parser.matchRule(open: rule.open))
      } else {
        self = .steps(try parser.stepsRule(open: rule.open))
      }
      try parser.end()
      return
    }
    let whole = RuleParser.Token(
      text: text, offsets: Array(chars.indices), start: 0, end: chars.count, quote: nil)
    let template = try parser.template(of: whole, inRule: false)
    if let constant = template.constantText {
      self = .constant(constant)
    } else {
      self = .template(template)
    }
  }
}

extension StyleValue {
  /// Whether a value is a `case` expression: its first word is `case`.
  private static func startsCaseExpression(_ text: String) -> Bool {
    let words = text.split(whereSeparator: \.isWhitespace)
    return words.count > 1 && words[0].lowercased() == "case"
  }

  /// Parses a `case` expression and checks its constant outputs with `check`.
  private static func caseExpression(
    _ text: String, check: (String) -> ValueProblem?
  ) throws(ValueProblem) -> Expression {
    let expression: Expression
    do {
      expression = try Expression.parseValue(text)
    } catch {
      throw ValueProblem(error.message, offset: error.offset)
    }
    guard case .choice(let choice) = expression else {
      throw ValueProblem("expected one 'case … end' expression", offset: 0)
    }
    let outputs = choice.branches.map(\.then) + (choice.otherwise.map { [$0] } ?? [])
    for case .literal(let value) in outputs {
      guard let output = value.expressionText, let problem = check(output) else { continue }
      // The output as written, quoted or not, to point at.
      let written =
        text.range(of: "'\(output.replacingOccurrences(of: "'", with: "''"))'")
        ?? text.range(of: output)
      let offset = written.map { text.distance(from: text.startIndex, to: $0.lowerBound) } ?? 0
      throw ValueProblem(problem.message, offset: offset + problem.offset)
    }
    return expression
  }
}

/// `match(PROP, VALUE: OUT, ..., else: OUT)`: picks an output by a property's text.
public struct MatchRule: Sendable, Equatable {
  /// One `VALUE: OUT` entry.
  public struct Case: Sendable, Equatable {
    /// The text the property must have.
    public var value: String
    /// The output for it.
    public var output: Template
  }

  /// The property compared.
  public var property: String
  /// The entries in order (their values are distinct).
  public var cases: [Case]
  /// The `else` output, for a missing or null property and for values without an entry.
  public var otherwise: Template?

  /// The output for a feature's properties, or nil when the rule sets nothing.
  public func output(for properties: JSONObject?) -> Template? {
    guard let value = properties?[property], !value.isNull else { return otherwise }
    let text = Template.text(of: value)
    return cases.first { $0.value == text }?.output ?? otherwise
  }
}

/// `steps(PROP, OUT0, STOP1: OUT1, ...)`: picks an output by the interval a number falls in.
public struct StepsRule: Sendable, Equatable {
  /// One `STOP: OUT` entry.
  public struct Stop: Sendable, Equatable {
    /// The smallest value that gets `output`.
    public var threshold: Double
    /// The output from `threshold` up to the next stop.
    public var output: Template
  }

  /// The numeric property.
  public var property: String
  /// The output below the first stop.
  public var base: Template
  /// The stops, by increasing threshold.
  public var stops: [Stop]

  /// The output for a feature's properties, or nil when the property is missing or not a
  /// number.
  public func output(for properties: JSONObject?) -> Template? {
    guard let value = properties?[property], let x = DecimalText(value)?.value else { return nil }
    return stops.last { $0.threshold <= x }?.output ?? base
  }
}
