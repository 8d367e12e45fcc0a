import GeoPipeCore

extension ExpressionParser {
  enum Token: Equatable {
    case name(String)
    case quotedName(String)
    case string(String)
    case number(JSONValue)
    case op(ComparisonOperator)
    case arithmetic(ArithmeticOperator)
    case regex(ignoresCase: Bool, negated: Bool)
    case concat
    case open, close, comma
    case end

    /// Whether the token can end an operand, so that a `-` or `+` after it is an operator
    /// rather than a number's sign.
    var endsOperand: Bool {
      switch self {
      case .quotedName, .string, .number, .close: true
      case .name(let word):
        word.lowercased() == "end" || !ExpressionParser.keywords.contains(word.lowercased())
      default: false
      }
    }
  }

  func describe(_ token: Token) -> String {
    switch token {
    case .name(let n): "'\(n)'"
    case .quotedName(let n): "\"\(n)\""
    case .string(let s): "'\(s)'"
    case .number: "a number"
    case .op(let op): "'\(op.rawValue)'"
    case .arithmetic(let op): "'\(op.rawValue)'"
    case .regex(let ignoresCase, let negated): "'\(negated ? "!" : "")~\(ignoresCase ? "*" : "")'"
    case .concat: "'||'"
    case .open: "'('"
    case .close: "')'"
    case .comma: "','"
    case .end: "end of expression"
    }
  }

  mutating func advance() throws(ExpressionError) {
    let afterOperand = token.endsOperand
    while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
    tokenStart = position
    guard position < scalars.count else {
      token = .end
      return
    }
    tokenCount += 1
    guard tokenCount <= Self.maxTokens else {
      throw fail("the expression is too long: more than \(Self.maxTokens) words and symbols")
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
      if position + 1 < scalars.count, scalars[position + 1] == "=" {
        position += 2
        token = .op(.notEqual)
      } else if position + 1 < scalars.count, scalars[position + 1] == "~" {
        position += 2
        token = .regex(ignoresCase: takeStar(), negated: true)
      } else {
        throw fail("expected '!=' or '!~'")
      }
    case "~":
      position += 1
      token = .regex(ignoresCase: takeStar(), negated: false)
    case "|":
      guard position + 1 < scalars.count, scalars[position + 1] == "|" else {
        throw fail("expected '||' (concatenation)")
      }
      position += 2
      token = .concat
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

  /// Takes a `*` after `~` (a regular expression that ignores case).
  private mutating func takeStar() -> Bool {
    guard position < scalars.count, scalars[position] == "*" else { return false }
    position += 1
    return true
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
