import GeoPipeCore
import GeoPipeIO

/// Reads a GeoParquet (or plain Parquet) file one row group at a time: the primary geometry
/// column's WKB (or GeoArrow coordinate structs, `GeoArrowColumns`) becomes each feature's
/// geometry, the other columns its properties, in schema order.
///
/// With a bounding box, row groups whose covering columns' statistics miss it are not read,
/// and rows whose covering box misses it are dropped before their WKB is decoded. The covering
/// columns themselves are not properties. Memory holds one row group's decoded columns.
public final class GeoParquetReader: FeatureReader {
  private let file: ParquetFile
  private let geo: GeoMetadata?
  /// The top-level fields that become properties, and the one holding geometry.
  private let propertyFields: [SchemaNode]
  private let geometryField: SchemaNode?
  private let geometryEncoding: String
  /// The covering columns' leaf indices (xmin, ymin, xmax, ymax).
  private let covering: [Int]?
  private let bbox: BBox?
  private let checkRanges: Bool
  private let name: String
  private let diagnostics: @Sendable (ReadDiagnostic) -> Void

  private var groupIndex = -1
  /// The row group after the last one read (a shard's share ends before the file's end).
  private var groupLimit = Int.max
  private var rowCount = 0
  private var row = 0
  private var properties: [[JSONValue]] = []
  private var geometries: DecodedColumn?
  private var geometryValues: [JSONValue] = []
  private var boxes: [[Double]] = []
  /// Row groups skipped by their statistics, for tests and `--verbose` notes.
  public private(set) var skippedRowGroups = 0
  /// Row groups read.
  public private(set) var readRowGroups = 0

  /// The CRS the geometry column declares, when not WGS84 longitude/latitude.
  public let declaredCRS: String?
  /// The bytes of the column chunks read so far.
  public var bytesRead: Int { file.bytesRead }
  /// Bad rows are not skipped: a corrupt page makes the rest of its row group unreadable.
  public var skippedCount: Int { 0 }
  /// Parquet has no collection members.
  public var collectionMembers: JSONObject { JSONObject() }

  /// Opens a file and reads its footer and `geo` metadata.
  public init(input: FormatInput, options: ReadOptions) throws {
    name = input.name
    let file = try ParquetFile(input: input)
    self.file = file
    let geo = try file.keyValue("geo").map { try GeoMetadata(json: $0, name: input.name) }
    self.geo = geo
    let column = geo.flatMap { $0.columns[$0.primaryColumn] }
    let geometryName = geo?.primaryColumn
    let geometryField = file.schema.fields.first { $0.name == geometryName }
    self.geometryField = geometryField
    if let geometryName, geometryField == nil {
      throw GeoPipeError.data(
        "\(input.name): the 'geo' metadata's primary column \(geometryName) is not in the "
          + "schema", at: nil)
    }
    geometryEncoding = column?.encoding.lowercased() ?? "wkb"
    guard
      ["wkb", "point"].contains(geometryEncoding)
        || GeoArrowColumns.depth(geometryEncoding) != nil
    else {
      throw GeoPipeError.data(
        "\(input.name): column \(geometryName ?? ""): the \(column?.encoding ?? "") encoding "
          + "is not supported (WKB and the GeoArrow point, linestring, polygon, multipoint, "
          + "multilinestring and multipolygon encodings are)", at: nil)
    }
    declaredCRS = column?.crs
    checkRanges = options.checkRanges && column?.crs == nil && column?.crsUndefined != true
    bbox = column?.crs == nil ? options.bbox : nil
    diagnostics = options.diagnostics
    let coveringPaths = column?.covering ?? []
    let leaves = file.schema.leaves
    let coveringLeaves = coveringPaths.compactMap { path in
      leaves.first { $0.path == path }?.leaf
    }
    covering = coveringLeaves.count == 4 ? coveringLeaves : nil
    let coveringTop = Set(coveringPaths.compactMap(\.first))
    let propertyFields = file.schema.fields.filter {
      $0.name != geometryName && !coveringTop.contains($0.name)
    }
    self.propertyFields = propertyFields
    for field in propertyFields {
      do {
        try FieldAssembler.check(field)
      } catch let error as ParquetError {
        throw GeoPipeError.data("\(input.name): column \(field.name): \(error.message)", at: nil)
      }
    }
  }

