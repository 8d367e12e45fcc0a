/// A node of a Parquet schema: a field, with its children when it is a group.
///
/// The footer holds the tree flattened depth first; the definition and repetition levels of a
/// node count its optional and repeated ancestors (and itself), as the Dremel encoding does.
struct SchemaNode {
  var element: SchemaElement
  var children: [SchemaNode] = []
  /// The highest definition level of a value here (optional or repeated nodes on the path).
  var definitionLevel = 0
  /// The highest repetition level (repeated nodes on the path).
  var repetitionLevel = 0
  /// For a leaf, its column's index among the leaves.
  var leaf: Int?
  /// The dotted path from the root's child (`bbox.xmin`).
  var path: [String] = []

  var name: String { element.name }
  var isOptional: Bool { element.repetition == 1 }
  var isRepeated: Bool { element.repetition == 2 }
  var isGroup: Bool { element.type == nil }

  /// The logical type, from `LogicalType` or the older `ConvertedType`.
  var logicalType: LogicalType? {
    if let logical = element.logicalType, logical != .unknown { return logical }
    guard let converted = element.convertedType else { return nil }
    return LogicalType(
      converted: converted, scale: element.scale, precision: element.precision)
  }

  /// The leaves under this node, depth first.
  var leaves: [SchemaNode] {
    isGroup ? children.flatMap(\.leaves) : [self]
  }
}

/// The schema tree and its leaf columns.
struct ParquetSchema {
  /// The root's children: the top-level fields.
  var fields: [SchemaNode]
  /// The leaf columns, in the order of the row groups' column chunks.
  var leaves: [SchemaNode]

  /// Builds the tree from the footer's flattened elements.
  init(_ elements: [SchemaElement]) throws {
    guard let root = elements.first else { throw ParquetError("the schema is empty") }
    var next = 1
    var leafCount = 0
    func build(_ element: SchemaElement, def: Int, rep: Int, path: [String], depth: Int) throws
      -> SchemaNode
    {
      guard depth < 64 else { throw ParquetError("the schema nests too deep") }
      var node = SchemaNode(element: element)
      node.definitionLevel = def + (element.repetition != 0 ? 1 : 0)
      node.repetitionLevel = rep + (element.repetition == 2 ? 1 : 0)
      node.path = path + [element.name]
      if element.type == nil {
        guard element.childCount > 0 else {
          throw ParquetError("the group \(node.path.joined(separator: ".")) has no fields")
        }
        for _ in 0..<element.childCount {
          guard next < elements.count else {
            throw ParquetError("the schema ends inside \(node.path.joined(separator: "."))")
          }
          let child = elements[next]
          next += 1
          node.children.append(
            try build(
              child, def: node.definitionLevel, rep: node.repetitionLevel, path: node.path,
              depth: depth + 1))
        }
      } else {
        node.leaf = leafCount
        leafCount += 1
      }
      return node
    }
    var fields: [SchemaNode] = []
    for _ in 0..<root.childCount {
      guard next < elements.count else { throw ParquetError("the schema ends early") }
      let element = elements[next]
      next += 1
      fields.append(try build(element, def: 0, rep: 0, path: [], depth: 0))
    }
    guard next == elements.count else {
      throw ParquetError("the schema has \(elements.count - next) elements outside its tree")
    }
    self.fields = fields
    leaves = fields.flatMap(\.leaves)
  }
}
