internal import CShapelib
import GeoPipeCore
import GeoPipeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a shapefile (`.shp`, `.shx`, `.dbf`, `.prj`, `.cpg`) one record at a time, through
/// shapelib.
///
/// Shapes become geometries (Z kept, M dropped; polygon rings assembled by `RingAssembly`),
/// dBASE records properties (`DBaseRecordDecoder`); deleted records are skipped.
final class ShapefileReader: BatchFeatureReader {
  private let table: ShapefileTable
  private let options: ReadOptions
  private var index = 0
  /// The record after the last one to read.
  private var end: Int
  /// The extracted copy of a zip archive's members, removed when the reader goes.
  private let folder: TemporaryFolder?
  private(set) var skippedCount = 0
  private(set) var bytesRead = 0
  /// Properties decoded on worker threads, a batch of records at a time; nil when decoded here.
  private var batches: ShapefileBatches?

  /// Opens the shapefile at `path`, named `name` in messages.
  init(path: String, name: String, options: ReadOptions, folder: TemporaryFolder? = nil) throws {
    table = try ShapefileTable(path: path, name: name, diagnostics: options.diagnostics)
    self.options = options
    self.folder = folder
    end = table.count
    if options.threads > 1, options.onError == .fail, let decoder = table.decoder {
      batches = ShapefileBatches(workers: options.threads, decoder: decoder, name: name)
    }
  }

  var collectionMembers: JSONObject { JSONObject() }

  /// The number of records (deleted ones included).
  var recordCount: Int { table.count }

  /// Reads only `records` (record numbers from 0): a shard's share, reached by seeking
  /// through the `.shx` offsets and the `.dbf`'s fixed-size records.
  func restrict(to records: Range<Int>) {
    index = records.lowerBound
    end = records.upperBound
  }

  var declaredCRS: String? { table.crs }

  var decodesInBatches: Bool { batches != nil }

  func nextBatch() throws -> [Feature]? {
    guard let batches else { return try next().map { [$0] } }
    let features = try batches.nextBatch(table: table, index: &index, end: end)
    if index > 0 { bytesRead = table.bytesRead(through: index - 1) }
    return features
  }

  func next() throws -> Feature? {
    if let batches {
      let feature = try batches.next(table: table, index: &index, end: end)
      if index > 0 { bytesRead = table.bytesRead(through: index - 1) }
      return feature
    }
    while index < end {
      let record = index
      index += 1
      do {
        guard let feature = try table.feature(record) else { continue }
        bytesRead = table.bytesRead(through: record)
        return feature
      } catch let error as GeoPipeError where options.onError == .skip && error.status == .dataError
      {
        skippedCount += 1
        options.diagnostics(
          ReadDiagnostic(severity: .warning, message: "skipped: \(error.message)"))
      }
    }
    return nil
  }
}

/// An open shapefile: shapelib's handles on the `.shp` and `.dbf`, its CRS and code page.
final class ShapefileTable {
  /// The name in messages.
  let name: String
  /// The number of records.
  let count: Int
  /// The shape type (`SHPT_*`).
  let shapeType: Int32
  /// The CRS from the `.prj` (WKT), nil when WGS84 or not given.
  let crs: String?
  /// The `.prj` text as written, nil when there is none.
  let prj: String?
  /// The extent the `.shp` header declares.
  let bounds: BBox?
  private let shp: SHPHandle
  private let dbf: DBFHandle?
  /// The `.dbf`'s record decoder, nil without a `.dbf`.
  let decoder: DBaseRecordDecoder?

