import GeoPipeCore

/// A parsed expression over a feature's properties and geometry: a `--where` condition or a
/// `select --compute` value.
///
/// The language is a small SQL: comparisons (`=`, `!=`, `<>`, `<`, `<=`, `>`, `>=`), `and`,
/// `or`, `not`, parentheses, `in (…)`, `is null` / `is not null`, `like` / `ilike` (with
/// `escape`), `between … and …`, `~` regular expressions (POSIX ERE; `~*`, `!~`, `!~*`),
/// arithmetic (`+`, `-`, `*`, `/` and a leading `-`), `||` concatenation,
/// `case when … then … else … end`, function calls (``ExpressionFunction``), string literals
/// in single quotes, numbers, `true`, `false`, `null`, and property names bare (`population`)
/// or in double quotes (`"marker-color"`, `"geopipe:priority"`).
///
/// Nulls follow SQL's three-valued logic: a comparison with null (a missing property is null)
/// is unknown, `not` unknown is unknown, `false and` unknown is false, `true or` unknown is
/// true, and a condition keeps a feature only when it is true. A string that holds a number
/// counts as that number in comparisons with numbers and in arithmetic; two non-null values
/// of kinds that cannot be compared (a word and a number) are unequal and neither is less.
/// Arithmetic on integers stays integer while the result is exact (`+`, `-`, `*` without
/// overflow); `/` always gives a float. Any other operand (null, a boolean, a word), a
/// division by zero or a result beyond the range of a double gives null.
public indirect enum Expression: Sendable, Equatable {
  case literal(JSONValue)
  case property(String)
  case compare(Expression, ComparisonOperator, Expression)
  case isNull(Expression, negated: Bool)
  case within(Expression, [Expression], negated: Bool)
  case and(Expression, Expression)
  case or(Expression, Expression)
  case not(Expression)
  case arithmetic(Expression, ArithmeticOperator, Expression)
  case negate(Expression)
  /// `subject [not] like|ilike pattern [escape e]`.
  case like(Expression, LikeTest)
  /// `subject [not] between low and high`.
  case between(Expression, low: Expression, high: Expression, negated: Bool)
  /// `subject ~ pattern` and its variants.
  case regex(Expression, RegexTest)
  /// `a || b`.
  case concat(Expression, Expression)
  /// `case [subject] when … then … [else …] end`.
  case choice(CaseChoice)
  /// A function call.
  case call(ExpressionFunction, [Expression])

  /// Parses a `--where` condition; errors are usage errors that give the character column.
  public static func parse(_ text: String) throws -> Expression {
    do {
      return try parseCondition(text)
    } catch {
      throw GeoPipeError.usage("--where: column \(error.offset + 1): \(error.message)")
    }
  }

  /// Parses a condition: the whole expression must be a comparison, a test, a property, or
  /// those joined by `and`, `or`, `not`.
  public static func parseCondition(_ text: String) throws(ExpressionError) -> Expression {
    var parser = ExpressionParser(text)
    return try parser.parseAll(condition: true)
  }

  /// Parses an expression that computes a value (`population / 1000`, `rank <= 3`).
  public static func parseValue(_ text: String) throws(ExpressionError) -> Expression {
    var parser = ExpressionParser(text)
    return try parser.parseAll(condition: false)
  }

  /// Whether a feature matches: the expression is true (not false, not unknown).
  public func matches(_ feature: Feature) -> Bool {
    truth(in: feature) == true
  }

  /// The expression's value for a feature; a missing property and an unknown truth give null.
  public func evaluate(_ feature: Feature) -> JSONValue {
    value(in: feature)
  }

  /// The properties the expression reads, in the order they appear (repeats included).
  public var propertyNames: [String] {
    switch self {
    case .literal: []
    case .property(let name): [name]
    case .compare(let a, _, let b), .and(let a, let b), .or(let a, let b),
      .arithmetic(let a, _, let b), .concat(let a, let b):
      a.propertyNames + b.propertyNames
    case .isNull(let a, _), .not(let a), .negate(let a): a.propertyNames
    case .within(let a, let list, _): a.propertyNames + list.flatMap(\.propertyNames)
    case .like(let a, let test):
      a.propertyNames + test.pattern.propertyNames + (test.escape?.propertyNames ?? [])
    case .between(let a, let low, let high, _):
      a.propertyNames + low.propertyNames + high.propertyNames
    case .regex(let a, let test): a.propertyNames + test.pattern.propertyNames
    case .choice(let choice):
      (choice.subject?.propertyNames ?? [])
        + choice.branches.flatMap { $0.when.propertyNames + $0.then.propertyNames }
        + (choice.otherwise?.propertyNames ?? [])
    case .call(_, let arguments): arguments.flatMap(\.propertyNames)
    }
  }

  /// Whether the expression is a condition: a comparison, a test, a property, or those joined
  /// by `and`, `or`, `not`; a `case` or `coalesce` whose results all are.
  var isCondition: Bool {
    switch self {
    case .compare, .isNull, .within, .property, .like, .between, .regex: true
    case .and(let a, let b), .or(let a, let b): a.isCondition && b.isCondition
    case .not(let a): a.isCondition
    case .choice(let choice):
      choice.branches.allSatisfy { $0.then.isCondition || $0.then.isBooleanLiteral }
        && (choice.otherwise.map { $0.isCondition || $0.isBooleanLiteral } ?? true)
    case .call(.coalesce, let arguments):
      arguments.allSatisfy { $0.isCondition || $0.isBooleanLiteral }
        && arguments.contains(where: \.isCondition)
    case .literal, .arithmetic, .negate, .concat, .call: false
    }
  }

  private var isBooleanLiteral: Bool {
    if case .literal(.bool) = self { true } else { false }
  }
}

/// The `like` and `ilike` test: a pattern where `%` matches any run of characters and `_` one
/// character, as in SQL.
public struct LikeTest: Sendable, Equatable {
  /// The pattern's expression.
  public var pattern: Expression
  /// The escape character's expression, if any.
  public var escape: Expression?
  /// Whether case is ignored (`ilike`).
  public var ignoresCase: Bool
  /// Whether the test is negated (`not like`).
  public var negated: Bool
  /// The pattern compiled once, when it and the escape are literals.
  var compiled: LikePattern?
}

/// The `~` test: a POSIX extended regular expression that matches anywhere in the text.
public struct RegexTest: Sendable, Equatable {
  /// The pattern's expression.
  public var pattern: Expression
  /// Whether case is ignored (`~*`, `!~*`).
  public var ignoresCase: Bool
  /// Whether the test is negated (`!~`, `!~*`).
  public var negated: Bool
  /// The pattern compiled once, when it is a literal.
  var compiled: RegularExpression?
}

/// A `case` expression: the result of the first branch that holds, else `otherwise`, else
/// null.
public struct CaseChoice: Sendable, Equatable {
  /// One `when … then …`.
  public struct Branch: Sendable, Equatable {
    /// The condition, or with a subject the value to compare it with.
    public var when: Expression
    /// The result.
    public var then: Expression
  }

  /// The value compared with each branch's `when` (`case kind when 'city' then …`), if any.
  public var subject: Expression?
  /// The branches in order.
  public var branches: [Branch]
  /// The `else` result.
  public var otherwise: Expression?
}

/// What is wrong with an expression's text, and where.
public struct ExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong.
  public var message: String
  /// The character offset (0-based) in the expression where the problem starts.
  public var offset: Int

  /// Creates an error.
  public init(message: String, offset: Int) {
    self.message = message
    self.offset = offset
  }

  /// `column N: message`.
  public var description: String { "column \(offset + 1): \(message)" }
}
