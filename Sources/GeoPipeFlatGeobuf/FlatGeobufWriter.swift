import GeoPipeCore
import GeoPipeIO

/// Writes a FlatGeobuf 3 file: a header typed from all the features, then (by default) a
/// packed Hilbert R-tree and the features in Hilbert order, as GDAL writes them.
///
/// The header comes first but describes everything (the columns are the union of the
/// properties, typed from their values; the extent; the geometry type), so features go to a
/// scratch file beside the output as they arrive, their properties tagged with their kinds,
/// and are encoded for good in `finish()`. With the index, the features are read back in
/// Hilbert order of their boxes' centres (the order changes, as with GDAL); without it
/// (`--no-index`) they are read back in input order. Memory holds, per feature, only its box
/// and offsets (for the index).
public final class FlatGeobufWriter: FeatureWriter {
  private let sink: ByteSink
  private let scratch: ScratchFile
  private let layerName: String
  private let indexed: Bool
  private let precision: Int?
  /// The CRS recorded in the header: an EPSG code, or WKT.
  private let crsCode: Int32
  private let crsWKT: String?
  private var pending: [UInt8] = []
  private var scratchSize = 0
  private var builder = FlatBufferBuilder()
  private var record: [UInt8] = []

  private var columnIndex: [String: Int] = [:]
  private var columnNames: [String] = []
  private var columnKinds: [UInt8] = []
  private var count = 0
  private var extent = [Double.infinity, .infinity, -Double.infinity, -Double.infinity]
  private var kinds = Set<GeometryKind>()
  private var dimensions = FGBGeometry.Dimensions(z: false, m: false)
  /// The z/m combinations of the geometries (a geometry short of the layer's is re-encoded).
  private var dimensionSets = Set<Int>()
  /// Per feature, with the index: its box (four numbers), its record's scratch offset, and its
  /// encoded size when no column turns to JSON.
  private var boxes: [Double] = []
  private var recordOffsets: [Int] = []
  private var sizes: [Int] = []
  private var finished = false

  /// Creates a writer; the `no-index` format option leaves the index out.
  public init(output: FormatOutput, options: WriteOptions) throws {
    if output.isCompressed {
      throw GeoPipeError.usage(
        "FlatGeobuf cannot be written gzip-compressed (readers seek in it): drop the .gz")
    }
    sink = output.file
    let folder =
      output.path == "-" ? ScratchFile.temporaryFolder : OutputPath.parent(of: output.path)
    scratch = try ScratchFile(in: folder, for: output.path)
    indexed = !options.formatOptions.flag("no-index")
    precision = options.precision
    layerName = options.layer ?? Self.stem(of: output.path)
    (crsCode, crsWKT) = try Self.crs(options.crs)
    pending.reserveCapacity(1 << 20)
  }