  init(path: String, name: String, diagnostics: @Sendable (ReadDiagnostic) -> Void) throws {
    self.name = name
    var hooks = ShapelibHooks.reading()
    _ = ShapelibHooks.takeError()
    guard let shp = SHPOpenLL(path, "rb", &hooks) else {
      let reason = ShapelibHooks.takeError().map { ": \($0)" } ?? ""
      throw GeoPipeError(
        "cannot open the shapefile '\(name)' (its .shp and .shx are both needed)\(reason)",
        status: .noInput)
    }
    self.shp = shp
    var records: Int32 = 0
    var type: Int32 = 0
    var minimum = [Double](repeating: 0, count: 4)
    var maximum = [Double](repeating: 0, count: 4)
    SHPGetInfo(shp, &records, &type, &minimum, &maximum)
    count = Int(records)
    shapeType = type
    bounds =
      records > 0
      ? BBox(west: minimum[0], south: minimum[1], east: maximum[0], north: maximum[1]) : nil
    let base = ShapefileTable.baseName(path)
    let candidates: [String] = [base + ".dbf", base + ".DBF"]
    let dbfPath = candidates.first { path in access(path, F_OK) == 0 }
    _ = ShapelibHooks.takeError()
    dbf = dbfPath.flatMap { DBFOpenLL($0, "rb", &hooks) }
    if let dbfPath, dbf == nil {
      SHPClose(shp)
      let reason = ShapelibHooks.takeError().map { " (\($0))" } ?? ""
      throw GeoPipeError.data(
        "\(name): the .dbf '\(dbfPath.split(separator: "/").last ?? "")' cannot be read: its "
          + "header is truncated or corrupt\(reason)", at: nil)
    }
    prj = ShapefileTable.readText(base, "prj")
    crs = prj.flatMap { ShapefileTable.isWGS84($0) ? nil : $0 }
    if let dbf {
      let codePage = ShapefileTable.codePage(dbf, name: name, diagnostics: diagnostics)
      let fieldCount = Int(DBFGetFieldCount(dbf))
      var fields: [DBaseField] = []
      var offset = 1
      var nameBuffer = [CChar](repeating: 0, count: 16)
      for k in 0..<fieldCount {
        var width: Int32 = 0
        var decimals: Int32 = 0
        DBFGetFieldInfo(dbf, Int32(k), &nameBuffer, &width, &decimals)
        let type = UInt8(bitPattern: DBFGetNativeFieldType(dbf, Int32(k)))
        let fieldName = nameBuffer.withUnsafeBytes { raw in
          codePage.decode(UnsafeRawBufferPointer(rebasing: raw[..<(raw.firstIndex(of: 0) ?? 0)]))
        }
        fields.append(
          DBaseField(
            name: fieldName, type: type, offset: offset, width: Int(width),
            decimals: Int(decimals)))
        offset += Int(width)
      }
      guard
        let decoder = DBaseRecordDecoder(
          fields: fields, recordLength: Int(dbf.pointee.nRecordLength), codePage: codePage)
      else {
        DBFClose(dbf)
        SHPClose(shp)
        throw GeoPipeError.data(
          "\(name): the .dbf's field descriptors do not fit its record length", at: nil)
      }
      self.decoder = decoder
      let dbfCount = Int(DBFGetRecordCount(dbf))
      if dbfCount != count {
        // Fully initialised: deinit closes both.
        throw GeoPipeError.data(
          "\(name): the .shp holds \(count) shapes but the .dbf \(dbfCount) records", at: nil)
      }
    } else {
      decoder = nil
      diagnostics(
        ReadDiagnostic(
          severity: .warning,
          message: "\(name): no .dbf next to the .shp: features have no properties"))
    }
    if shapeType == SHPT_MULTIPATCH {
      throw GeoPipeError.data(
        "\(name): MultiPatch shapefiles (3D surfaces) are not read; convert them with ogr2ogr",
        at: nil)
    }
    if count > 0 {
      SHPSetFastModeReadObject(shp, 1)
    }
  }

  deinit {
    SHPClose(shp)
    if let dbf { DBFClose(dbf) }
  }

  /// The fields, in table order (none without a `.dbf`).
  var fields: [DBaseField] { decoder?.fields ?? [] }

