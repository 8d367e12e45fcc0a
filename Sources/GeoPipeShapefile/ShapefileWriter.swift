internal import CShapelib
import GeoPipeCore
import GeoPipeIO

/// Writes features as shapefiles through shapelib: one file set (`.shp`, `.shx`, `.dbf`,
/// `.prj`, `.cpg`) per geometry type.
///
/// Features wait in a scratch file, so that the fields' types and widths and the files' sizes
/// are known before anything is written; then each set is written in one pass, and all files
/// are committed together (an error leaves none).
final class ShapefileWriter: FeatureWriter {
  /// The geometry types a shapefile holds one of.
  enum Category: String, CaseIterable {
    case point, line, polygon

    /// Its mark in the scratch file (0 is no geometry).
    var tag: Int {
      switch self {
      case .point: 1
      case .line: 2
      case .polygon: 3
      }
    }
  }

  private let output: FormatOutput
  private let options: WriteOptions
  private let base: String
  private let only: Category?
  private let truncateStrings: Bool
  private let scratch: ScratchFile
  private var buffer = ScratchBuffer()
  /// Where a number's text is made before it is buffered (reused, not allocated per value).
  private var numberText = JSONTextWriter()
  private var schema = DBaseSchema()
  private var sets: [Category: SetStats] = [:]
  private var firstCategory: Category?
  private var nullCount = 0
  private var featureIndex = 0
  private var dropped: [String: Int] = [:]
  private var outputs: [OutputFile] = []
  // One shape's parts and coordinates while writing, reused from shape to shape.
  private var starts: [Int32] = []
  private var xs: [Double] = []
  private var ys: [Double] = []
  private var zs: [Double] = []

  /// What the features of one file set need.
  private struct SetStats {
    var count = 0
    var hasZ = false
    var multiPoint = false
    /// The `.shp` size, counting M values shapelib may add to Z shapes.
    var shpBytes = 100
  }

  init(output: FormatOutput, options: WriteOptions) throws {
    _ = try output.temporaryPath(for: "Shapefile")
    let lower = output.path.lowercased()
    guard lower.hasSuffix(".shp") else {
      throw GeoPipeError.usage(
        "a shapefile is written as NAME.shp (with NAME.shx, NAME.dbf, NAME.prj and NAME.cpg); "
          + "geopipe does not write zip archives: zip the files afterwards")
    }
    self.output = output
    self.options = options
    base = String(output.path.dropLast(4))
    only = options.formatOptions.string("geometry-type").flatMap(Category.init(rawValue:))
    truncateStrings = options.formatOptions.flag("truncate-strings")
    scratch = try ScratchFile(in: OutputPath.parent(of: output.path), for: output.path)
  }

  func write(_ feature: Feature) throws {
    featureIndex += 1
    let category: Category?
    switch feature.geometry {
    case nil: category = nil
    case .point, .multiPoint: category = .point
    case .lineString, .multiLineString: category = .line
    case .polygon, .multiPolygon: category = .polygon
    case .geometryCollection:
      if only != nil {
        dropped["GeometryCollection", default: 0] += 1
        return
      }
      throw GeoPipeError.data(
        "\(output.path): feature \(featureIndex): a GeometryCollection cannot be written to a shapefile (one "
          + "geometry type per file): give --geometry-type to keep one type and drop the rest",
        at: nil)
    }
    if let only, let category, category != only {
      dropped[feature.geometry?.typeName ?? "", default: 0] += 1
      return
    }
    // The record's length goes first, filled in once it is known.
    let start = buffer.bytes.count
    buffer.append(UInt32(0))
    buffer.append(UInt8(category?.tag ?? 0))
    if let category, let geometry = feature.geometry {
      if firstCategory == nil { firstCategory = category }
      var stats = sets[category] ?? SetStats()
      stats.count += 1
      if geometry.hasZ { stats.hasZ = true }
      if case .multiPoint = geometry { stats.multiPoint = true }
      stats.shpBytes += 8 + encode(geometry)
      sets[category] = stats
    } else {
      nullCount += 1
      buffer.append(UInt32(0))
    }
    try encode(feature.properties ?? JSONObject())
    let length = UInt32(buffer.bytes.count - start - 4).littleEndian
    withUnsafeBytes(of: length) { buffer.bytes.replaceSubrange(start..<(start + 4), with: $0) }
    if buffer.bytes.count >= 1 << 20 { try flushScratch() }
  }

