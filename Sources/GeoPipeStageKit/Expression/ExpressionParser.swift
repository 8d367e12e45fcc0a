import GeoPipeCore

/// Recursive-descent parser for expressions (`--where`, `select --compute`).
///
/// Precedence from loosest: `or`, `and`, `not`, comparisons and tests, `+ -`, `* /`, a
/// leading `-`.
struct ExpressionParser {
  private enum Token: Equatable {
    case name(String)
    case quotedName(String)
    case string(String)
    case number(JSONValue)
    case op(ComparisonOperator)
    case arithmetic(ArithmeticOperator)
    case open, close, comma
    case end

    /// Whether the token can end an operand, so that a `-` or `+` after it is an operator
    /// rather than a number's sign.
    var endsOperand: Bool {
      switch self {
      case .quotedName, .string, .number, .close: true
      case .name(let word): !["and", "or", "not", "in", "is"].contains(word.lowercased())
      default: false
      }
    }
  }

  private let scalars: [Unicode.Scalar]
  private var position = 0
  private var token = Token.end
  private var tokenStart = 0

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

  private func fail(_ message: String) -> ExpressionError {
    var prefix = String.UnicodeScalarView()
    prefix.append(contentsOf: scalars[..<min(tokenStart, scalars.count)])
    return ExpressionError(message: message, offset: String(prefix).count)
  }

  private func describe(_ token: Token) -> String {
    switch token {
    case .name(let n): "'\(n)'"
    case .quotedName(let n): "\"\(n)\""
    case .string(let s): "'\(s)'"
    case .number: "a number"
    case .op(let op): "'\(op.rawValue)'"
    case .arithmetic(let op): "'\(op.rawValue)'"
    case .open: "'('"
    case .close: "')'"
    case .comma: "','"
    case .end: "end of expression"
    }
  }

  private func isKeyword(_ word: String) -> Bool {
    if case .name(let n) = token { return n.lowercased() == word }
    return false
  }

  /// Rejects a value where a condition is needed (an operand of `and`, `or`, `not`).
  private func requireCondition(_ expression: Expression) throws(ExpressionError) {
    guard expression.isCondition else {
      throw fail("expected a comparison operator, found \(describe(token))")
    }
  }

