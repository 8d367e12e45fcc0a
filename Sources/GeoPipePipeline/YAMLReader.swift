internal import CYAML

/// Reads YAML (and JSON, which is YAML's flow style) into document nodes with libyaml's event
/// parser (`yaml_parser_parse`).
///
/// Keys repeated within one mapping are reported, each at the repeated key; anchors and aliases
/// are resolved by copying the anchored node.
enum YAMLReader {
  /// Parses one document.
  ///
  /// A syntax error ends the parse and is the only problem reported.
  static func read(_ bytes: [UInt8]) -> (root: DocumentNode?, problems: [DocumentProblem]) {
    var parser = yaml_parser_t()
    guard yaml_parser_initialize(&parser) != 0 else {
      return (nil, [DocumentProblem("out of memory", at: TextPosition(line: 1, column: 1))])
    }
    defer { yaml_parser_delete(&parser) }
    var builder = DocumentBuilder()
    return bytes.withUnsafeBufferPointer { buffer in
      yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
      var documents = 0
      while true {
        var event = yaml_event_t()
        guard yaml_parser_parse(&parser, &event) != 0 else {
          return (nil, [syntaxProblem(parser, bytes: buffer)])
        }
        defer { yaml_event_delete(&event) }
        let position = TextPosition(
          line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        let opens =
          event.type == YAML_SEQUENCE_START_EVENT || event.type == YAML_MAPPING_START_EVENT
        if opens && !builder.fits(height: 1) { return (nil, [tooDeep(at: position)]) }
        switch event.type {
        case YAML_STREAM_END_EVENT:
          return (builder.root, builder.problems)
        case YAML_DOCUMENT_START_EVENT:
          documents += 1
          if documents > 1 {
            return (
              nil,
              [
                DocumentProblem(
                  "a pipeline file holds one YAML document; found a second", at: position)
              ]
            )
          }
        case YAML_SCALAR_EVENT:
          let scalar = event.data.scalar
          let text = String(
            decoding: UnsafeBufferPointer(start: scalar.value, count: Int(scalar.length)),
            as: UTF8.self)
          let quoted = scalar.style != YAML_PLAIN_SCALAR_STYLE
          var node = DocumentNode(.scalar(text, quoted: quoted), at: position)
          node.isQuotedInline =
            scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE
            || scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE
          builder.add(node, anchor: string(scalar.anchor))
        case YAML_SEQUENCE_START_EVENT:
          let flow = event.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
          builder.open(
            DocumentNode(.sequence([]), at: position, isFlow: flow),
            anchor: string(event.data.sequence_start.anchor))
        case YAML_MAPPING_START_EVENT:
          let flow = event.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
          builder.open(
            DocumentNode(.mapping([]), at: position, isFlow: flow),
            anchor: string(event.data.mapping_start.anchor))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
          builder.close()
        case YAML_ALIAS_EVENT:
          let name = string(event.data.alias.anchor) ?? ""
          if let anchored = builder.anchors[name] {
            guard builder.fits(height: anchored.height) else {
              return (nil, [tooDeep(at: position)])
            }
            builder.add(anchored.node, anchor: nil, height: anchored.height)
          } else {
            builder.problems.append(DocumentProblem("unknown alias '*\(name)'", at: position))
            builder.add(DocumentNode(.scalar("", quoted: false), at: position), anchor: nil)
          }
        default:
          break
        }
      }
    }
  }

  private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
    guard let pointer else { return nil }
    return String(cString: pointer)
  }

  private static func tooDeep(at position: TextPosition) -> DocumentProblem {
    DocumentProblem(
      "nesting deeper than \(DocumentBuilder.maxDepth) levels of mappings and lists",
      at: position)
  }

  private static func syntaxProblem(_ parser: yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>)
    -> DocumentProblem
  {
    let problem = parser.problem.map { String(cString: $0) } ?? "syntax error"
    let context = parser.context.map { String(cString: $0) }
    let mark = parser.problem_mark
    if let tab = firstTab(in: bytes, line: Int(mark.line) + 1) {
      return DocumentProblem(
        "a tab character here: YAML indents with spaces only; replace the tab with spaces",
        at: tab)
    }
    var message = "YAML syntax error: \(problem)"
    if let context {
      let at = TextPosition(
        line: Int(parser.context_mark.line) + 1, column: Int(parser.context_mark.column) + 1)
      message += " (\(context) at \(at))"
    }
    return DocumentProblem(
      message, at: TextPosition(line: Int(mark.line) + 1, column: Int(mark.column) + 1))
  }
}

