import GeoPipeCore

/// GeoParquet's native encodings of lines and polygons (GeoArrow's separated layout): each
/// coordinate a struct of `x`, `y` (and `z`, `m`) doubles, nested in one list (`linestring`,
/// `multipoint`), two (`polygon`, `multilinestring`) or three (`multipolygon`).
///
/// The coordinate leaves' repetition and definition levels give the nesting (Dremel's record
/// assembly): a repetition level `r` starts a new element of the list at depth `r` (0: a new
/// row), and a definition level below a list's own leaves that list empty (or null, read as
/// empty) and holds no value.
enum GeoArrowColumns {
  /// The lists around each coordinate in an encoding; nil for an encoding that is not nested
  /// lists of coordinates.
  static func depth(_ encoding: String) -> Int? {
    switch encoding {
    case "linestring", "multipoint": 1
    case "polygon", "multilinestring": 2
    case "multipolygon": 3
    default: nil
    }
  }

  /// One row's coordinates: a list, or lists of lists, of coordinate numbers.
  indirect enum Nested {
    case coordinate(Int)
    case list([Nested])
  }

  /// Every row's geometry (nil for a null one) of `field`, a column in `encoding`.
  static func geometries(
    _ field: SchemaNode, encoding: String, rows: Int, columns: [Int: DecodedColumn]
  ) throws(ParquetError) -> [Geometry?] {
    guard let depth = depth(encoding) else {
      throw ParquetError("the \(encoding) encoding is not a GeoArrow list encoding")
    }
    func leaf(_ name: String) -> SchemaNode? { field.leaves.first { $0.name == name } }
    guard let xLeaf = leaf("x"), let yLeaf = leaf("y"), let xIndex = xLeaf.leaf,
      let yIndex = yLeaf.leaf, let x = columns[xIndex], let y = columns[yIndex]
    else {
      throw ParquetError("a \(encoding) column needs x and y coordinate fields")
    }
    let repeated = repeatedNodes(from: field, to: xLeaf)
    guard repeated.count == depth else {
      throw ParquetError(
        "a \(encoding) column nests its coordinates in \(depth) lists, this one in "
          + "\(repeated.count)")
    }
    guard x.repetitionLevels == y.repetitionLevels, x.definitionLevels == y.definitionLevels
    else { throw ParquetError("the x and y fields of a \(encoding) column do not line up") }
    let xs = try numbers(x.values)
    let ys = try numbers(y.values)
    var zs: [Double]?
    if let zIndex = leaf("z")?.leaf, let z = columns[zIndex] { zs = try numbers(z.values) }
    guard xs.count == ys.count, zs == nil || zs?.count == xs.count else {
      throw ParquetError("the coordinate fields of a \(encoding) column differ in length")
    }
    let rowsNested = try assemble(
      x, rows: rows, present: UInt32(field.definitionLevel),
      elements: repeated.map { UInt32($0.definitionLevel) }, value: UInt32(xLeaf.definitionLevel))
    func coordinates(_ nested: [Nested]) -> CoordinateArray {
      var storage: [Double] = []
      let dimension = zs == nil ? 2 : 3
      storage.reserveCapacity(nested.count * dimension)
      for case .coordinate(let k) in nested {
        storage.append(xs[k])
        storage.append(ys[k])
        if let zs { storage.append(zs[k]) }
      }
      return CoordinateArray(storage: storage, dimension: dimension)
    }
    func lists(_ nested: [Nested]) -> [[Nested]] {
      nested.map { if case .list(let inner) = $0 { inner } else { [] } }
    }
    return rowsNested.map { row -> Geometry? in
      guard let row else { return nil }
      switch encoding {
      case "linestring": return .lineString(coordinates(row))
      case "multipoint": return .multiPoint(coordinates(row))
      case "polygon": return .polygon(lists(row).map(coordinates))
      case "multilinestring": return .multiLineString(lists(row).map(coordinates))
      default: return .multiPolygon(lists(row).map { lists($0).map(coordinates) })
      }
    }
  }

  /// The repeated nodes on the path from `field` down to `leaf`, outermost first.
  static func repeatedNodes(from field: SchemaNode, to leaf: SchemaNode) -> [SchemaNode] {
    var result: [SchemaNode] = []
    var node = field
    while node.leaf == nil {
      if node.isRepeated { result.append(node) }
      guard
        let next = node.children.first(where: { child in
          child.leaf == leaf.leaf || child.leaves.contains { $0.leaf == leaf.leaf }
        })
      else { break }
      node = next
    }
    if node.isRepeated { result.append(node) }
    return result
  }

  /// Rows of nested lists from a coordinate leaf's levels: `present` is the definition level
  /// at which a row's geometry is not null, `elements[k]` the one at which the list at depth
  /// `k + 1` has an element, `value` the one at which a coordinate is there.
  static func assemble(
    _ column: DecodedColumn, rows: Int, present: UInt32, elements: [UInt32], value: UInt32
  ) throws(ParquetError) -> [[Nested]?] {
    let depth = elements.count
    var result: [[Nested]?] = []
    result.reserveCapacity(rows)
    // The open lists, outermost first; nil while the row is null.
    var stack: [[Nested]]?
    func finishRow() {
      guard var open = stack else { return }
      while open.count > 1 {
        let inner = open.removeLast()
        open[open.count - 1].append(.list(inner))
      }
      result.append(open[0])
      stack = nil
    }
    var nullRow = false
    var next = 0
    let definitions = column.definitionLevels
    let repetitions = column.repetitionLevels
    guard definitions.count == repetitions.count else {
      throw ParquetError("a GeoArrow column's levels differ in number")
    }
    for (r, d) in zip(repetitions, definitions) {
      if r == 0 {
        if nullRow { result.append(nil) }
        finishRow()
        nullRow = d < present
        if nullRow { continue }
        stack = [[]]
      } else {
        guard var open = stack, Int(r) <= open.count else {
          throw ParquetError("a repetition level of \(r) where no list is open")
        }
        while open.count > Int(r) {
          let inner = open.removeLast()
          open[open.count - 1].append(.list(inner))
        }
        stack = open
      }
      // Descend: each deeper list starts here, while the levels say it has an element.
      var k = stack?.count ?? 0
      guard k > 0, d >= elements[k - 1] else { continue }
      while k < depth {
        stack?.append([])
        k += 1
        if d < elements[k - 1] { break }
      }
      if k == depth && d >= elements[depth - 1] && d >= value {
        stack?[depth - 1].append(.coordinate(next))
        next += 1
      }
    }
    if nullRow { result.append(nil) }
    finishRow()
    guard result.count == rows else {
      throw ParquetError("a GeoArrow column has \(result.count) rows, the row group \(rows)")
    }
    return result
  }

  private static func numbers(_ values: ColumnValues) throws(ParquetError) -> [Double] {
    switch values {
    case .doubles(let doubles): return doubles
    case .floats(let floats): return floats.map(Double.init)
    default: throw ParquetError("GeoArrow coordinates must be DOUBLE")
    }
  }
}