  private mutating func parseOr() throws(ExpressionError) -> Expression {
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
      let operand = try parseNot()
      try requireCondition(operand)
      return .not(operand)
    }
    return try parseComparison()
  }

  private mutating func parseComparison() throws(ExpressionError) -> Expression {
    let left = try parseSum()
    switch token {
    case .op(let op):
      try advance()
      return .compare(left, op, try parseSum())
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
      case "in":
        try advance()
        return .within(left, try parseList(), negated: false)
      case "not":
        try advance()
        guard isKeyword("in") else { throw fail("expected 'in' after 'not'") }
        try advance()
        return .within(left, try parseList(), negated: true)
      default:
        return left
      }
    default:
      return left
    }
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
      items.append(try parseSum())
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
      case "true":
        try advance()
        return .literal(.bool(true))
      case "false":
        try advance()
        return .literal(.bool(false))
      case "null":
        try advance()
        return .literal(.null)
      case "and", "or", "not", "in", "is":
        throw fail("expected a property or a value, found '\(n)'")
      default:
        try advance()
        return .property(n)
      }
    default:
      throw fail("expected a property or a value, found \(describe(current))")
    }
  }

  // MARK: Tokens

  private mutating func advance() throws(ExpressionError) {
    let afterOperand = token.endsOperand
    while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
    tokenStart = position
    guard position < scalars.count else {
      token = .end
      return
    }
    let c = scalars[position]
    switch c {
    case "(":
      position += 1
      token = .open
    case ")":
      position += 1
      token = .close
    case ",":
      position += 1
      token = .comma
    case "=":
      position += 1
      if position < scalars.count && scalars[position] == "=" { position += 1 }
      token = .op(.equal)
    case "!":
      guard position + 1 < scalars.count, scalars[position + 1] == "=" else {
        throw fail("expected '!='")
      }
      position += 2
      token = .op(.notEqual)
    case "<":
      position += 1
      if position < scalars.count && scalars[position] == "=" {
        position += 1
        token = .op(.lessOrEqual)
      } else if position < scalars.count && scalars[position] == ">" {
        position += 1
        token = .op(.notEqual)
      } else {
        token = .op(.less)
      }
    case ">":
      position += 1
      if position < scalars.count && scalars[position] == "=" {
        position += 1
        token = .op(.greaterOrEqual)
      } else {
        token = .op(.greater)
      }
    case "'", "\"":
      let text = try quoted(c)
      token = c == "'" ? .string(text) : .quotedName(text)
    case "*", "/":
      position += 1
      token = .arithmetic(c == "*" ? .multiply : .divide)
    case "-", "+":
      if afterOperand || !startsNumber(at: position + 1) {
        position += 1
        token = .arithmetic(c == "-" ? .subtract : .add)
      } else {
        token = .number(try number())
      }
    case ".", "0"..."9":
      token = .number(try number())
    default:
      guard c.properties.isAlphabetic || c == "_" || c == "$" else {
        throw fail("unexpected character '\(c)'")
      }
      var word = ""
      while position < scalars.count {
        let s = scalars[position]
        guard isNameScalar(s) else { break }
        word.unicodeScalars.append(s)
        position += 1
      }
      if position + 1 < scalars.count, scalars[position] == "-",
        scalars[position + 1].properties.isAlphabetic
      {
        var name = word
        while position < scalars.count, isNameScalar(scalars[position]) || scalars[position] == "-"
        {
          name.unicodeScalars.append(scalars[position])
          position += 1
        }
        throw fail(
          "write a name with '-' in double quotes (\"\(name)\"), or put spaces around '-' to "
            + "subtract")
      }
      token = .name(word)
    }
  }

  /// A quoted string or name; the quote is doubled to include it (`'it''s'`).
  private mutating func quoted(_ quote: Unicode.Scalar) throws(ExpressionError) -> String {
    position += 1
    var text = ""
    while true {
      guard position < scalars.count else {
        throw fail(
          "unterminated \(quote == "'" ? "string" : "quoted name"): add the closing \(quote)")
      }
      let s = scalars[position]
      position += 1
      if s == quote {
        if position < scalars.count && scalars[position] == quote {
          text.unicodeScalars.append(quote)
          position += 1
          continue
        }
        return text
      }
      text.unicodeScalars.append(s)
    }
  }

  /// Whether a bare name can hold `s` after its first character.
  private func isNameScalar(_ s: Unicode.Scalar) -> Bool {
    s.properties.isAlphabetic || s.properties.numericType != nil || s == "_" || s == "$"
      || s == ":" || s == "."
  }

  /// Whether a number's digits start at `index` (after a sign).
  private func startsNumber(at index: Int) -> Bool {
    index < scalars.count && (("0"..."9").contains(scalars[index]) || scalars[index] == ".")
  }

  private mutating func number() throws(ExpressionError) -> JSONValue {
    var text = ""
    while position < scalars.count {
      let s = scalars[position]
      guard ("0"..."9").contains(s) || s == "." || s == "-" || s == "+" || s == "e" || s == "E"
      else {
        break
      }
      // A sign only starts the number or follows an exponent marker.
      if (s == "-" || s == "+") && !text.isEmpty && !(text.hasSuffix("e") || text.hasSuffix("E")) {
        break
      }
      text.unicodeScalars.append(s)
      position += 1
    }
    if let integer = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) {
      return .integer(integer)
    }
    guard let value = Double(text), value.isFinite else { throw fail("invalid number '\(text)'") }
    return .double(value)
  }
}