  /// Hands the buffered records to the scratch file.
  private func flushScratch() throws {
    try buffer.bytes.withUnsafeBytes { try scratch.write($0) }
    buffer.bytes.removeAll(keepingCapacity: true)
  }

  func finish() throws {
    do {
      try writeFiles()
    } catch {
      abort()
      throw error
    }
  }

  func abort() {
    for file in outputs { file.abort() }
    output.file.abort()
  }

  // MARK: - Buffering

  /// Appends the geometry (parts and coordinates, rings wound as shapefiles want them) to the
  /// buffer; returns the size of its `.shp` record content.
  private func encode(_ geometry: Geometry) -> Int {
    var parts: [CoordinateArray] = []
    switch geometry {
    case .point(let p): parts = [CoordinateArray([p])]
    case .multiPoint(let c), .lineString(let c): parts = [c]
    case .multiLineString(let lines): parts = lines
    case .polygon(let rings): parts = Self.wound(rings)
    case .multiPolygon(let polygons): parts = polygons.flatMap(Self.wound)
    case .geometryCollection: break
    }
    parts.removeAll { $0.isEmpty }
    buffer.append(UInt32(parts.count))
    var vertices = 0
    for part in parts {
      buffer.append(UInt32(part.count))
      vertices += part.count
    }
    for part in parts {
      for k in part.indices {
        let p = part[k]
        buffer.append(p.x)
        buffer.append(p.y)
        buffer.append(p.hasZ ? p.z : 0)
      }
    }
    // Record content sizes (ESRI Shapefile Technical Description), with Z and M ranges and
    // values counted for every shape: an upper bound for the size check.
    if vertices == 0 { return 4 }
    switch geometry {
    case .point: return 4 + 16 + 16
    case .multiPoint: return 40 + 16 * vertices + 32 + 16 * vertices
    default: return 44 + 4 * parts.count + 16 * vertices + 32 + 16 * vertices
    }
  }

  /// Outer ring clockwise, holes counter-clockwise.
  private static func wound(_ rings: [CoordinateArray]) -> [CoordinateArray] {
    var result = rings
    for k in result.indices {
      let area = result[k].signedDoubleArea
      if (k == 0 && area > 0) || (k > 0 && area < 0) { result[k].reverse() }
    }
    return result
  }

  private func encode(_ properties: JSONObject) throws {
    buffer.append(UInt32(properties.count))
    for (position, member) in properties.enumerated() {
      let column = schema.column(member.key, position: position)
      buffer.append(UInt32(column))
      switch member.value {
      case .null:
        buffer.append(UInt8(0))
      case .integer(let n):
        numberText.bytes.removeAll(keepingCapacity: true)
        numberText.writeInteger(n)
        schema.noteInteger(column, width: numberText.bytes.count)
        buffer.append(UInt8(1))
        buffer.append(numberText.bytes)
      case .double(let x):
        numberText.bytes.removeAll(keepingCapacity: true)
        numberText.writeFloat(x)
        schema.noteReal(column, width: numberText.bytes.count)
        buffer.append(UInt8(2))
        buffer.append(numberText.bytes)
      case .bool(let b):
        schema.noteBool(column, value: b)
        buffer.append(UInt8(3))
        buffer.append(b ? Array("true".utf8) : Array("false".utf8))
      case .string(let s) where s.utf8.count <= 254:
        schema.noteText(column, width: s.utf8.count)
        buffer.append(UInt8(4))
        buffer.append(s.utf8)
      case .string(let s):
        let bytes = try checked(Array(s.utf8), field: member.key)
        schema.noteText(column, width: bytes.count)
        buffer.append(UInt8(4))
        buffer.append(bytes)
      default:
        var text = JSONTextWriter()
        text.writeValue(member.value)
        let bytes = try checked(text.bytes, field: member.key)
        schema.noteText(column, width: bytes.count)
        buffer.append(UInt8(4))
        buffer.append(bytes)
      }
    }
  }

  /// Text of at most 254 bytes (dBASE's limit), cut between characters with
  /// `--truncate-strings`, else an error.
  private func checked(_ bytes: [UInt8], field: String) throws -> [UInt8] {
    guard bytes.count > 254 else { return bytes }
    guard truncateStrings else {
      throw GeoPipeError.data(
        "\(output.path): feature \(featureIndex): property '\(field)' is \(bytes.count) bytes, over the 254 a "
          + "dBASE field holds: shorten it, or give --truncate-strings", at: nil)
    }
    var end = 254
    while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
    return Array(bytes[..<end])
  }

