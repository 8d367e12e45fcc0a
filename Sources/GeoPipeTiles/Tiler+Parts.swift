import GeoPipeCore
import GeoPipeIO

extension Tiler {
  // MARK: Features parts

  /// The first bytes of a features part, with its version.
  static let featuresPartMagic = Array("geopipe tile features 1\n".utf8)
  /// The last bytes of a features part, after which nothing may follow.
  static let featuresPartEnd = Array("end\n".utf8)

  /// What a tiler holds after its features were added, ready for tilers that add it to theirs
  /// (``absorb(featuresPart:)``): a shard's features, prepared once for every share of the
  /// tiles so that no share parses or numbers them again.
  ///
  /// A sequence of protobuf varints and little-endian doubles: the header (magic, the shard,
  /// the options adding depends on, the counts and the bounds), the key, value and layer
  /// tables in the order their entries first appeared, every stored feature with its tags as
  /// numbers into those tables, the lines' and polygons' world geometry, and an end mark.
  /// `withoutGeometry` is kept for the stage's note.
  public func featuresPart(shard: Shard, withoutGeometry: Int) -> [UInt8] {
    var out = ProtobufWriter()
    out.bytes = Self.featuresPartMagic
    out.varint(UInt64(shard.index))
    out.varint(UInt64(shard.count))
    out.string(addingFingerprint)
    out.varint(UInt64(summary.features))
    out.varint(UInt64(withoutGeometry))
    out.varint(bounds.isEmpty ? 0 : 1)
    if !bounds.isEmpty {
      for edge in [bounds.west, bounds.south, bounds.east, bounds.north] { out.double(edge) }
    }
    out.varint(UInt64(keyNames.count))
    for name in keyNames { out.string(name) }
    out.varint(UInt64(valueTable.count))
    for value in valueTable {
      switch value {
      case .string(let s):
        out.varint(0)
        out.string(s)
      case .double(let x):
        out.varint(1)
        out.double(x)
      case .uint(let n):
        out.varint(2)
        out.varint(n)
      case .sint(let n):
        out.varint(3)
        out.varint(ProtobufWriter.zigzag64(n))
      case .bool(let b):
        out.varint(4)
        out.varint(b ? 1 : 0)
      }
    }
    out.varint(UInt64(layers.count))
    for layer in layers {
      out.string(layer.name)
      out.varint(ProtobufWriter.zigzag64(Int64(layer.minZoom)))
      out.varint(ProtobufWriter.zigzag64(Int64(layer.maxZoom)))
      out.varint(UInt64(layer.fieldTypes.count))
      out.bytes += layer.fieldTypes
    }
    out.varint(UInt64(features.count))
    out.bytes.reserveCapacity(out.bytes.count + features.count * 40)
    for stored in features {
      let flags =
        (stored.isShape ? 1 : 0) | (stored.id != nil ? 2 : 0) | (stored.points != nil ? 4 : 0)
      out.varint(UInt64(flags))
      out.double(stored.x)
      out.double(stored.y)
      if let id = stored.id { out.varint(id) }
      out.varint(ProtobufWriter.zigzag64(Int64(stored.minZoom)))
      out.varint(ProtobufWriter.zigzag64(Int64(stored.maxZoom)))
      out.varint(UInt64(stored.layer))
      out.varint(stored.index)
      out.varint(UInt64(stored.tags.count))
      for tag in stored.tags { out.varint(UInt64(tag)) }
      if let points = stored.points { out.geometry(points) }
    }
    out.varint(UInt64(shapes.count))
    for (feature, geometry) in shapes {
      out.varint(UInt64(feature))
      out.geometry(geometry)
    }
    out.bytes += Self.featuresPartEnd
    return out.bytes
  }

  /// Whether a world coordinate is one a tiler can place: within a million worlds of the map
  /// (features project into 0...1), so that tile numbers at zoom 24 fit.
  static func isWorldValue(_ value: Double) -> Bool { abs(value) <= 1e6 }

  /// What adding depends on, which tilers that absorb each other's parts must share.
  private var addingFingerprint: String {
    "min-zoom \(options.minZoom) max-zoom \(options.maxZoom) layer \(options.layer) "
      + "layer-property \(options.layerProperty ?? "-")"
  }

