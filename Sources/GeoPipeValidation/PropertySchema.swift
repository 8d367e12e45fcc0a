import GeoPipeCore
import GeoPipeIO

/// Property rules from a JSON Schema file: the subset of draft 2020-12 that `validate`
/// documents (`type`, `required`, `properties`, `enum`, `minimum`, `maximum`, `pattern`), plus
/// `x-unique` (no two features of a file share the value).
///
/// The schema describes a feature's `properties` object. Unsupported keywords are refused
/// rather than silently ignored, so a schema never seems to check more than it does.
public final class PropertySchema {
  /// Properties whose values must be unique within a file (`"x-unique": true`).
  public let uniqueKeys: [String]

  private let root: Node
  private let file: String

  /// One schema object.
  struct Node {
    var types: [String]?
    var required: [String] = []
    var properties: [(key: String, node: Node)] = []
    var enumeration: [JSONValue]?
    var minimum: Double?
    var maximum: Double?
    var pattern: (text: String, regex: Regex<AnyRegexOutput>)?
    var unique = false
  }

  static let typeNames = ["string", "number", "integer", "boolean", "null", "object", "array"]
  static let annotations: Set<String> = [
    "$schema", "$id", "$comment", "title", "description", "examples", "default",
  ]

  /// Reads a schema file; errors name the file and say what is not supported.
  public convenience init(contentsOf path: String) throws {
    try self.init(try JSONText.parse(contentsOf: path), file: path)
  }

  /// Reads a schema from a parsed JSON value; `file` names it in errors.
  public init(_ value: JSONValue, file: String) throws {
    self.file = file
    root = try Self.node(value, path: "the schema", file: file)
    uniqueKeys = root.properties.filter(\.node.unique).map(\.key)
  }

  /// Messages for each rule the properties break, in schema order.
  public func problems(in properties: JSONObject?) -> [String] {
    var messages: [String] = []
    Self.check(.object(properties ?? JSONObject()), against: root, name: nil, into: &messages)
    return messages
  }

  // MARK: Checking

  private static func check(
    _ value: JSONValue, against node: Node, name: String?, into messages: inout [String]
  ) {
    let subject = name.map { "property \"\($0)\"" } ?? "properties"
    if let types = node.types, !types.contains(where: { matches(value, type: $0) }) {
      messages.append(
        "\(subject) is \(describe(value)), expected \(types.joined(separator: " or "))")
      return
    }
    if let allowed = node.enumeration, !allowed.contains(where: { equal($0, value) }) {
      let list = allowed.map(render).joined(separator: ", ")
      messages.append("\(subject) is \(render(value)), not one of \(list)")
    }
    if let number = value.numberValue {
      if let minimum = node.minimum, number < minimum {
        messages.append(
          "\(subject) is \(render(value)), below the minimum \(PropertySchema.text(minimum))")
      }
      if let maximum = node.maximum, number > maximum {
        messages.append(
          "\(subject) is \(render(value)), above the maximum \(PropertySchema.text(maximum))")
      }
    }
    if let pattern = node.pattern, case .string(let text) = value,
      (try? pattern.regex.firstMatch(in: text)) == nil
    {
      messages.append(
        "\(subject) is \(render(value)), which does not match \(render(.string(pattern.text)))")
    }
    if case .object(let object) = value {
      for key in node.required where object[key] == nil {
        messages.append("required property \"\(key)\" is missing")
      }
      for (key, child) in node.properties {
        guard let member = object[key] else { continue }
        check(member, against: child, name: key, into: &messages)
      }
    }
  }

  static func matches(_ value: JSONValue, type: String) -> Bool {
    switch (type, value) {
    case ("string", .string), ("boolean", .bool), ("null", .null), ("object", .object),
      ("array", .array):
      true
    case ("number", .integer), ("number", .double), ("number", .bigInteger),
      ("number", .bigNumber):
      true
    case ("integer", .integer), ("integer", .bigInteger): true
    case ("integer", .double(let d)): d == d.rounded(.towardZero) && d.isFinite
    default: false
    }
  }

  /// JSON equality, where 1 and 1.0 are the same number.
  static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
    if let x = a.numberValue, let y = b.numberValue { return x == y }
    return a == b
  }

  private static func describe(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool: "a boolean"
    case .integer, .bigInteger: "an integer"
    case .double, .bigNumber: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  static func render(_ value: JSONValue) -> String {
    var writer = JSONTextWriter()
    writer.writeValue(value)
    let text = String(decoding: writer.bytes, as: UTF8.self)
    return text.count > 60 ? String(text.prefix(57)) + "..." : text
  }

  static func text(_ number: Double) -> String {
    number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
  }

  // MARK: Reading

  private static func node(_ value: JSONValue, path: String, file: String) throws -> Node {
    func fail(_ message: String) -> GeoPipeError {
      GeoPipeError.usage("\(file): \(path): \(message)")
    }
    guard case .object(let object) = value else {
      if case .bool(true) = value { return Node() }
      throw fail("a schema must be an object")
    }
    var node = Node()
    for member in object {
      let value = member.value
      switch member.key {
      case "type":
        let names: [String]
        switch value {
        case .string(let name): names = [name]
        case .array(let items): names = items.compactMap(\.stringValue)
        default: throw fail("\"type\" must be a type name or an array of them")
        }
        if let unknown = names.first(where: { !typeNames.contains($0) }) {
          throw fail("unknown type \"\(unknown)\" (use \(typeNames.joined(separator: ", ")))")
        }
        node.types = names
      case "required":
        guard case .array(let items) = value, items.allSatisfy({ $0.stringValue != nil }) else {
          throw fail("\"required\" must be an array of property names")
        }
        node.required = items.compactMap(\.stringValue)
      case "properties":
        guard case .object(let children) = value else {
          throw fail("\"properties\" must be an object")
        }
        for child in children {
          node.properties.append(
            (child.key, try Self.node(child.value, path: "property \"\(child.key)\"", file: file)))
        }
      case "enum":
        guard case .array(let items) = value else { throw fail("\"enum\" must be an array") }
        node.enumeration = items
      case "minimum", "maximum":
        guard let number = value.numberValue else {
          throw fail("\"\(member.key)\" must be a number")
        }
        if member.key == "minimum" { node.minimum = number } else { node.maximum = number }
      case "pattern":
        guard case .string(let text) = value else { throw fail("\"pattern\" must be a string") }
        do {
          node.pattern = (text, try Regex(text))
        } catch {
          throw fail("\"pattern\" is not a regular expression: \(error)")
        }
      case "x-unique":
        guard case .bool(let flag) = value else { throw fail("\"x-unique\" must be true or false") }
        node.unique = flag
      default:
        guard annotations.contains(member.key) else {
          throw fail(
            "\"\(member.key)\" is not supported; validate understands type, required, "
              + "properties, enum, minimum, maximum, pattern and x-unique (see docs/validate.md)")
        }
      }
    }
    return node
  }
}
