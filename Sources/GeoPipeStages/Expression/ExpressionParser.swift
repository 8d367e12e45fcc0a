import GeoPipeCore

/// Recursive-descent parser for `--where` expressions.
struct ExpressionParser {
  private enum Token: Equatable {
    case name(String)
    case quotedName(String)
    case string(String)
    case number(JSONValue)
    case op(ComparisonOperator)
    case open, close, comma
    case end
  }

  private let scalars: [Unicode.Scalar]
  private var position = 0
  private var token = Token.end
  private var tokenStart = 0

  init(_ text: String) {
    scalars = Array(text.unicodeScalars)
  }

  mutating func parseAll() throws -> Expression {
    try advance()
    if token == .end { throw fail("the expression is empty") }
    let expression = try parseOr()
    guard token == .end else { throw fail("unexpected \(describe(token))") }
    return expression
  }

  private func fail(_ message: String) -> GeoPipeError {
    .usage("--where: column \(tokenStart + 1): \(message)")
  }

  private func describe(_ token: Token) -> String {
    switch token {
    case .name(let n): "'\(n)'"
    case .quotedName(let n): "\"\(n)\""
    case .string(let s): "'\(s)'"
    case .number: "a number"
    case .op(let op): "'\(op.rawValue)'"
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

  private mutating func parseOr() throws -> Expression {
    var left = try parseAnd()
    while isKeyword("or") {
      try advance()
      left = .or(left, try parseAnd())
    }
    return left
  }

  private mutating func parseAnd() throws -> Expression {
    var left = try parseNot()
    while isKeyword("and") {
      try advance()
      left = .and(left, try parseNot())
    }
    return left
  }

  private mutating func parseNot() throws -> Expression {
    if isKeyword("not") {
      try advance()
      return .not(try parseNot())
    }
    return try parseComparison()
  }

  private mutating func parseComparison() throws -> Expression {
    if token == .open {
      try advance()
      let inner = try parseOr()
      guard token == .close else { throw fail("expected ')', found \(describe(token))") }
      try advance()
      return inner
    }
    let left = try parseOperand()
    switch token {
    case .op(let op):
      try advance()
      return .compare(left, op, try parseOperand())
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
        break
      }
    default:
      break
    }
    if case .property = left { return left }
    throw fail("expected a comparison operator, found \(describe(token))")
  }

  private mutating func parseList() throws -> [Expression] {
    guard token == .open else { throw fail("expected '(' after 'in'") }
    try advance()
    var items: [Expression] = []
    while true {
      items.append(try parseOperand())
      if token == .close {
        try advance()
        return items
      }
      guard token == .comma else { throw fail("expected ',' or ')' in the list") }
      try advance()
    }
  }

  private mutating func parseOperand() throws -> Expression {
    let current = token
    switch current {
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

  private mutating func advance() throws {
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
    case "-", "+", ".", "0"..."9":
      token = .number(try number())
    default:
      guard c.properties.isAlphabetic || c == "_" || c == "$" else {
        throw fail("unexpected character '\(c)'")
      }
      var word = ""
      while position < scalars.count {
        let s = scalars[position]
        guard
          s.properties.isAlphabetic || s.properties.numericType != nil || s == "_" || s == "$"
            || s == ":" || s == "."
        else { break }
        word.unicodeScalars.append(s)
        position += 1
      }
      token = .name(word)
    }
  }

  /// A quoted string or name; the quote is doubled to include it (`'it''s'`).
  private mutating func quoted(_ quote: Unicode.Scalar) throws -> String {
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

  private mutating func number() throws -> JSONValue {
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
