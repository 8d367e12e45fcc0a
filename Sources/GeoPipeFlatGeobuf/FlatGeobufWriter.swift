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

  private var columnIndex: [String: Int] = [:]
  private var columnNames: [String] = []
  private var columnKinds: [UInt8] = []
  private var count = 0
  private var extent = [Double.infinity, .infinity, -Double.infinity, -Double.infinity]
  private var kinds = Set<GeometryKind>()
  private var lastKind: GeometryKind?
  /// The last feature's keys and their columns: features of a table have the same keys, in
  /// the same order, and need no lookup.
  private var lastKeys: [String] = []
  private var lastColumns: [Int] = []
  private var dimensions = FGBGeometry.Dimensions(z: false, m: false)
  /// The z/m combinations of the geometries, one bit each (a geometry short of the layer's is
  /// re-encoded).
  private var dimensionSets: UInt8 = 0
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
    if let precision { geometry?.round(toDecimals: precision) }
    var (minX, minY, maxX, maxY) = (
      Double.infinity, Double.infinity, -Double.infinity, -Double.infinity
    )
    builder.reset()
    var table = 0
    var own = FGBGeometry.Dimensions(z: false, m: false)
    if let geometry {
      geometry.forEachXY { x, y in
        minX = min(minX, x)
        minY = min(minY, y)
        maxX = max(maxX, x)
        maxY = max(maxY, y)
      }
      if geometry.kind != lastKind {
        kinds.insert(geometry.kind)
        lastKind = geometry.kind
      }
      own = FGBGeometry.dimensions(of: geometry)
      dimensions.z = dimensions.z || own.z
      dimensions.m = dimensions.m || own.m
      dimensionSets |= 1 << ((own.z ? 1 : 0) | (own.m ? 2 : 0))
      table = FGBGeometry.encode(geometry, dimensions: own, into: &builder)
    }
    extent[0] = min(extent[0], minX)
    extent[1] = min(extent[1], minY)
    extent[2] = max(extent[2], maxX)
    extent[3] = max(extent[3], maxY)

    // The record: its length, flags, the geometry table's offset and blob, then the tagged
    // properties.
    let start = pending.count
    Self.append32(&pending, 0)  // the record's length, set below
    pending.append((geometry != nil ? 1 : 0) | (own.z ? 2 : 0) | (own.m ? 4 : 0))
    Self.append32(&pending, UInt32(table))
    Self.append32(&pending, UInt32(builder.bytes.count))
    pending.append(contentsOf: builder.bytes)
    var propertiesLength = 0
    var propertyCount = 0
    for (position, member) in (feature.properties ?? JSONObject()).enumerated() {
      guard let kind = PropertyKind(member.value) else { continue }
      let column = try columnNumber(member.key, position: position)
      columnKinds[column] |= kind.rawValue
      propertyCount += 1
      pending.append(UInt8(truncatingIfNeeded: column))
      pending.append(UInt8(truncatingIfNeeded: column >> 8))
      pending.append(kind.rawValue)
      propertiesLength += 2 + kind.append(member.value, to: &pending)
    }
    let length = pending.count - start
    for k in 0..<4 { pending[start + k] = UInt8(truncatingIfNeeded: length >> (8 * k)) }
    guard length <= Int(UInt32.max) else {
      throw GeoPipeError.data("feature \(count) is too large for FlatGeobuf", at: nil)
    }
    if indexed {
      boxes.append(minX)
      boxes.append(minY)
      boxes.append(maxX)
      boxes.append(maxY)
      recordOffsets.append(scratchSize)
      sizes.append(
        Self.encodedSize(
          hasGeometry: geometry != nil,
          propertiesLength: propertyCount > 0 ? propertiesLength : nil,
          blobLength: builder.bytes.count))
    }
    scratchSize += length
    count += 1
    if pending.count >= 1 << 20 { try flushPending() }
  }

  /// The column of property `key`, at `position` in its feature; a new one when it is new.
  private func columnNumber(_ key: String, position: Int) throws -> Int {
    if position < lastKeys.count, lastKeys[position] == key { return lastColumns[position] }
    let column: Int
    if let known = columnIndex[key] {
      column = known
    } else {
      guard columnNames.count <= Int(UInt16.max) else {
        throw GeoPipeError.data(
          "FlatGeobuf holds at most 65,536 properties; feature \(count) brings one more "
            + "('\(key)')", at: nil)
      }
      column = columnNames.count
      columnIndex[key] = column
      columnNames.append(key)
      columnKinds.append(0)
    }
    if position < lastKeys.count {
      lastKeys[position] = key
      lastColumns[position] = column
    } else if position == lastKeys.count {
      lastKeys.append(key)
      lastColumns.append(column)
    }
    return column
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
    try scratch.withMappedBytes { mapped in
      if header.indexNodeSize > 0 {
        try writeIndexed(&out, mapped: mapped, types: types, encoder: &encoder)
      } else {
        try emit(&out)
        var at = 0
        while at < mapped.count {
          let length = Int(
            UInt32(littleEndian: mapped.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
          try encoder.encode(UnsafeRawBufferPointer(rebasing: mapped[at..<at + length]), into: &out)
          at += length
          if out.count >= 1 << 20 { try emit(&out) }
        }
      }
    }
    try emit(&out)
    try sink.commit()
  }

  /// Writes the index, then the features in its order.
  private func writeIndexed(
    _ out: inout [UInt8], mapped: UnsafeRawBufferPointer, types: [FGBColumnType],
    encoder: inout FeatureEncoder
  ) throws {
    let order = hilbertOrder()
    // Strings and numbers in a JSON column are written as JSON text, and geometries short of
    // the layer's z or m get NaN ones: those features' sizes change.
    let textInJSON = zip(columnKinds, types).contains {
      $0.1 == .json && $0.0 & ~PropertyKind.json.rawValue != 0
    }
    if textInJSON || dimensionSets.nonzeroBitCount > 1 {
      var scratchOut: [UInt8] = []
      for k in order {
        scratchOut.removeAll(keepingCapacity: true)
        try encoder.encode(record(k, in: mapped), into: &scratchOut)
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
      try encoder.encode(record(k, in: mapped), into: &out)
      if out.count >= 1 << 20 {
        written += out.count
        try emit(&out)
      }
    }
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

  /// Record `k` of the mapped scratch file.
  private func record(_ k: Int, in scratch: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    let start = recordOffsets[k]
    let end = k + 1 < recordOffsets.count ? recordOffsets[k + 1] : scratchSize
    return UnsafeRawBufferPointer(rebasing: scratch[start..<end])
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

  static func append32(_ bytes: inout [UInt8], _ value: UInt32) {
    withUnsafeBytes(of: value.littleEndian) { bytes.appendBytes($0) }
  }
}