/// Where the first tab of a line's leading white space is, if it has one.
///
/// libyaml rejects a tab where YAML expects indentation with a message of its own ("found
/// character that cannot start any token"); a tab is the usual cause of such an error.
private func firstTab(in bytes: UnsafeBufferPointer<UInt8>, line: Int) -> TextPosition? {
  var current = 1
  var k = 0
  while current < line, k < bytes.count {
    if bytes[k] == 0x0A { current += 1 }
    k += 1
  }
  guard current == line else { return nil }
  var column = 1
  while k < bytes.count, bytes[k] == 0x20 || bytes[k] == 0x09 || bytes[k] == UInt8(ascii: "-") {
    if bytes[k] == 0x09 { return TextPosition(line: line, column: column) }
    column += 1
    k += 1
  }
  return nil
}

/// Assembles nodes from parser events.
///
/// Each open mapping or sequence keeps its children in its own frame until it closes, so adding
/// a child never copies its siblings, and a mapping finds repeated keys through a dictionary:
/// building is linear in the size of the file. Nesting is limited to `maxDepth` levels, so that
/// neither building, checking nor freeing the nodes can recurse without bound.
private struct DocumentBuilder {
  /// The deepest nesting of mappings and sequences accepted, as in the JSON readers.
  static let maxDepth = 512

  private struct Frame {
    var node: DocumentNode
    var anchor: String?
    var items: [DocumentNode] = []
    var entries: [DocumentEntry] = []
    var keys: [String: TextPosition] = [:]
    var pendingKey: DocumentNode?
    var height = 1
  }

  private var stack: [Frame] = []
  private(set) var root: DocumentNode?
  /// Anchored nodes with their height (levels of nesting they hold).
  private(set) var anchors: [String: (node: DocumentNode, height: Int)] = [:]
  var problems: [DocumentProblem] = []

  /// How many mappings and sequences are open.
  var depth: Int { stack.count }

  /// Whether a node `height` levels deep can be added at the current depth.
  func fits(height: Int) -> Bool { stack.count + height <= Self.maxDepth }

  mutating func open(_ node: DocumentNode, anchor: String?) {
    stack.append(Frame(node: node, anchor: anchor))
  }

  mutating func close() {
    guard var top = stack.popLast() else { return }
    switch top.node.content {
    case .sequence: top.node.content = .sequence(top.items)
    case .mapping: top.node.content = .mapping(top.entries)
    case .scalar: break
    }
    add(top.node, anchor: top.anchor, height: top.height)
  }

  mutating func add(_ node: DocumentNode, anchor: String?, height: Int = 0) {
    if let anchor { anchors[anchor] = (node, height) }
    guard !stack.isEmpty else {
      root = node
      return
    }
    let k = stack.count - 1
    stack[k].height = max(stack[k].height, height + 1)
    switch stack[k].node.content {
    case .sequence:
      stack[k].items.append(node)
    case .mapping:
      if let key = stack[k].pendingKey {
        if let name = key.scalarText {
          if let first = stack[k].keys[name] {
            problems.append(
              DocumentProblem("duplicate key '\(name)' (first at \(first))", at: key.position))
          } else {
            stack[k].keys[name] = key.position
          }
        }
        stack[k].entries.append(DocumentEntry(key: key, value: node))
        stack[k].pendingKey = nil
      } else {
        stack[k].pendingKey = node
      }
    case .scalar:
      break
    }
  }
}

/// Something wrong in a pipeline file, with where it is.
public struct DocumentProblem: Sendable, Equatable {
  /// What is wrong.
  public var message: String
  /// Where.
  public var position: TextPosition

  /// Creates a problem.
  public init(_ message: String, at position: TextPosition) {
    self.message = message
    self.position = position
  }
}