  /// Queues one feature (in the scratch file).
  public func write(_ feature: Feature) throws {
    var geometry = feature.geometry
    if let precision, var rounded = geometry {
      let scale = Self.power(of: precision)
      rounded.transformXY { x, y in
        x = (x * scale).rounded() / scale
        y = (y * scale).rounded() / scale
      }
      geometry = rounded
    }
    var box = [Double.infinity, .infinity, -Double.infinity, -Double.infinity]
    builder.reset()
    var table = 0
    var own = FGBGeometry.Dimensions(z: false, m: false)
    if let geometry {
      geometry.forEachXY { x, y in
        box[0] = min(box[0], x)
        box[1] = min(box[1], y)
        box[2] = max(box[2], x)
        box[3] = max(box[3], y)
      }
      kinds.insert(geometry.kind)
      own = FGBGeometry.dimensions(of: geometry)
      dimensions.z = dimensions.z || own.z
      dimensions.m = dimensions.m || own.m
      dimensionSets.insert((own.z ? 1 : 0) | (own.m ? 2 : 0))
      table = FGBGeometry.encode(geometry, dimensions: own, into: &builder)
    }
    extent[0] = min(extent[0], box[0])
    extent[1] = min(extent[1], box[1])
    extent[2] = max(extent[2], box[2])
    extent[3] = max(extent[3], box[3])

    // The record: flags, geometry table offset and blob, then the tagged properties.
    record.removeAll(keepingCapacity: true)
    record.append(0)  // the record's length, set below
    record.append(0)
    record.append(0)
    record.append(0)
    record.append((geometry != nil ? 1 : 0) | (own.z ? 2 : 0) | (own.m ? 4 : 0))
    Self.append32(&record, UInt32(table))
    Self.append32(&record, UInt32(builder.bytes.count))
    record.append(contentsOf: builder.bytes)
    var propertiesLength = 0
    var propertyCount = 0
    for member in feature.properties ?? JSONObject() {
      guard let kind = PropertyKind(member.value) else { continue }
      let column: Int
      if let known = columnIndex[member.key] {
        column = known
      } else {
        guard columnNames.count <= Int(UInt16.max) else {
          throw GeoPipeError.data(
            "FlatGeobuf holds at most 65,536 properties; feature \(count) brings one more "
              + "('\(member.key)')", at: nil)
        }
        column = columnNames.count
        columnIndex[member.key] = column
        columnNames.append(member.key)
        columnKinds.append(0)
      }
      columnKinds[column] |= kind.rawValue
      propertyCount += 1
      record.append(UInt8(truncatingIfNeeded: column))
      record.append(UInt8(truncatingIfNeeded: column >> 8))
      record.append(kind.rawValue)
      propertiesLength += 2 + kind.append(member.value, to: &record)
    }
    let length = record.count
    record[0] = UInt8(truncatingIfNeeded: length)
    record[1] = UInt8(truncatingIfNeeded: length >> 8)
    record[2] = UInt8(truncatingIfNeeded: length >> 16)
    record[3] = UInt8(truncatingIfNeeded: length >> 24)
    guard length <= Int(UInt32.max) else {
      throw GeoPipeError.data("feature \(count) is too large for FlatGeobuf", at: nil)
    }
    if indexed {
      boxes.append(contentsOf: box)
      recordOffsets.append(scratchSize)
      sizes.append(
        Self.encodedSize(
          hasGeometry: geometry != nil,
          propertiesLength: propertyCount > 0 ? propertiesLength : nil,
          blobLength: builder.bytes.count))
    }
    pending.append(contentsOf: record)
    scratchSize += length
    count += 1
    if pending.count >= 1 << 20 { try flushPending() }
  }

  /// Writes the header, the index and the features, and commits the output.
  public func finish() throws {
    guard !finished else { return }
    finished = true
    try flushPending()
    let types = columnKinds.map(PropertyKind.columnType)
    var header = FGBHeader()
    header.name = layerName
    if extent[0] <= extent[2] { header.envelope = extent }
    header.geometryType =
      kinds.count == 1 ? kinds.first.map(FGBGeometryType.init) ?? .unknown : .unknown
    header.hasZ = dimensions.z
    header.hasM = dimensions.m
    header.columns = zip(columnNames, types).map { FGBColumn(name: $0, type: $1) }
    header.featuresCount = UInt64(count)
    header.indexNodeSize = indexed && count > 0 ? 16 : 0
    if let crsWKT {
      header.crsWKT = crsWKT
    } else {
      header.crsOrganization = "EPSG"
      header.crsCode = crsCode
      if crsCode == 4326 { header.crsName = "WGS 84" }
    }
    var encoder = FeatureEncoder(types: types, dimensions: dimensions)
    var out = FGBHeader.magic + header.encoded()
    if header.indexNodeSize > 0 {
      let order = hilbertOrder()
      // Strings and numbers in a JSON column are written as JSON text, and geometries short
      // of the layer's z or m get NaN ones: those features' sizes change.
      let textInJSON = zip(columnKinds, types).contains {
        $0.1 == .json && $0.0 & ~PropertyKind.json.rawValue != 0
      }
      if textInJSON || dimensionSets.count > 1 {
        var scratchOut: [UInt8] = []
        for k in order {
          scratchOut.removeAll(keepingCapacity: true)
          try encoder.encode(readRecord(k), into: &scratchOut)
          sizes[k] = scratchOut.count
        }
      }
      var offsets: [Int] = []
      offsets.reserveCapacity(count)
      var orderedBoxes: [Double] = []
      orderedBoxes.reserveCapacity(4 * count)
      var offset = 0
      for k in order {
        offsets.append(offset)
        offset += sizes[k]
        orderedBoxes.append(contentsOf: boxes[4 * k..<4 * k + 4])
      }
      boxes = []
      out += PackedRTree.build(boxes: orderedBoxes, offsets: offsets, nodeSize: 16)
      try emit(&out)
      var written = 0
      for (k, expected) in zip(order, offsets) {
        guard written + out.count == expected else {
          throw GeoPipeError(
            "cannot write '\(layerName)': feature \(k) is not where the index says",
            status: .ioError)
        }
        try encoder.encode(readRecord(k), into: &out)
        if out.count >= 1 << 20 {
          written += out.count
          try emit(&out)
        }
      }
    } else {
      try emit(&out)
      var carry: [UInt8] = []
      try scratch.readAll { block in
        carry.append(contentsOf: block)
        var k = 0
        while k + 4 <= carry.count {
          let length = Int(Self.load32(carry, k))
          guard k + length <= carry.count else { break }
          try encoder.encode(carry[k..<k + length], into: &out)
          k += length
        }
        carry.removeFirst(k)
        if out.count >= 1 << 20 { try emit(&out) }
      }
    }
    try emit(&out)
    try sink.commit()
  }

