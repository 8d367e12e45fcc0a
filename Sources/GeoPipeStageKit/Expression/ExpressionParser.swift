import GeoPipeCore

/// Recursive-descent parser for expressions (`--where`, `select --compute`).
///
/// Precedence from loosest: `or`, `and`, `not`, comparisons and tests (`=`, `is`, `in`,
/// `like`, `between`, `~` …), `||`, `+ -`, `* /`, a leading `-`.
struct ExpressionParser {
  /// The words that are part of the language; a property with such a name goes in double
  /// quotes.
  static let keywords: Set<String> = [
    "and", "or", "not", "in", "is", "like", "ilike", "escape", "between", "case", "when", "then",
    "else", "end",
  ]

  /// How deep parentheses, calls, `case`, `not` and a leading `-` may nest, so that parsing
  /// and evaluating stay well within a thread's stack.
  static let maxNesting = 256
  /// How many words and symbols an expression may have: binary operators chain without
  /// nesting, but each adds a level to the tree that evaluation walks.
  static let maxTokens = 4096

  let scalars: [Unicode.Scalar]
  var position = 0
  var token = Token.end
  var tokenStart = 0
  var tokenCount = 0
  private var nesting = 0

  init(_ text: String) {
    scalars = Array(text.unicodeScalars)
  }

  /// Parses the whole text; with `condition`, the expression must be a condition.
  mutating func parseAll(condition: Bool) throws(ExpressionError) -> Expression {
    try advance()
    if token == .end { throw fail("the expression is empty") }
    let expression = try parseOr()
    guard token == .end else { throw fail("unexpected \(describe(token))") }
    if condition { try requireCondition(expression) }
    return expression
  }

  /// An error at the current token.
  func fail(_ message: String) -> ExpressionError {
    fail(message, at: tokenStart)
  }

  /// An error at a scalar index, reported as a character offset.
  func fail(_ message: String, at scalarIndex: Int) -> ExpressionError {
    var prefix = String.UnicodeScalarView()
    prefix.append(contentsOf: scalars[..<min(scalarIndex, scalars.count)])
    return ExpressionError(message: message, offset: String(prefix).count)
  }

  func isKeyword(_ word: String) -> Bool {
    if case .name(let n) = token { return n.lowercased() == word }
    return false
  }

  private mutating func expectKeyword(_ word: String, _ context: String) throws(ExpressionError) {
    guard isKeyword(word) else {
      throw fail("expected '\(word)' \(context), found \(describe(token))")
    }
    try advance()
  }

  /// Rejects a value where a condition is needed (an operand of `and`, `or`, `not`).
  private func requireCondition(_ expression: Expression) throws(ExpressionError) {
    guard expression.isCondition else {
      throw fail("expected a comparison operator, found \(describe(token))")
    }
  }

  /// Enters one level of nesting; the caller leaves it with `nesting -= 1`.
  private mutating func enter() throws(ExpressionError) {
    nesting += 1
    guard nesting <= Self.maxNesting else {
      throw fail("the expression nests more than \(Self.maxNesting) levels deep")
    }
  }

  private mutating func parseOr() throws(ExpressionError) -> Expression {
    try enter()
    defer { nesting -= 1 }
    var left = try parseAnd()
    while isKeyword("or") {
      try requireCondition(left)
      try advance()
      let right = try parseAnd()
      try requireCondition(right)
      left = .or(left, right)
    }
    return left
  }

  private mutating func parseAnd() throws(ExpressionError) -> Expression {
    var left = try parseNot()
    while isKeyword("and") {
      try requireCondition(left)
      try advance()
      let right = try parseNot()
      try requireCondition(right)
      left = .and(left, right)
    }
    return left
  }

  private mutating func parseNot() throws(ExpressionError) -> Expression {
    if isKeyword("not") {
      try advance()
      try enter()
      defer { nesting -= 1 }
      let operand = try parseNot()
      try requireCondition(operand)
      return .not(operand)
    }
    return try parseComparison()
  }

