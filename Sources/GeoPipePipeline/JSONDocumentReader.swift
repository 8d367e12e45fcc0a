/// Reads a JSON pipeline file into document nodes, with positions, as `YAMLReader` does for
/// YAML (libyaml follows YAML 1.1 and rejects common JSON, such as tab indentation).
///
/// Scalars keep their text: strings are quoted scalars, numbers, `true`, `false` and `null`
/// plain ones. A repeated key is reported at the repeated key.
struct JSONDocumentReader {
  private let chars: [Character]
  private var index = 0
  private var line = 1
  private var column = 1
  private var problems: [DocumentProblem] = []
  private var depth = 0

  /// The deepest nesting of objects and arrays accepted, as in the YAML and GeoJSON readers.
  static let maxDepth = 512

  /// Parses `text`; a syntax error ends the parse and is the last problem reported.
  static func read(_ text: String) -> (root: DocumentNode?, problems: [DocumentProblem]) {
    var reader = JSONDocumentReader(chars: Array(text))
    do throws(DocumentProblem) {
      reader.skipSpace()
      let root = try reader.value()
      reader.skipSpace()
      if reader.index < reader.chars.count {
        throw reader.problem("unexpected text after the JSON value")
      }
      return (root, reader.problems)
    } catch {
      return (nil, reader.problems + [error])
    }
  }

  private init(chars: [Character]) {
    self.chars = chars
    if chars.first == "\u{FEFF}" { index = 1 }
  }

  private var position: TextPosition { TextPosition(line: line, column: column) }

  private var tooDeep: DocumentProblem {
    DocumentProblem(
      "nesting deeper than \(Self.maxDepth) levels of objects and arrays", at: position)
  }

  private func problem(_ message: String) -> DocumentProblem {
    DocumentProblem("JSON syntax error: \(message)", at: position)
  }

  private mutating func advance() {
    if chars[index] == "\n" {
      line += 1
      column = 1
    } else {
      column += 1
    }
    index += 1
  }

  private mutating func skipSpace() {
    while index < chars.count,
      chars[index] == " " || chars[index] == "\t" || chars[index] == "\n"
        || chars[index] == "\r" || chars[index] == "\r\n"
    {
      if chars[index] == "\r\n" {
        line += 1
        column = 1
        index += 1
      } else {
        advance()
      }
    }
  }

  private mutating func expect(_ c: Character, _ what: String) throws(DocumentProblem) {
    skipSpace()
    guard index < chars.count, chars[index] == c else { throw problem("expected \(what)") }
    advance()
  }

  private mutating func value() throws(DocumentProblem) -> DocumentNode {
    guard index < chars.count else { throw problem("unexpected end of file") }
    let start = position
    switch chars[index] {
    case "{":
      depth += 1
      defer { depth -= 1 }
      guard depth <= Self.maxDepth else { throw tooDeep }
      advance()
      var entries: [DocumentEntry] = []
      var keys: [String: TextPosition] = [:]
      skipSpace()
      if index < chars.count, chars[index] == "}" {
        advance()
        return DocumentNode(.mapping([]), at: start, isFlow: true)
      }
      while true {
        skipSpace()
        guard index < chars.count, chars[index] == "\"" else {
          throw problem("expected a quoted key")
        }
        let key = try string()
        let name = key.scalarText ?? ""
        if let first = keys[name] {
          problems.append(
            DocumentProblem("duplicate key '\(name)' (first at \(first))", at: key.position))
        } else {
          keys[name] = key.position
        }
        try expect(":", "':' after a key")
        skipSpace()
        entries.append(DocumentEntry(key: key, value: try value()))
        skipSpace()
        guard index < chars.count else { throw problem("unexpected end of file in an object") }
        if chars[index] == "}" {
          advance()
          return DocumentNode(.mapping(entries), at: start, isFlow: true)
        }
        try expect(",", "',' or '}'")
      }
    case "[":
      depth += 1
      defer { depth -= 1 }
      guard depth <= Self.maxDepth else { throw tooDeep }
      advance()
      var items: [DocumentNode] = []
      skipSpace()
      if index < chars.count, chars[index] == "]" {
        advance()
        return DocumentNode(.sequence([]), at: start, isFlow: true)
      }
      while true {
        skipSpace()
        items.append(try value())
        skipSpace()
        guard index < chars.count else { throw problem("unexpected end of file in an array") }
        if chars[index] == "]" {
          advance()
          return DocumentNode(.sequence(items), at: start, isFlow: true)
        }
        try expect(",", "',' or ']'")
      }
    case "\"":
      return try string()
    default:
      var text = ""
      while index < chars.count,
        chars[index].isLetter || chars[index].isNumber
          || "+-.".contains(chars[index])
      {
        text.append(chars[index])
        advance()
      }
      let isNumber =
        text.first.map { $0 == "-" || $0.isNumber } == true && Double(text) != nil
      guard text == "true" || text == "false" || text == "null" || isNumber else {
        column = start.column
        line = start.line
        throw problem(text.isEmpty ? "expected a value" : "'\(text)' is not a JSON value")
      }
      return DocumentNode(.scalar(text, quoted: false), at: start)
    }
  }

  private mutating func string() throws(DocumentProblem) -> DocumentNode {
    let start = position
    advance()
    var text = ""
    while true {
      guard index < chars.count, chars[index] != "\n" else {
        throw problem("unterminated string")
      }
      let c = chars[index]
      advance()
      if c == "\"" { break }
      guard c == "\\" else {
        text.append(c)
        continue
      }
      guard index < chars.count else { throw problem("unterminated string") }
      let e = chars[index]
      advance()
      switch e {
      case "\"", "\\", "/": text.append(e)
      case "b": text.append("\u{8}")
      case "f": text.append("\u{C}")
      case "n": text.append("\n")
      case "r": text.append("\r")
      case "t": text.append("\t")
      case "u":
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar), index + 1 < chars.count, chars[index] == "\\",
          chars[index + 1] == "u"
        {
          advance()
          advance()
          let low = try hex4()
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        text.unicodeScalars.append(Unicode.Scalar(scalar) ?? "\u{FFFD}")
      default:
        throw problem("invalid escape '\\\(e)'")
      }
    }
    var node = DocumentNode(.scalar(text, quoted: true), at: start)
    node.isQuotedInline = true
    return node
  }

  private mutating func hex4() throws(DocumentProblem) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard index < chars.count, let digit = chars[index].hexDigitValue else {
        throw problem("invalid \\u escape")
      }
      value = value * 16 + UInt32(digit)
      advance()
    }
    return value
  }
}

extension DocumentProblem: Error {}
