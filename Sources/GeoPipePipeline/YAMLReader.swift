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
          return (nil, [syntaxProblem(parser)])
        }
        defer { yaml_event_delete(&event) }
        let position = TextPosition(
          line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
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
          if let node = builder.anchors[name] {
            builder.add(node, anchor: nil)
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

  private static func syntaxProblem(_ parser: yaml_parser_t) -> DocumentProblem {
    let problem = parser.problem.map { String(cString: $0) } ?? "syntax error"
    let context = parser.context.map { String(cString: $0) }
    let mark = parser.problem_mark
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

/// Assembles nodes from parser events.
private struct DocumentBuilder {
  var stack: [(node: DocumentNode, anchor: String?, pendingKey: DocumentNode?)] = []
  var root: DocumentNode?
  var anchors: [String: DocumentNode] = [:]
  var problems: [DocumentProblem] = []

  mutating func open(_ node: DocumentNode, anchor: String?) {
    stack.append((node, anchor, nil))
  }

  mutating func close() {
    guard let top = stack.popLast() else { return }
    add(top.node, anchor: top.anchor)
  }

  mutating func add(_ node: DocumentNode, anchor: String?) {
    if let anchor { anchors[anchor] = node }
    guard var top = stack.popLast() else {
      root = node
      return
    }
    switch top.node.content {
    case .sequence(var items):
      items.append(node)
      top.node.content = .sequence(items)
    case .mapping(var entries):
      if let key = top.pendingKey {
        if let name = key.scalarText, let first = entries.first(where: { $0.name == name }) {
          problems.append(
            DocumentProblem(
              "duplicate key '\(name)' (first at \(first.key.position))", at: key.position))
        }
        entries.append(DocumentEntry(key: key, value: node))
        top.node.content = .mapping(entries)
        top.pendingKey = nil
      } else {
        top.pendingKey = node
      }
    case .scalar:
      break
    }
    stack.append(top)
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
