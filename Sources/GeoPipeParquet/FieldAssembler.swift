import GeoPipeCore

/// Puts a top-level field's values back together, one JSON value per row, from its leaf
/// columns' levels and values: a flat column as its values, a struct of flat fields as
/// objects, and a list of flat values (the three-level LIST, or a repeated field) as arrays.
///
/// Other nesting (lists of structs or lists, maps) is refused by `check`, naming the column.
enum FieldAssembler {
  /// Throws when `field` nests in a way that is not read.
  static func check(_ field: SchemaNode) throws {
    if isList(field) { return }
    if field.isRepeated || field.logicalType == .keyValueMap || field.logicalType == .list {
      throw unsupported(field)
    }
    for child in field.children {
      if child.isRepeated || child.logicalType == .keyValueMap || child.logicalType == .list {
        throw unsupported(field)
      }
      try check(child)
    }
  }

  /// The field's value in each of `rows` rows, from its leaves' decoded columns.
  static func values(
    _ field: SchemaNode, rows: Int, columns: [Int: DecodedColumn]
  ) throws -> [JSONValue] {
    if isList(field) { return try lists(field, rows: rows, columns: columns) }
    if !field.isGroup {
      return try flat(field, columns: columns).values
    }
    var leaves: [Int: (levels: [UInt32], values: [JSONValue])] = [:]
    for leaf in field.leaves {
      guard let index = leaf.leaf else { continue }
      leaves[index] = try flat(leaf, columns: columns)
    }
    return (0..<rows).map { row in object(field, row: row, leaves: leaves) }
  }

  /// A flat leaf's levels and its value per row (null where it is not defined).
  private static func flat(_ leaf: SchemaNode, columns: [Int: DecodedColumn]) throws -> (
    levels: [UInt32], values: [JSONValue]
  ) {
    guard let index = leaf.leaf, let column = columns[index] else { return ([], []) }
    let values = try ValueConversion.json(column.values, leaf: leaf)
    guard leaf.definitionLevel > 0 else { return ([], values) }
    let top = UInt32(leaf.definitionLevel)
    var out: [JSONValue] = []
    out.reserveCapacity(column.definitionLevels.count)
    var next = 0
    for level in column.definitionLevels {
      if level == top {
        out.append(values[next])
        next += 1
      } else {
        out.append(.null)
      }
    }
    return (column.definitionLevels, out)
  }

  private static func object(
    _ node: SchemaNode, row: Int, leaves: [Int: (levels: [UInt32], values: [JSONValue])]
  ) -> JSONValue {
    guard node.isGroup else {
      guard let index = node.leaf, let leaf = leaves[index], row < leaf.values.count else {
        return .null
      }
      return leaf.values[row]
    }
    if node.isOptional, let first = node.leaves.first?.leaf, let levels = leaves[first]?.levels,
      row < levels.count, levels[row] < UInt32(node.definitionLevel)
    {
      return .null
    }
    var members = JSONObject()
    for child in node.children {
      members.appendUnchecked(child.name, object(child, row: row, leaves: leaves))
    }
    return .object(members)
  }

  /// Whether the field is a list of flat values: `repeated <primitive>`, or a LIST group whose
  /// one repeated child holds (or is) one primitive.
  private static func isList(_ field: SchemaNode) -> Bool {
    let leaves = field.leaves
    guard leaves.count == 1, leaves[0].repetitionLevel == 1 else { return false }
    if field.isRepeated { return !field.isGroup }
    guard field.logicalType == .list, field.children.count == 1 else { return false }
    let repeated = field.children[0]
    return repeated.isRepeated && (!repeated.isGroup || repeated.children.count == 1)
      && repeated.children.allSatisfy { !$0.isGroup }
  }

  private static func lists(
    _ field: SchemaNode, rows: Int, columns: [Int: DecodedColumn]
  ) throws -> [JSONValue] {
    let leaf = field.leaves[0]
    guard let index = leaf.leaf, let column = columns[index] else { return [] }
    let values = try ValueConversion.json(column.values, leaf: leaf)
    let repeatedLevel = UInt32(
      field.isRepeated ? field.definitionLevel : field.children[0].definitionLevel)
    let nullBelow = UInt32(field.isOptional ? field.definitionLevel : 0)
    let top = UInt32(leaf.definitionLevel)
    var out: [JSONValue] = []
    out.reserveCapacity(rows)
    var current: [JSONValue]?
    var isNull = false
    var next = 0
    func close() {
      if let list = current { out.append(isNull ? .null : .array(list)) }
    }
    for k in 0..<column.entryCount {
      let def = column.definitionLevels.isEmpty ? top : column.definitionLevels[k]
      if column.repetitionLevels[k] == 0 {
        close()
        current = []
        isNull = false
      }
      if def < repeatedLevel {
        isNull = def < nullBelow
        continue
      }
      if def == top {
        guard next < values.count else { throw ParquetError("the levels ask for more values") }
        current?.append(values[next])
        next += 1
      } else {
        current?.append(.null)
      }
    }
    close()
    guard out.count == rows else {
      throw ParquetError("the list column holds \(out.count) rows, not \(rows)")
    }
    return out
  }

  private static func unsupported(_ field: SchemaNode) -> ParquetError {
    ParquetError(
      "the column's nesting (a map, or a list of lists or of structs) is not supported: "
        + "flatten it first (DuckDB or pyarrow can)")
  }
}