  /// The layer `geopipe layers` describes.
  var layer: LayerInfo {
    let column = geo.flatMap { $0.columns[$0.primaryColumn] }
    let types = column?.geometryTypes ?? []
    var bounds: BBox?
    if let box = column?.bbox, box.count == 4 || box.count == 6 {
      let half = box.count / 2
      bounds = BBox(west: box[0], south: box[1], east: box[half], north: box[half + 1])
    }
    return LayerInfo(
      name: Self.stem(name),
      geometryType: types.isEmpty ? "Geometry" : types.joined(separator: ", "),
      count: Int(clamping: file.metadata.rowCount), crs: declaredCRS ?? "EPSG:4326",
      fields: propertyFields.map { ($0.name, Self.typeName($0)) }, bounds: bounds)
  }

  /// The next feature, in file order (of the row groups and rows the box may meet).
  public func next() throws -> Feature? {
    while true {
      while row >= rowCount {
        guard try nextRowGroup() else {
          reportSkipped()
          return nil
        }
      }
      let r = row
      row += 1
      if let bbox, !boxes.isEmpty {
        let b = boxes
        let box = BBox(west: b[0][r], south: b[1][r], east: b[2][r], north: b[3][r])
        if !box.isEmpty, !bbox.intersects(box) { continue }
      }
      var members = JSONObject()
      members.reserveCapacity(propertyFields.count)
      for (k, field) in propertyFields.enumerated() {
        members.appendUnchecked(field.name, properties[k][r])
      }
      return Feature(geometry: try geometry(r), properties: members)
    }
  }

  /// The file's row groups.
  public var rowGroupCount: Int { file.metadata.rowGroups.count }

  /// Reads only the row groups of `range` (a shard's share); call before the first `next()`.
  public func restrict(toRowGroups range: Range<Int>) {
    groupIndex = range.lowerBound - 1
    groupLimit = range.upperBound
  }

  /// Notes, once, how many row groups the box let the reader skip.
  private func reportSkipped() {
    guard bbox != nil, !reported else { return }
    reported = true
    let total = file.metadata.rowGroups.count
    diagnostics(
      ReadDiagnostic(
        severity: .note,
        message: "\(name): --bbox read \(readRowGroups) of \(total) row groups "
          + (covering == nil
            ? "(the file has no bbox covering columns to skip them by)"
            : "(\(skippedRowGroups) skipped by their bbox statistics)")))
  }

  private var reported = false

  /// Reads the next row group that may hold features in the box; false at the end.
  private func nextRowGroup() throws -> Bool {
    while true {
      groupIndex += 1
      guard groupIndex < min(groupLimit, file.metadata.rowGroups.count) else { return false }
      let group = file.metadata.rowGroups[groupIndex]
      if let bbox, let covering, let box = statisticsBox(group, covering), !bbox.intersects(box) {
        skippedRowGroups += 1
        continue
      }
      readRowGroups += 1
      rowCount = Int(group.rowCount)
      row = 0
      var wanted = propertyFields.flatMap { $0.leaves.compactMap(\.leaf) }
      if let geometryField { wanted += geometryField.leaves.compactMap(\.leaf) }
      if bbox != nil, let covering { wanted += covering }
      let columns = try file.decode(rowGroup: groupIndex, columns: wanted)
      properties = []
      for field in propertyFields {
        do {
          properties.append(try FieldAssembler.values(field, rows: rowCount, columns: columns))
        } catch let error as ParquetError {
          throw file.chunkError(
            rowGroup: groupIndex, column: field.leaves.first?.leaf ?? 0, error.message)
        }
      }
      boxes = []
      if bbox != nil, let covering {
        boxes = try covering.map { leaf in
          try FieldAssembler.values(file.schema.leaves[leaf], rows: rowCount, columns: columns)
            .map { $0.numberValue ?? .nan }
        }
        // A null box (no geometry) never meets the query box.
        if boxes.contains(where: { $0.count != rowCount }) { boxes = [] }
      }
      geometries = nil
      geometryValues = []
      nativeGeometries = []
      if let geometryField {
        if geometryEncoding == "point" {
          geometryValues = try FieldAssembler.values(
            geometryField, rows: rowCount, columns: columns)
        } else if GeoArrowColumns.depth(geometryEncoding) != nil {
          do {
            nativeGeometries = try GeoArrowColumns.geometries(
              geometryField, encoding: geometryEncoding, rows: rowCount, columns: columns)
          } catch {
            throw file.chunkError(
              rowGroup: groupIndex, column: geometryField.leaves.first?.leaf ?? 0, error.message)
          }
        } else if let leaf = geometryField.leaf {
          geometries = columns[leaf]
        }
      }
      geometryRow = 0
      geometryCursor = 0
      return true
    }
  }

