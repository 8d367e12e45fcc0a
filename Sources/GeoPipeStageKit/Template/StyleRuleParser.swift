/// Reads the text of a rule, keeping the offset of every character it reports on.
struct RuleParser {
  /// A bare or quoted word, with the offset in the value of each of its characters.
  struct Token {
    var text: String
    var offsets: [Int]
    /// Where the token starts (its quote, if quoted).
    var start: Int
    /// Just past the token.
    var end: Int
    var quote: Character?
  }

  let chars: [Character]
  let check: (String) -> ValueProblem?
  var k = 0

  init(chars: [Character], check: @escaping (String) -> ValueProblem?) {
    self.chars = chars
    self.check = check
  }

  /// The rule's name and the offset of its `(` when the text starts with `match(` or `steps(`.
  static func ruleStart(in chars: [Character]) -> (name: String, open: Int)? {
    var k = chars.firstIndex { $0 != " " } ?? chars.count
    let wordStart = k
    while k < chars.count, chars[k].isLetter { k += 1 }
    let word = String(chars[wordStart..<k])
    guard word == "match" || word == "steps" else { return nil }
    while k < chars.count, chars[k] == " " { k += 1 }
    guard k < chars.count, chars[k] == "(" else { return nil }
    return (word, k)
  }

  mutating func matchRule(open: Int) throws(ValueProblem) -> MatchRule {
    let shape = "match(PROP, VALUE: OUT, ..., else: OUT)"
    let property = try propertyName()
    try expectComma(after: "the property", shape: shape)
    var rule = MatchRule(property: property, cases: [], otherwise: nil)
    repeat {
      let key = try token("a value to match")
      if key.quote == nil && key.text == "else" {
        try expectColon(after: key, entry: "VALUE: OUT")
        rule.otherwise = try output()
        guard try !commaOrClose(open: open) else {
          throw ValueProblem("'else' must be the last entry of match(...)", offset: k - 1)
        }
        break
      }
      if rule.cases.contains(where: { $0.value == key.text }) {
        throw ValueProblem("'\(key.text)' is matched twice", offset: key.start)
      }
      try expectColon(after: key, entry: "VALUE: OUT")
      rule.cases.append(MatchRule.Case(value: key.text, output: try output()))
    } while try commaOrClose(open: open)
    if rule.cases.isEmpty {
      throw ValueProblem("match(...) needs at least one VALUE: OUT before else", offset: open + 1)
    }
    return rule
  }

  mutating func stepsRule(open: Int) throws(ValueProblem) -> StepsRule {
    let shape = "steps(PROP, OUT0, STOP1: OUT1, ...)"
    let property = try propertyName()
    try expectComma(after: "the property", shape: shape)
    let baseStart = k
    let base = try output()
    skipSpace()
    if k < chars.count, chars[k] == ":" {
      throw ValueProblem(
        "steps(...) starts with the output below the first stop: \(shape)",
        offset: chars[baseStart...].firstIndex { $0 != " " } ?? baseStart)
    }
    try expectComma(after: "the output below the first stop", shape: shape)
    var rule = StepsRule(property: property, base: base, stops: [])
    repeat {
      let stop = try token("a stop (a number)")
      guard let threshold = DecimalText.number(in: stop.text)?.value else {
        throw ValueProblem("'\(stop.text)' is not a number: a stop is a number", offset: stop.start)
      }
      if let last = rule.stops.last, threshold <= last.threshold {
        throw ValueProblem(
          "the stops must increase: \(stop.text) is not above \(Template.displayText(last.threshold))",
          offset: stop.start)
      }
      try expectColon(after: stop, entry: "STOP: OUT")
      rule.stops.append(StepsRule.Stop(threshold: threshold, output: try output()))
    } while try commaOrClose(open: open)
    return rule
  }

  /// Checks that nothing but spaces follows the closing parenthesis.
  mutating func end() throws(ValueProblem) {
    skipSpace()
    guard k == chars.count else {
      throw ValueProblem("unexpected text after the closing ')'", offset: k)
    }
  }