  // MARK: - Writing

  /// One file set being written.
  private final class FileSet {
    let category: Category?
    let shapeType: Int32
    let hasZ: Bool
    let files: [String: OutputFile]
    let key: String
    let shp: SHPHandle
    let dbf: DBFHandle
    var records: Int32 = 0

    init(
      category: Category?, shapeType: Int32, hasZ: Bool, files: [String: OutputFile],
      fields: [DBaseSchema.Field], path: String
    ) throws {
      self.category = category
      self.shapeType = shapeType
      self.hasZ = hasZ
      self.files = files
      var paths: [String: String] = [:]
      for (ext, file) in files { paths[ext] = file.temporaryPath }
      key = ShapelibHooks.map(paths)
      var hooks = ShapelibHooks.writing()
      _ = ShapelibHooks.takeError()
      guard let shp = SHPCreateLL(key + ".shp", shapeType, &hooks) else {
        ShapelibHooks.unmap(key)
        throw FileSet.failure(path, "cannot create the .shp and .shx")
      }
      guard let dbf = DBFCreateLL(key + ".dbf", nil, &hooks) else {
        SHPClose(shp)
        ShapelibHooks.unmap(key)
        throw FileSet.failure(path, "cannot create the .dbf")
      }
      self.shp = shp
      self.dbf = dbf
      for field in fields {
        guard
          DBFAddNativeFieldType(
            dbf, field.name, CChar(bitPattern: field.letter), Int32(field.width),
            Int32(field.decimals)) >= 0
        else { throw FileSet.failure(path, "cannot add the field '\(field.name)'") }
      }
    }

    deinit {
      SHPClose(shp)
      DBFClose(dbf)
      ShapelibHooks.unmap(key)
    }

    static func failure(_ path: String, _ message: String) -> GeoPipeError {
      let detail = ShapelibHooks.takeError().map { " (\($0))" } ?? ""
      return GeoPipeError("cannot write '\(path)': \(message)\(detail)", status: .ioError)
    }
  }