  private mutating func parseComparison() throws(ExpressionError) -> Expression {
    let left = try parseConcat()
    switch token {
    case .op(let op):
      try advance()
      return .compare(left, op, try parseConcat())
    case .regex(let ignoresCase, let negated):
      try advance()
      let start = tokenStart
      let pattern = try parseConcat()
      var test = RegexTest(pattern: pattern, ignoresCase: ignoresCase, negated: negated)
      if case .literal(let value) = pattern, let text = value.expressionText {
        do {
          test.compiled = try RegularExpression(text, ignoringCase: ignoresCase)
        } catch {
          throw fail(error.message, at: start)
        }
      }
      return .regex(left, test)
    case .name(let word):
      switch word.lowercased() {
      case "is":
        try advance()
        var negated = false
        if isKeyword("not") {
          negated = true
          try advance()
        }
        guard isKeyword("null") else { throw fail("expected 'null' after 'is'") }
        try advance()
        return .isNull(left, negated: negated)
      case "not":
        try advance()
        guard isKeyword("in") || isKeyword("like") || isKeyword("ilike") || isKeyword("between")
        else { throw fail("expected 'in', 'like', 'ilike' or 'between' after 'not'") }
        return try parseTest(left, negated: true)
      case "in", "like", "ilike", "between":
        return try parseTest(left, negated: false)
      default:
        return left
      }
    default:
      return left
    }
  }

  /// `in (…)`, `like …`, `ilike …` or `between … and …` after `left` (and `not`).
  private mutating func parseTest(_ left: Expression, negated: Bool) throws(ExpressionError)
    -> Expression
  {
    guard case .name(let word) = token else { return left }
    try advance()
    switch word.lowercased() {
    case "in":
      return .within(left, try parseList(), negated: negated)
    case "between":
      let low = try parseConcat()
      try expectKeyword("and", "in 'between … and …'")
      let high = try parseConcat()
      return .between(left, low: low, high: high, negated: negated)
    default:
      let ignoresCase = word.lowercased() == "ilike"
      let patternStart = tokenStart
      let pattern = try parseConcat()
      var escape: Expression?
      var escapeStart = tokenStart
      if isKeyword("escape") {
        try advance()
        escapeStart = tokenStart
        escape = try parseConcat()
      }
      var test = LikeTest(
        pattern: pattern, escape: escape, ignoresCase: ignoresCase, negated: negated)
      try compileLike(&test, patternStart: patternStart, escapeStart: escapeStart)
      return .like(left, test)
    }
  }

  /// Compiles a `like` pattern once when it and its escape are literals.
  private func compileLike(_ test: inout LikeTest, patternStart: Int, escapeStart: Int)
    throws(ExpressionError)
  {
    var escapeScalar: Unicode.Scalar?
    if let escape = test.escape {
      guard case .literal(let value) = escape else { return }
      guard let text = value.expressionText, let scalar = LikePattern.escapeScalar(text) else {
        throw fail("the escape must be one character", at: escapeStart)
      }
      escapeScalar = scalar
    }
    guard case .literal(let value) = test.pattern, let text = value.expressionText else { return }
    do {
      test.compiled = try LikePattern(text, escape: escapeScalar, ignoringCase: test.ignoresCase)
    } catch {
      throw fail(error.message, at: patternStart)
    }
  }

  private mutating func parseConcat() throws(ExpressionError) -> Expression {
    var left = try parseSum()
    while token == .concat {
      try advance()
      left = .concat(left, try parseSum())
    }
    return left
  }

  private mutating func parseSum() throws(ExpressionError) -> Expression {
    var left = try parseProduct()
    while case .arithmetic(let op) = token, op == .add || op == .subtract {
      try advance()
      left = .arithmetic(left, op, try parseProduct())
    }
    return left
  }