  /// The shapefile's geometry type, as GeoJSON names it (`LineString` for arcs, which may be
  /// multi-part).
  var geometryType: String {
    switch shapeType {
    case SHPT_POINT, SHPT_POINTZ, SHPT_POINTM: "Point"
    case SHPT_MULTIPOINT, SHPT_MULTIPOINTZ, SHPT_MULTIPOINTM: "MultiPoint"
    case SHPT_ARC, SHPT_ARCZ, SHPT_ARCM: "LineString"
    case SHPT_POLYGON, SHPT_POLYGONZ, SHPT_POLYGONM: "Polygon"
    case SHPT_NULL: "None"
    default: "MultiPatch"
    }
  }

  /// Whether shapes carry Z.
  var hasZ: Bool {
    [SHPT_POINTZ, SHPT_ARCZ, SHPT_POLYGONZ, SHPT_MULTIPOINTZ, SHPT_MULTIPATCH].contains(shapeType)
  }

  /// The bytes of the `.shp` up to the end of record `record`.
  func bytesRead(through record: Int) -> Int {
    guard let offsets = shp.pointee.panRecOffset, let sizes = shp.pointee.panRecSize else {
      return 0
    }
    return Int(offsets[record]) + Int(sizes[record]) + 8
  }

  /// The feature of record `record`, or nil when the record is deleted.
  func feature(_ record: Int) throws -> Feature? {
    var properties = JSONObject()
    if let decoder {
      guard let bytes = try dbfRecord(record) else { return nil }
      do {
        properties = try decoder.decode(bytes)
      } catch {
        throw failure(record, "field '\(error.field)': \(error.message)")
      }
    }
    return Feature(geometry: try shape(record), properties: properties)
  }

  /// The bytes of `.dbf` record `record` (valid until the next record is read; empty without a
  /// `.dbf`), or nil when the record is deleted.
  func dbfRecord(_ record: Int) throws -> UnsafeRawBufferPointer? {
    guard let dbf, let decoder else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    _ = ShapelibHooks.takeError()
    guard let tuple = DBFReadTuple(dbf, Int32(record)) else {
      throw failure(record, "the .dbf record cannot be read", detail: ShapelibHooks.takeError())
    }
    let bytes = UnsafeRawBufferPointer(start: tuple, count: decoder.recordLength)
    return DBaseRecordDecoder.isDeleted(bytes) ? nil : bytes
  }

  /// The geometry of record `record`.
  func shape(_ record: Int) throws -> Geometry? {
    _ = ShapelibHooks.takeError()
    guard let object = SHPReadObject(shp, Int32(record)) else {
      throw failure(record, "the shape cannot be read", detail: ShapelibHooks.takeError())
    }
    defer { SHPDestroyObject(object) }
    return try geometry(object.pointee, record: record)
  }

  private func geometry(_ shape: SHPObject, record: Int) throws -> Geometry? {
    let n = Int(shape.nVertices)
    guard shape.nSHPType != SHPT_NULL, n > 0, let xs = shape.padfX, let ys = shape.padfY else {
      return nil
    }
    let zs = hasZ ? shape.padfZ : nil
    let dimension = zs == nil ? 2 : 3
    func coordinates(_ range: Range<Int>) -> CoordinateArray {
      var storage: [Double] = []
      storage.reserveCapacity(range.count * dimension)
      for k in range {
        storage.append(xs[k])
        storage.append(ys[k])
        if let zs { storage.append(zs[k]) }
      }
      return CoordinateArray(storage: storage, dimension: dimension)
    }
    switch shape.nSHPType {
    case SHPT_POINT, SHPT_POINTZ, SHPT_POINTM:
      return .point(Position(x: xs[0], y: ys[0], z: zs?[0] ?? .nan))
    case SHPT_MULTIPOINT, SHPT_MULTIPOINTZ, SHPT_MULTIPOINTM:
      return .multiPoint(coordinates(0..<n))
    case SHPT_ARC, SHPT_ARCZ, SHPT_ARCM, SHPT_POLYGON, SHPT_POLYGONZ, SHPT_POLYGONM:
      let parts = Int(shape.nParts)
      guard parts > 0, let starts = shape.panPartStart else { return nil }
      var lines: [CoordinateArray] = []
      lines.reserveCapacity(parts)
      for p in 0..<parts {
        let start = Int(starts[p])
        let end = p + 1 < parts ? Int(starts[p + 1]) : n
        guard start >= 0, start <= end, end <= n else {
          throw failure(record, "part \(p) starts at vertex \(start), outside the shape")
        }
        if end > start { lines.append(coordinates(start..<end)) }
      }
      if lines.isEmpty { return nil }
      if shape.nSHPType == SHPT_ARC || shape.nSHPType == SHPT_ARCZ || shape.nSHPType == SHPT_ARCM {
        return lines.count == 1 ? .lineString(lines[0]) : .multiLineString(lines)
      }
      return RingAssembly.geometry(lines)
    default:
      throw failure(record, "shape type \(shape.nSHPType) is not read")
    }
  }