  /// Adds the features of a part written by ``featuresPart(shard:withoutGeometry:)``.
  ///
  /// They are added as if one by one after those already here: parts absorbed in shard order
  /// give the tiler of one run over all the features, tables numbered alike. Returns the part's
  /// shard and its count of features without geometry.
  ///
  /// Throws a ``TilesError`` for a part that is not one, was cut short, or was written with
  /// other options.
  public func absorb(featuresPart bytes: [UInt8]) throws -> (shard: Shard, withoutGeometry: Int) {
    guard bytes.starts(with: Self.featuresPartMagic) else {
      throw TilesError("not a part of tile features (or one of another version of geopipe)")
    }
    guard bytes.count >= Self.featuresPartMagic.count + Self.featuresPartEnd.count,
      bytes.suffix(Self.featuresPartEnd.count).elementsEqual(Self.featuresPartEnd)
    else { throw TilesError("the part is cut short") }
    var input = ProtobufDecoder(
      bytes, range: Self.featuresPartMagic.count..<(bytes.count - Self.featuresPartEnd.count))
    let index = try input.int()
    let shard: Shard
    do {
      shard = try Shard(index: index, count: try input.int())
    } catch {
      throw TilesError("the part names no valid shard")
    }
    let fingerprint = try input.string()
    guard fingerprint == addingFingerprint else {
      throw TilesError(
        "the part was written with other options (\(fingerprint), here \(addingFingerprint))")
    }
    let featureCount = try input.int()
    let withoutGeometry = try input.int()
    if try input.varint() == 1 {
      let edges = [try input.double(), try input.double(), try input.double(), try input.double()]
      guard edges.allSatisfy(\.isFinite), edges[0] <= edges[2], edges[1] <= edges[3] else {
        throw TilesError("the part's bounds are not a box")
      }
      bounds.extend(x: edges[0], y: edges[1])
      bounds.extend(x: edges[2], y: edges[3])
    }
    var keys: [Int32] = []
    for _ in 0..<(try input.count()) {
      keys.append(Self.number(of: try input.string(), in: &keyNumbers, table: &keyNames))
    }
    var values: [Int32] = []
    for _ in 0..<(try input.count()) {
      let value: TileValue =
        switch try input.varint() {
        case 0: .string(try input.string())
        case 1: .double(try input.double())
        case 2: .uint(try input.varint())
        case 3: .sint(Int64(try input.zigzagInt()))
        case 4: .bool(try input.varint() != 0)
        case let kind: throw TilesError("a value has the unknown kind \(kind)")
        }
      values.append(Self.number(of: value, in: &valueNumbers, table: &valueTable))
    }
    var layerMap: [Int32] = []
    for _ in 0..<(try input.count()) {
      let layer = Int(layerNumber(try input.string()))
      layerMap.append(Int32(layer))
      layers[layer].minZoom = min(layers[layer].minZoom, try input.zigzagInt())
      layers[layer].maxZoom = max(layers[layer].maxZoom, try input.zigzagInt())
      for k in 0..<(try input.count()) {
        let type = try input.byte()
        guard type != 0 else { continue }
        guard k < keys.count, Int(type) < TileValue.fieldTypeNames.count else {
          throw TilesError("a layer's field types do not match the part's keys")
        }
        noteFieldType(type, layer: layer, key: Int(keys[k]))
      }
    }
    let base = features.count
    let count = try input.count()
    if features.capacity < base + count {
      // Grown geometrically: parts added one by one must not each copy all features before.
      features.reserveCapacity(max(base + count, features.capacity * 2))
    }
    for n in 0..<count {
      do {
        features.append(
          try Self.storedFeature(from: &input, keys: keys, values: values, layers: layerMap))
      } catch let error as TilesError {
        throw TilesError("stored feature \(n + 1) of \(count): \(error.description)")
      }
    }
    let shapeCount = try input.count()
    for n in 0..<shapeCount {
      do {
        let (feature, shape) = try Self.shape(from: &input)
        guard feature < count, features[base + feature].isShape else {
          throw TilesError("its feature is not a line or polygon of the part")
        }
        shapes.append((Int32(base + feature), shape))
      } catch let error as TilesError {
        throw TilesError("shape \(n + 1) of \(shapeCount): \(error.description)")
      }
    }
    guard input.atEnd else { throw TilesError("the part has bytes after its features") }
    summary.features += featureCount
    return (shard, withoutGeometry)
  }