  private mutating func parseProduct() throws(ExpressionError) -> Expression {
    var left = try parseUnary()
    while case .arithmetic(let op) = token, op == .multiply || op == .divide {
      try advance()
      left = .arithmetic(left, op, try parseUnary())
    }
    return left
  }

  private mutating func parseUnary() throws(ExpressionError) -> Expression {
    guard token == .arithmetic(.subtract) else { return try parsePrimary() }
    try advance()
    try enter()
    defer { nesting -= 1 }
    let operand = try parseUnary()
    if case .literal(let value) = operand, let number = NumericValue(value),
      value.numberValue != nil
    {
      return .literal(number.negated.json)
    }
    return .negate(operand)
  }

  private mutating func parseList() throws(ExpressionError) -> [Expression] {
    guard token == .open else { throw fail("expected '(' after 'in'") }
    try advance()
    var items: [Expression] = []
    while true {
      items.append(try parseConcat())
      if token == .close {
        try advance()
        return items
      }
      guard token == .comma else { throw fail("expected ',' or ')' in the list") }
      try advance()
    }
  }

  private mutating func parsePrimary() throws(ExpressionError) -> Expression {
    let current = token
    let start = tokenStart
    switch current {
    case .open:
      try advance()
      let inner = try parseOr()
      guard token == .close else { throw fail("expected ')', found \(describe(token))") }
      try advance()
      return inner
    case .string(let s):
      try advance()
      return .literal(.string(s))
    case .number(let n):
      try advance()
      return .literal(n)
    case .quotedName(let n):
      try advance()
      return .property(n)
    case .name(let n):
      switch n.lowercased() {
      case "true", "false", "null":
        try advance()
        return .literal(n.lowercased() == "null" ? .null : .bool(n.lowercased() == "true"))
      case "case":
        try advance()
        return try parseCase()
      case let word where Self.keywords.contains(word):
        throw fail(
          "expected a property or a value, found '\(n)' (a property called '\(n)' goes in "
            + "double quotes: \"\(n)\")")
      default:
        try advance()
        guard token == .open else { return .property(n) }
        return try parseCall(n, at: start)
      }
    default:
      throw fail("expected a property or a value, found \(describe(current))")
    }
  }

  /// `name(arguments)`, with the name checked against the functions and the arguments counted.
  private mutating func parseCall(_ name: String, at start: Int) throws(ExpressionError)
    -> Expression
  {
    guard let function = ExpressionFunction(rawValue: name.lowercased()) else {
      let names = ExpressionFunction.allCases.map(\.rawValue)
      if let close = Suggestions.closest(to: name, among: names) {
        throw fail("unknown function '\(name)'; did you mean '\(close)'?", at: start)
      }
      throw fail(
        "unknown function '\(name)'; the functions are \(names.joined(separator: ", "))", at: start)
    }
    try advance()
    var arguments: [Expression] = []
    if token != .close {
      while true {
        arguments.append(try parseOr())
        if token == .close { break }
        guard token == .comma else { throw fail("expected ',' or ')' after an argument") }
        try advance()
      }
    }
    try advance()
    if let problem = function.arityProblem(arguments.count) { throw fail(problem, at: start) }
    return .call(function, arguments)
  }

  /// `case [subject] when … then … [else …] end`, after `case`.
  private mutating func parseCase() throws(ExpressionError) -> Expression {
    var choice = CaseChoice(subject: nil, branches: [], otherwise: nil)
    if !isKeyword("when") { choice.subject = try parseOr() }
    while isKeyword("when") {
      try advance()
      let when = try parseOr()
      try expectKeyword("then", "after 'when …'")
      choice.branches.append(CaseChoice.Branch(when: when, then: try parseOr()))
    }
    if choice.branches.isEmpty { throw fail("expected 'when' in 'case', found \(describe(token))") }
    if isKeyword("else") {
      try advance()
      choice.otherwise = try parseOr()
    }
    try expectKeyword("end", "to close 'case'")
    return .choice(choice)
  }
}