  private func failure(_ record: Int, _ message: String, detail: String? = nil) -> GeoPipeError {
    Self.failure(name, record, message, detail: detail)
  }

  /// The error of record `record` of the shapefile named `name`.
  static func failure(_ name: String, _ record: Int, _ message: String, detail: String? = nil)
    -> GeoPipeError
  {
    let detail = detail.map { " (\($0))" } ?? ""
    return GeoPipeError.data("\(name): record \(record + 1): \(message)\(detail)", at: nil)
  }

  /// The path without its `.shp` extension.
  static func baseName(_ path: String) -> String {
    let lower = path.lowercased()
    return lower.hasSuffix(".shp") ? String(path.dropLast(4)) : path
  }

  /// The text of the `.prj` or `.cpg` next to the `.shp` (either case), if there is one.
  static func readText(_ base: String, _ ext: String) -> String? {
    for candidate in [base + "." + ext, base + "." + ext.uppercased()] {
      if let bytes = try? readFile(candidate) {
        return String(decoding: bytes, as: UTF8.self)
      }
    }
    return nil
  }

  /// Whether a `.prj` describes WGS84 longitude/latitude.
  static func isWGS84(_ wkt: String) -> Bool {
    let text = wkt.uppercased().filter { !$0.isWhitespace }
    guard text.hasPrefix("GEOGCS[") else { return false }
    return text.contains("DATUM[\"D_WGS_1984\"") || text.contains("DATUM[\"WGS_1984\"")
      || text.hasPrefix("GEOGCS[\"WGS84\"") || text.hasPrefix("GEOGCS[\"WGS 84\"")
  }

  /// The code page of the `.dbf`: the `.cpg`'s, else the language driver id's, else UTF-8 or
  /// ISO-8859-1 (see `CodePage.automatic`).
  private static func codePage(
    _ dbf: DBFHandle, name: String, diagnostics: @Sendable (ReadDiagnostic) -> Void
  ) -> CodePage {
    guard let declared = DBFGetCodePage(dbf).map({ String(cString: $0) }) else {
      return .automatic
    }
    let iconvName: String?
    if declared.hasPrefix("LDID/") {
      iconvName = Int(declared.dropFirst(5)).flatMap(CodePage.ldidName)
    } else {
      iconvName = CodePage.cpgName(declared)
    }
    guard let iconvName else { return .automatic }
    guard let codePage = CodePage.named(iconvName) else {
      diagnostics(
        ReadDiagnostic(
          severity: .warning,
          message: "\(name): code page '\(declared)' is unknown to iconv: text is read as UTF-8 "
            + "where it is valid, else as ISO-8859-1"))
      return .automatic
    }
    return codePage
  }
}

/// All bytes of a small file.
func readFile(_ path: String) throws -> [UInt8] {
  let source = try FileByteSource(path: path)
  var result: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
    if n == 0 { return result }
    result += chunk[..<n]
    if result.count > 1 << 24 { return result }
  }
}
