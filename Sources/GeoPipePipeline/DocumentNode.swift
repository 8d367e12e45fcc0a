/// A place in a pipeline file: 1-based line and column, columns counting characters.
public struct TextPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The line, from 1.
  public var line: Int
  /// The column in characters, from 1.
  public var column: Int

  /// Creates a position.
  public init(line: Int, column: Int) {
    self.line = line
    self.column = column
  }

  /// `line L, column C`, for messages that point back at another place.
  public var description: String { "line \(line), column \(column)" }

  /// The position `count` characters further on the same line.
  public func advanced(by count: Int) -> TextPosition {
    TextPosition(line: line, column: column + count)
  }

  /// Earlier in the file.
  public static func < (a: TextPosition, b: TextPosition) -> Bool {
    (a.line, a.column) < (b.line, b.column)
  }
}

/// A node of a parsed pipeline file, YAML or JSON, with the place it starts.
///
/// Scalars keep their text as written: pipeline checking types them by the stage's option
/// table, never by YAML's guesses (`NO` stays the text "NO", `007` stays "007").
public struct DocumentNode: Sendable {
  /// What the node holds.
  public enum Content: Sendable {
    /// A scalar's text; `quoted` for quoted and block scalars, which are always text.
    case scalar(String, quoted: Bool)
    /// A mapping's entries in order.
    case mapping([DocumentEntry])
    /// A sequence's items in order.
    case sequence([DocumentNode])
  }

  /// What the node holds.
  public var content: Content
  /// Where the node starts (a quoted scalar: its opening quote).
  public var position: TextPosition
  /// Whether a mapping or sequence is written in flow style (`{a: 1}`, `[a, b]`).
  public var isFlow: Bool

  /// Creates a node.
  public init(_ content: Content, at position: TextPosition, isFlow: Bool = false) {
    self.content = content
    self.position = position
    self.isFlow = isFlow
  }

  /// Whether the node is a sequence (`[a, b]`).
  public var isSequence: Bool {
    if case .sequence = content { true } else { false }
  }

  /// The text of a scalar, nil for mappings and sequences.
  public var scalarText: String? {
    if case .scalar(let text, _) = content { text } else { nil }
  }

  /// Whether the node is a YAML null: an empty plain scalar, `~` or `null`.
  public var isNull: Bool {
    guard case .scalar(let text, let quoted) = content, !quoted else { return false }
    return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
  }

  /// Where a scalar's text starts: after the opening quote of a quoted scalar.
  public var textPosition: TextPosition {
    if case .scalar(_, true) = content, isQuotedInline { return position.advanced(by: 1) }
    return position
  }

  /// Set for scalars in single or double quotes (not block scalars).
  var isQuotedInline = false

  /// Whether the node is a literal (`|`) or folded (`>`) block scalar.
  var isBlockScalar: Bool {
    if case .scalar(_, true) = content { !isQuotedInline } else { false }
  }

  /// The mapping's entries, nil for other nodes.
  public var entries: [DocumentEntry]? {
    if case .mapping(let entries) = content { entries } else { nil }
  }

  /// What kind of node this is, for messages: "a mapping", "a list", "a text".
  public var kindDescription: String {
    switch content {
    case .scalar: "a single value"
    case .mapping: "a mapping"
    case .sequence: "a list"
    }
  }
}

/// One `key: value` of a mapping.
public struct DocumentEntry: Sendable {
  /// The key node (a scalar in every valid pipeline file).
  public var key: DocumentNode
  /// The value node.
  public var value: DocumentNode

  /// The key's text, or "" when the key is not a scalar.
  public var name: String { key.scalarText ?? "" }
}