  /// Discards the output.
  public func abort() {
    finished = true
    sink.abort()
  }

  private func emit(_ bytes: inout [UInt8]) throws {
    try bytes.withUnsafeBytes { try sink.write($0) }
    bytes.removeAll(keepingCapacity: true)
  }

  private func flushPending() throws {
    try pending.withUnsafeBytes { try scratch.write($0) }
    pending.removeAll(keepingCapacity: true)
  }

  private func readRecord(_ k: Int) throws -> ArraySlice<UInt8> {
    let start = recordOffsets[k]
    let end = k + 1 < recordOffsets.count ? recordOffsets[k + 1] : scratchSize
    var bytes = [UInt8](repeating: 0, count: end - start)
    try bytes.withUnsafeMutableBytes { try scratch.read(at: start, into: $0) }
    return bytes[...]
  }

  /// The features' indexes by descending Hilbert value of their boxes' centres (as
  /// FlatGeobuf's own writers order them), input order among equals.
  private func hilbertOrder() -> [Int] {
    var keys = [UInt64](repeating: 0, count: count)
    for k in 0..<count {
      let h = PackedRTree.hilbertValue(of: boxes[4 * k..<4 * k + 4], in: extent)
      keys[k] = UInt64(UInt32.max - h) << 32 | UInt64(k)
    }
    keys.sort()
    return keys.map { Int($0 & 0xFFFF_FFFF) }
  }

  /// The size of a feature's buffer with its size prefix, as `FeatureEncoder` lays it out.
  static func encodedSize(hasGeometry: Bool, propertiesLength: Int?, blobLength: Int) -> Int {
    let fields = (hasGeometry ? 1 : 0) + (propertiesLength != nil ? 1 : 0)
    var end = (fields == 0 ? 12 : 16) + 4 + 4 * fields
    if let propertiesLength { end += 4 + propertiesLength }
    if hasGeometry { end = (end + 7) / 8 * 8 + blobLength }
    return end
  }

  /// The header's CRS for `--crs`: WGS84 (EPSG:4326) when nil, an EPSG code, or WKT.
  private static func crs(_ given: String?) throws -> (code: Int32, wkt: String?) {
    guard let given else { return (4326, nil) }
    let parts = given.split(separator: ":")
    if parts.count == 2, parts[0].uppercased() == "EPSG", let code = Int32(parts[1]), code > 0 {
      return (code, nil)
    }
    if given.contains("[") { return (0, given) }
    throw GeoPipeError.usage(
      "FlatGeobuf records a CRS as EPSG:CODE or WKT, not '\(given)': give --crs as, for "
        + "example, EPSG:3857")
  }

  private static func stem(of path: String) -> String {
    guard path != "-" else { return "" }
    var name = Substring(path)
    if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
    if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
    return String(name)
  }

  private static func power(of precision: Int) -> Double {
    var scale = 1.0
    for _ in 0..<max(0, min(precision, 17)) { scale *= 10 }
    return scale
  }

  static func append32(_ bytes: inout [UInt8], _ value: UInt32) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  static func load32(_ bytes: some RandomAccessCollection<UInt8>, _ at: Int) -> UInt32 {
    var value: UInt32 = 0
    var i = bytes.index(bytes.startIndex, offsetBy: at)
    for shift in stride(from: 0, to: 32, by: 8) {
      value |= UInt32(bytes[i]) << shift
      i = bytes.index(after: i)
    }
    return value
  }
}