  /// A stored feature of a part, its tags and layer renumbered through the tables the part's
  /// were merged into (`keys`, `values`, `layers`: global numbers by the part's own).
  private static func storedFeature(
    from input: inout ProtobufDecoder, keys: [Int32], values: [Int32], layers layerMap: [Int32]
  ) throws -> Stored {
    let flags = try input.varint()
    let x = try input.double()
    let y = try input.double()
    let id: UInt64? = flags & 2 != 0 ? try input.varint() : nil
    let minZoom = try input.zigzagInt()
    let maxZoom = try input.zigzagInt()
    guard Self.isWorldValue(x), Self.isWorldValue(y), abs(minZoom) <= 1 << 20,
      abs(maxZoom) <= 1 << 20
    else {
      throw TilesError("its position or zooms are out of range")
    }
    let layer = try input.int()
    guard layer < layerMap.count else { throw TilesError("its layer is not in the part") }
    let index = try input.varint()
    let tagCount = try input.count()
    guard tagCount % 2 == 0 else { throw TilesError("its tags do not come in pairs") }
    var tags: [Int32] = []
    tags.reserveCapacity(tagCount)
    for _ in 0..<(tagCount / 2) {
      let (key, value) = (try input.int(), try input.int())
      guard key < keys.count, value < values.count else {
        throw TilesError("its tag is not in the part's tables")
      }
      tags.append(keys[key])
      tags.append(values[value])
    }
    let points = flags & 4 != 0 ? try input.geometry() : nil
    if let points,
      points.kind != .point || points.parts.count != 1 || points.parts[0].isEmpty
        || flags & 1 != 0
    {
      throw TilesError("its points are not a multipoint")
    }
    var stored = Stored(
      points: points, id: id, tags: tags,
      minZoom: minZoom, maxZoom: maxZoom, layer: layerMap[layer])
    stored.x = x
    stored.y = y
    stored.isShape = flags & 1 != 0
    stored.index = index
    return stored
  }

  /// A shape of a part: the number of its stored feature in the part, and its world geometry.
  private static func shape(from input: inout ProtobufDecoder) throws -> (Int, WorldGeometry) {
    let feature = try input.int()
    let shape = try input.geometry()
    let ringsAddUp =
      shape.kind == .polygon
      ? shape.ringCounts.allSatisfy({ $0 > 0 })
        && shape.ringCounts.reduce(0, +) == shape.parts.count
      : shape.ringCounts.isEmpty
    guard shape.kind != .point, ringsAddUp else { throw TilesError("its rings do not add up") }
    return (feature, shape)
  }
}

extension ProtobufWriter {
  /// A double as 8 little-endian bytes.
  fileprivate mutating func double(_ value: Double) {
    var bits = value.bitPattern.littleEndian
    withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
  }

  /// A string as its UTF-8 length and bytes.
  fileprivate mutating func string(_ text: String) {
    varint(UInt64(text.utf8.count))
    bytes.append(contentsOf: text.utf8)
  }

  /// World geometry: its kind, its parts (each a count and its doubles), its ring counts.
  fileprivate mutating func geometry(_ geometry: WorldGeometry) {
    varint(UInt64(geometry.kind.rawValue))
    varint(UInt64(geometry.parts.count))
    for part in geometry.parts {
      varint(UInt64(part.count))
      for value in part { double(value) }
    }
    varint(UInt64(geometry.ringCounts.count))
    for rings in geometry.ringCounts { varint(UInt64(rings)) }
  }
}

extension ProtobufDecoder {
  /// A varint that counts the entries that follow: no more than the bytes left could hold.
  fileprivate mutating func count() throws -> Int {
    let value = try varint()
    guard value <= UInt64(end - position) else {
      throw TilesError("a count (\(value)) is larger than the rest of the part")
    }
    return Int(value)
  }

  /// A varint that numbers something (a shard, a table entry, a feature).
  fileprivate mutating func int() throws -> Int {
    let value = try varint()
    guard value <= UInt64(Int32.max) else { throw TilesError("a number (\(value)) is too large") }
    return Int(value)
  }

  fileprivate mutating func zigzagInt() throws -> Int {
    let n = try varint()
    return Int(truncatingIfNeeded: Int64(bitPattern: n >> 1) ^ -Int64(bitPattern: n & 1))
  }

  fileprivate mutating func byte() throws -> UInt8 { bytes[try take(1).lowerBound] }

  fileprivate mutating func double() throws -> Double { Double(bitPattern: try fixed64()) }

  fileprivate mutating func string() throws -> String { string(try take(try count())) }

  fileprivate mutating func geometry() throws -> WorldGeometry {
    guard let kind = WorldGeometry.Kind(rawValue: UInt8(truncatingIfNeeded: try varint())) else {
      throw TilesError("a geometry has an unknown kind")
    }
    var parts: [[Double]] = []
    for _ in 0..<(try count()) {
      let n = try count()
      guard n <= (end - position) / 8 else { throw TilesError("a geometry runs past the part") }
      guard n % 2 == 0 else { throw TilesError("a geometry has a part of \(n) values") }
      var part: [Double] = []
      part.reserveCapacity(n)
      for _ in 0..<n { part.append(try double()) }
      guard part.allSatisfy(Tiler.isWorldValue) else {
        throw TilesError("a geometry has coordinates out of range")
      }
      parts.append(part)
    }
    var rings: [Int] = []
    for _ in 0..<(try count()) { rings.append(try int()) }
    return WorldGeometry(kind: kind, parts: parts, ringCounts: rings)
  }
}
