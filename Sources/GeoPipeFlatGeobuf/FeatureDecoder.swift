import GeoPipeCore

/// Decodes a FlatGeobuf feature's bytes (without the size prefix) into a `Feature`.
///
/// A value type, so that each thread decoding features holds its own copy and scratch values.
struct FGBFeatureDecoder: Sendable {
  let geometryType: FGBGeometryType
  /// Whether the header lists the columns; when it does not, a feature may carry its own.
  let headerHasColumns: Bool
  private(set) var columns: [FGBColumn]
  private var names: [String]
  private var values: [JSONValue] = []

  init(header: FGBHeader) {
    geometryType = header.geometryType
    headerHasColumns = !header.columns.isEmpty
    columns = header.columns
    names = columns.map(\.name)
  }

  /// The feature in `bytes`; errors carry offsets within `bytes`.
  mutating func decode(_ bytes: UnsafeRawBufferPointer) throws -> Feature {
    let buffer = FlatBuffer(bytes: bytes)
    let table = try buffer.root()
    var geometry: Geometry?
    if let geometryTable = try table.table(0) {
      geometry = try FGBGeometry.decode(geometryTable, type: geometryType)
    }
    if !headerHasColumns, let vector = try table.vector(2, elementSize: 4) {
      // A feature may carry its own schema when the header has none.
      columns = try (0..<vector.count).map {
        try FGBColumn(decoding: table.table(in: vector, at: $0))
      }
      names = columns.map(\.name)
    }
    var properties = JSONObject()
    if let vector = try table.vector(1, elementSize: 1) {
      properties = try FGBProperties.decode(
        UnsafeRawBufferPointer(rebasing: bytes[vector.start..<vector.start + vector.count]),
        start: vector.start, columns: columns, names: names, into: &values)
    } else if !columns.isEmpty {
      properties = try FGBProperties.decode(
        UnsafeRawBufferPointer(rebasing: bytes[0..<0]), start: 0, columns: columns,
        names: names, into: &values)
    }
    return Feature(geometry: geometry, properties: properties)
  }
}