  private func writeFiles() throws {
    try flushScratch()
    let kept = Category.allCases.filter { sets[$0] != nil }
    var categories: [Category?] = kept
    if categories.isEmpty { categories = [only] }
    let split = categories.count > 1
    let nullsGoTo = firstCategory ?? categories[0]
    var (fields, renames) = try schema.fields()
    // dBASE needs a field: without properties, an FID field numbers the records from 0, as
    // GDAL writes such a file.
    let numbersRecords = fields.isEmpty
    if numbersRecords {
      fields = [DBaseSchema.Field(name: "FID", kind: .integer, width: 11, decimals: 0)]
    }
    let recordLength = 1 + fields.reduce(0) { $0 + $1.width }
    guard recordLength <= 65535, fields.count <= 2046 else {
      throw GeoPipeError.data(
        "the properties need \(fields.count) dBASE fields of \(recordLength) bytes a record; "
          + "dBASE allows 2046 fields and 65535 bytes", at: nil)
    }
    // Sizes first: nothing is written when a file would pass its format's limit.
    for category in categories {
      var stats = category.flatMap { sets[$0] } ?? SetStats()
      if category == nullsGoTo {
        stats.count += nullCount
        stats.shpBytes += 12 * nullCount
      }
      let name = path(category, split: split)
      let shx = 100 + 8 * stats.count
      let dbf = 32 + 32 * fields.count + 1 + stats.count * recordLength + 1
      if stats.shpBytes > Int(Int32.max) || shx > Int(Int32.max) {
        throw GeoPipeError.data(
          "\(name) would be \(max(stats.shpBytes, shx)) bytes, over the 2 GiB a shapefile's "
            + ".shp and .shx can address: split the data (e.g. with a filter) first", at: nil)
      }
      if dbf > Int(UInt32.max) {
        throw GeoPipeError.data(
          "\(name)'s .dbf would be \(dbf) bytes, over dBASE's 4 GiB: write fewer properties "
            + "or split the data first", at: nil)
      }
    }
    if !renames.isEmpty {
      options.diagnostics(
        ReadDiagnostic(
          severity: .warning,
          message: "dBASE field names are at most 10 bytes; renamed: "
            + renames.map { "\($0.from) → \($0.to)" }.joined(separator: ", ")))
    }
    if !dropped.isEmpty, let only {
      options.diagnostics(
        ReadDiagnostic(
          severity: .warning,
          message: "--geometry-type \(only.rawValue): left out "
            + dropped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(
              separator: ", ")))
    }
    var fileSets: [Int: FileSet] = [:]
    for category in categories {
      let path = self.path(category, split: split)
      let stem = String(path.dropLast(4))
      var files: [String: OutputFile] = [:]
      for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
        let file =
          (ext == "shp" && path == output.path)
          ? output.file : try OutputFile(path: "\(stem).\(ext)")
        if file !== output.file { outputs.append(file) }
        files[ext] = file
      }
      let stats = category.flatMap { sets[$0] } ?? SetStats()
      let shapeType: Int32 =
        switch category {
        case .point?:
          stats.multiPoint
            ? (stats.hasZ ? SHPT_MULTIPOINTZ : SHPT_MULTIPOINT)
            : (stats.hasZ ? SHPT_POINTZ : SHPT_POINT)
        case .line?: stats.hasZ ? SHPT_ARCZ : SHPT_ARC
        case .polygon?: stats.hasZ ? SHPT_POLYGONZ : SHPT_POLYGON
        case nil: SHPT_POINT
        }
      let set = try FileSet(
        category: category, shapeType: shapeType, hasZ: stats.hasZ, files: files,
        fields: fields, path: path)
      fileSets[category?.tag ?? 0] = set
    }
    if split {
      // NAME.shp itself is not written when the types are split.
      output.file.abort()
    }
    let nullSet = fileSets[nullsGoTo?.tag ?? 0]
    var offsets: [Int] = []
    var blank = [UInt8](repeating: 0x20, count: recordLength)
    var offset = 1
    for field in fields {
      offsets.append(offset)
      fillNull(&blank, at: offset, field: field)
      offset += field.width
    }
    var record = blank
    var carry: [UInt8] = []
    try scratch.readAll { block in
      carry.append(contentsOf: block)
      var p = 0
      while carry.count - p >= 4 {
        let length = carry.withUnsafeBytes {
          Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: p, as: UInt32.self)))
        }
        guard carry.count - p - 4 >= length else { break }
        try carry.withUnsafeBytes { raw in
          var reader = ScratchReader(raw, from: p + 4)
          let tag = Int(reader.byte())
          guard let set = tag == 0 ? nullSet : fileSets[tag] else { return }
          try writeShape(&reader, to: set)
          record = blank
          try writeRecord(
            &reader, fields: fields, offsets: offsets, into: &record, set: set,
            numbered: numbersRecords)
        }
        p += 4 + length
      }
      carry.removeFirst(p)
    }
    for set in fileSets.values {
      try set.files["prj"]?.write(options.crsWKT.map { Array($0.utf8) } ?? Self.wgs84)
      try set.files["cpg"]?.write(Array("UTF-8".utf8))
    }
    // Closing writes the headers.
    fileSets.removeAll()
    if let error = ShapelibHooks.takeError() {
      throw GeoPipeError("cannot write '\(output.path)': \(error)", status: .ioError)
    }
    for file in outputs where file !== output.file { try file.commit() }
    if !split { try output.file.commit() }
  }

  private func writeShape(_ reader: inout ScratchReader, to set: FileSet) throws {
    let parts = Int(reader.uint32())
    starts.removeAll(keepingCapacity: true)
    var n = 0
    for _ in 0..<parts {
      starts.append(Int32(n))
      n += Int(reader.uint32())
    }
    xs.removeAll(keepingCapacity: true)
    ys.removeAll(keepingCapacity: true)
    zs.removeAll(keepingCapacity: true)
    for _ in 0..<n {
      xs.append(reader.double())
      ys.append(reader.double())
      zs.append(reader.double())
    }
    let object: UnsafeMutablePointer<SHPObject>?
    if n == 0 {
      object = SHPCreateSimpleObject(SHPT_NULL, 0, nil, nil, nil)
    } else if set.shapeType == SHPT_POINT || set.shapeType == SHPT_POINTZ
      || set.shapeType == SHPT_MULTIPOINT || set.shapeType == SHPT_MULTIPOINTZ
    {
      object = SHPCreateSimpleObject(set.shapeType, Int32(n), xs, ys, set.hasZ ? zs : nil)
    } else {
      object = SHPCreateObject(
        set.shapeType, -1, Int32(parts), starts, nil, Int32(n), xs, ys, set.hasZ ? zs : nil, nil)
    }
    guard let object else {
      throw GeoPipeError("cannot write '\(output.path)': out of memory", status: .ioError)
    }
    defer { SHPDestroyObject(object) }
    guard SHPWriteObject(set.shp, -1, object) >= 0 else {
      throw FileSet.failure(output.path, "cannot write shape \(set.records + 1)")
    }
  }

  private func writeRecord(
    _ reader: inout ScratchReader, fields: [DBaseSchema.Field], offsets: [Int],
    into record: inout [UInt8], set: FileSet, numbered: Bool
  ) throws {
    if numbered, let field = fields.first, let at = offsets.first {
      // The record's number, right-aligned in the FID field.
      let digits = Array(String(set.records).utf8)
      for k in at..<(at + field.width) { record[k] = 0x20 }
      for k in digits.indices { record[at + field.width - digits.count + k] = digits[k] }
    }
    let count = Int(reader.uint32())
    for _ in 0..<count {
      let column = Int(reader.uint32())
      let tag = reader.byte()
      let field = fields[column]
      let at = offsets[column]
      if tag == 0 { continue }
      let text = reader.bytes()
      switch field.kind {
      case .integer, .real:
        // Right-aligned, as dBASE and GDAL write numbers.
        for k in at..<(at + field.width) { record[k] = 0x20 }
        let start = at + field.width - text.count
        for k in text.indices { record[start + k] = text[k] }
      case .logical:
        record[at] =
          tag == 3 && text.first == UInt8(ascii: "t") ? UInt8(ascii: "T") : UInt8(ascii: "F")
      case .text:
        for k in 0..<min(text.count, field.width) { record[at + k] = text[k] }
      }
    }
    _ = ShapelibHooks.takeError()
    let written = record.withUnsafeMutableBytes { raw in
      DBFWriteTuple(set.dbf, set.records, raw.baseAddress)
    }
    guard written != 0 else {
      throw FileSet.failure(output.path, "cannot write record \(set.records + 1)")
    }
    set.records += 1
  }

  /// Writes a null: `*` for numbers and `?` for logicals, as shapelib does; blanks for text.
  private func fillNull(_ record: inout [UInt8], at: Int, field: DBaseSchema.Field) {
    let byte: UInt8 =
      switch field.kind {
      case .integer, .real: UInt8(ascii: "*")
      case .logical: UInt8(ascii: "?")
      case .text: 0x20
      }
    for k in at..<(at + field.width) { record[k] = byte }
  }

  /// The `.shp` path of a file set: NAME.shp, or NAME_point.shp and so on when split.
  private func path(_ category: Category?, split: Bool) -> String {
    guard split, let category else { return output.path }
    return "\(base)_\(category.rawValue).shp"
  }

  /// WGS84 as GDAL writes it in a `.prj` (ESRI's WKT 1).
  static let wgs84 = Array(
    ("GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,"
      + "298.257223563]],PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]]").utf8)
}