  /// The value index of the geometry of the row before `row` (WKB values skip null rows).
  private var geometryRow = 0

  /// The row group's geometries in a GeoArrow list encoding (linestring … multipolygon).
  private var nativeGeometries: [Geometry?] = []

  private func geometry(_ r: Int) throws -> Geometry? {
    if GeoArrowColumns.depth(geometryEncoding) != nil {
      return r < nativeGeometries.count ? try checked(nativeGeometries[r], row: r) : nil
    }
    if geometryEncoding == "point" {
      guard r < geometryValues.count, case .object(let point) = geometryValues[r],
        let x = point["x"]?.numberValue, let y = point["y"]?.numberValue
      else { return nil }
      return try checked(.point(Position(x: x, y: y, z: point["z"]?.numberValue ?? .nan)), row: r)
    }
    guard let column = geometries, let field = geometryField else { return nil }
    // Rows are visited in order, but some are skipped by the box: catch up the value index.
    if !column.definitionLevels.isEmpty {
      let top = UInt32(field.definitionLevel)
      while geometryCursor < r {
        if column.definitionLevels[geometryCursor] == top { geometryRow += 1 }
        geometryCursor += 1
      }
      guard column.definitionLevels[r] == top else {
        geometryCursor = r + 1
        return nil
      }
      geometryCursor = r + 1
      geometryRow += 1
    } else {
      geometryRow = r + 1
    }
    guard case .bytes(let wkb) = column.values else {
      throw file.chunkError(
        rowGroup: groupIndex, column: field.leaf ?? 0, "a WKB column must be BYTE_ARRAY")
    }
    let index = geometryRow - 1
    do {
      let result = try wkb.withValue(index) { raw in try WKBReader.parse(raw) }
      return try checked(result.geometry, row: r)
    } catch let failure as WKBReader.Failure {
      throw file.chunkError(
        rowGroup: groupIndex, column: field.leaf ?? 0, "row \(r): \(failure.description)")
    }
  }

  private var geometryCursor = 0

  private func checked(_ geometry: Geometry?, row r: Int) throws -> Geometry? {
    guard checkRanges, let geometry else { return geometry }
    var bad: (Double, Double)?
    geometry.forEachXY { x, y in
      if bad == nil, !(-180...180).contains(x) || !(-90...90).contains(y) { bad = (x, y) }
    }
    if let (x, y) = bad {
      throw file.chunkError(
        rowGroup: groupIndex, column: geometryField?.leaves.first?.leaf ?? 0,
        "row \(r): the position \(x), \(y) is not longitude/latitude: give the file's CRS "
          + "with --crs")
    }
    return geometry
  }

  /// A row group's box from its covering columns' statistics, when all four have them.
  private func statisticsBox(_ group: RowGroup, _ covering: [Int]) -> BBox? {
    func stat(_ k: Int, min: Bool) -> Double? {
      let meta = group.columns[covering[k]]
      guard let bytes = min ? meta.statistics?.min : meta.statistics?.max else { return nil }
      switch (meta.type, bytes.count) {
      case (.double, 8):
        return Double(
          bitPattern: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }.littleEndian)
      case (.float, 4):
        return Double(
          Float(
            bitPattern: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }.littleEndian))
      default: return nil
      }
    }
    guard let west = stat(0, min: true), let south = stat(1, min: true),
      let east = stat(2, min: false), let north = stat(3, min: false)
    else { return nil }
    return BBox(west: west, south: south, east: east, north: north)
  }

  private static func typeName(_ field: SchemaNode) -> String {
    if field.isGroup { return field.logicalType == .list ? "list" : "struct" }
    switch field.logicalType {
    case .string?, .enumeration?: return "string"
    case .json?: return "json"
    case .date?: return "date"
    case .timestamp?: return "timestamp"
    case .time?: return "time"
    case .decimal?: return "decimal"
    default: break
    }
    switch field.element.type {
    case .boolean?: return "boolean"
    case .int32?, .int64?: return "integer"
    case .float?, .double?: return "number"
    default: return "binary"
    }
  }

  private static func stem(_ name: String) -> String {
    var base = Substring(name)
    if let slash = base.lastIndex(of: "/") { base = base[base.index(after: slash)...] }
    if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = base[..<dot] }
    return String(base)
  }
}