  /// Parses a token as a template and checks it when it is constant.
  func template(of token: Token, inRule: Bool = true) throws(ValueProblem) -> Template {
    let template: Template
    do {
      template = try Template(token.text)
    } catch {
      var message = error.message
      if inRule && token.quote == nil && token.text.contains("{") {
        message += "; quote an output that holds ',', ':' or ')'"
      }
      throw ValueProblem(message, offset: place(error.offset, in: token))
    }
    if let constant = template.constantText, let problem = check(constant) {
      let inner = Self.sourceIndex(ofLiteral: problem.offset, in: Array(token.text))
      throw ValueProblem(problem.message, offset: place(inner, in: token))
    }
    return template
  }

  // MARK: Tokens

  private mutating func propertyName() throws(ValueProblem) -> String {
    let name = try token("a property name")
    if name.quote == "'" {
      throw ValueProblem(
        "a property name is bare or in double quotes (\"\(name.text)\")", offset: name.start)
    }
    if name.text.isEmpty { throw ValueProblem("empty property name", offset: name.start) }
    return name.text
  }

  private mutating func output() throws(ValueProblem) -> Template {
    try template(of: try token("an output"))
  }

  /// Reads a bare or quoted token; spaces around it are skipped.
  private mutating func token(_ what: String) throws(ValueProblem) -> Token {
    skipSpace()
    guard k < chars.count else {
      throw ValueProblem("expected \(what), found the end of the value", offset: k)
    }
    let start = k
    let c = chars[k]
    if c == "'" || c == "\"" {
      var text = ""
      var offsets: [Int] = []
      k += 1
      while true {
        guard k < chars.count else {
          throw ValueProblem(
            "unterminated \(c)quoted\(c) text: add the closing \(c)", offset: start)
        }
        if chars[k] == c {
          guard k + 1 < chars.count, chars[k + 1] == c else { break }
          k += 1
        }
        text.append(chars[k])
        offsets.append(k)
        k += 1
      }
      k += 1
      return Token(text: text, offsets: offsets, start: start, end: k, quote: c)
    }
    while k < chars.count, !",:)".contains(chars[k]) { k += 1 }
    var last = k
    while last > start, chars[last - 1] == " " { last -= 1 }
    guard last > start else { throw ValueProblem("expected \(what)", offset: start) }
    return Token(
      text: String(chars[start..<last]), offsets: Array(start..<last), start: start, end: last,
      quote: nil)
  }

  private mutating func skipSpace() {
    while k < chars.count, chars[k] == " " { k += 1 }
  }

  private mutating func expectComma(after what: String, shape: String) throws(ValueProblem) {
    skipSpace()
    guard k < chars.count, chars[k] == "," else {
      throw ValueProblem("expected ',' after \(what): \(shape)", offset: k)
    }
    k += 1
  }

  private mutating func expectColon(after token: Token, entry: String) throws(ValueProblem) {
    skipSpace()
    guard k < chars.count, chars[k] == ":" else {
      throw ValueProblem("expected ':' after '\(token.text)': each entry is \(entry)", offset: k)
    }
    k += 1
  }

  /// True after a `,`, false after the closing `)`.
  private mutating func commaOrClose(open: Int) throws(ValueProblem) -> Bool {
    skipSpace()
    guard k < chars.count else {
      throw ValueProblem("unclosed '(': add ')' at the end", offset: open)
    }
    k += 1
    switch chars[k - 1] {
    case ",": return true
    case ")": return false
    default: throw ValueProblem("expected ',' or ')'", offset: k - 1)
    }
  }

  /// The offset in the value of character `inner` of a token (its end when past the last).
  private func place(_ inner: Int, in token: Token) -> Int {
    inner < token.offsets.count ? token.offsets[inner] : token.end - (token.quote == nil ? 0 : 1)
  }

  /// The index in a constant template's text of character `literal` of its unescaped text
  /// (`{{` and `}}` are one character each).
  private static func sourceIndex(ofLiteral literal: Int, in text: [Character]) -> Int {
    var k = 0
    var n = 0
    while k < text.count && n < literal {
      k += (text[k] == "{" || text[k] == "}") ? 2 : 1
      n += 1
    }
    return min(k, text.count)
  }
}