extension OutputFile {
  /// Writes all of `bytes`.
  fileprivate func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try write($0) }
  }
}

/// A growing byte buffer for scratch records.
struct ScratchBuffer {
  var bytes: [UInt8] = []

  mutating func append(_ byte: UInt8) { bytes.append(byte) }

  mutating func append(_ value: UInt32) {
    withUnsafeBytes(of: value.littleEndian) { bytes.appendBytes($0) }
  }

  mutating func append(_ value: Double) {
    withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.appendBytes($0) }
  }

  /// A length-prefixed byte string.
  mutating func append<Text: Collection<UInt8>>(_ text: Text) {
    append(UInt32(text.count))
    bytes.append(contentsOf: text)
  }
}

/// Reads what `ScratchBuffer` wrote.
struct ScratchReader {
  private let raw: UnsafeRawBufferPointer
  private var p: Int

  init(_ raw: UnsafeRawBufferPointer, from offset: Int) {
    self.raw = raw
    p = offset
  }

  mutating func byte() -> UInt8 {
    defer { p += 1 }
    return raw[p]
  }

  mutating func uint32() -> UInt32 {
    defer { p += 4 }
    return UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: p, as: UInt32.self))
  }

  mutating func double() -> Double {
    defer { p += 8 }
    return Double(
      bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: p, as: UInt64.self)))
  }

  mutating func bytes() -> UnsafeRawBufferPointer {
    let n = Int(uint32())
    defer { p += n }
    return UnsafeRawBufferPointer(rebasing: raw[p..<(p + n)])
  }
}
