import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator

extension Tiler {
  // MARK: Properties

  /// Properties as global key and value numbers, converted as tippecanoe does.
  ///
  /// Null values are left out, integers stay integers, arrays and objects become their JSON
  /// text. `skipping` names a property left out (the one that named the layer), as are those
  /// the attribute filter leaves out; ``TilerOptions/attributeTypes`` convert values first.
  /// Each key's type is noted for the layer's `vector_layers` entry.
  func tags(_ properties: JSONObject?, layer: Int32, skipping: String?) -> [Int32] {
    guard let properties else { return [] }
    var tags: [Int32] = []
    let filter = options.attributes
    let keepsAll = filter.keepsAll
    let hasTypes = !options.attributeTypes.isEmpty
    for (position, member) in properties.members.enumerated()
    where member.key != skipping && (keepsAll || filter.keeps(member.key)) {
      var json = member.value
      if hasTypes, let type = options.attributeTypes[member.key], !json.isNull {
        guard let converted = type.convert(json) else {
          summary.unconverted[member.key, default: 0] += 1
          continue
        }
        json = converted
      }
      guard let value = Self.tileValue(json) else { continue }
      let (key, number) = intern(member.key, value, layer: layer, position: position)
      tags.append(key)
      tags.append(number)
    }
    return tags
  }

  /// The key and value numbers of a property, added to the tables when new, with its type
  /// noted for the layer's `vector_layers` entry.
  ///
  /// `position` is the property's place among its feature's: features mostly list the same
  /// keys in the same order, so the key last seen there is tried before the key table.
  func intern(_ name: String, _ value: TileValue, layer: Int32, position: Int = -1)
    -> (key: Int32, value: Int32)
  {
    let key: Int32
    if keysByPosition.indices.contains(position), keysByPosition[position].name == name {
      key = keysByPosition[position].key
    } else {
      key = Self.number(of: name, in: &keyNumbers, table: &keyNames)
      if keysByPosition.indices.contains(position) {
        keysByPosition[position] = (name, key)
      } else if position >= 0 && position == keysByPosition.count {
        keysByPosition.append((name, key))
      }
    }
    let number = Self.number(of: value, in: &valueNumbers, table: &valueTable)
    noteFieldType(value.fieldType, layer: Int(layer), key: Int(key))
    return (key, number)
  }

  /// Notes that layer `l` has values of field type `type` under key `k`: the key's type, or
  /// Mixed once it has had two (the order values come in does not matter).
  func noteFieldType(_ type: UInt8, layer l: Int, key k: Int) {
    if k >= layers[l].fieldTypes.count {
      layers[l].fieldTypes += repeatElement(0, count: k + 1 - layers[l].fieldTypes.count)
    }
    let seen = layers[l].fieldTypes[k]
    if seen != type && seen != TileValue.mixedFieldType {
      layers[l].fieldTypes[k] = seen == 0 ? type : TileValue.mixedFieldType
    }
  }

  /// The number of `item` in `table`, where it is added when new.
  static func number<Item: Hashable>(
    of item: Item, in numbers: inout [Item: Int32], table: inout [Item]
  ) -> Int32 {
    if let known = numbers[item] { return known }
    let number = Int32(table.count)
    table.append(item)
    numbers[item] = number
    return number
  }

  static func tileValue(_ value: JSONValue) -> TileValue? {
    switch value {
    case .null: return nil
    case .bool(let b): return .bool(b)
    case .integer(let n): return n >= 0 ? .uint(UInt64(n)) : .sint(n)
    case .double(let x):
      if x == x.rounded(), abs(x) < 9.0e15 { return x >= 0 ? .uint(UInt64(x)) : .sint(Int64(x)) }
      return .double(x)
    case .bigInteger(let digits), .bigNumber(let digits):
      return Double(digits).map { .double($0) } ?? .string(digits)
    case .string(let s): return .string(s)
    case .array, .object:
      var w = JSONTextWriter()
      w.writeValue(value)
      return .string(String(decoding: w.bytes, as: UTF8.self))
    }
  }

  // MARK: Metadata

  /// The bounds the metadata gives, exactly: the features' box, its latitudes clamped to
  /// Web Mercator's; nil when no feature had geometry (the metadata then gives the world's).
  public var metadataBounds: BBox? {
    bounds.isEmpty ? nil : Self.clamped(bounds)
  }

  /// `box` with its latitudes clamped to Web Mercator's.
  private static func clamped(_ box: BBox) -> BBox {
    var box = box
    box.south = max(box.south, -WebMercator.maxLatitude)
    box.north = min(box.north, WebMercator.maxLatitude)
    return box
  }

  /// The metadata of the tileset `write` writes (after `write`, with what it left out).
  public func metadata(name: String, attribution: String, description: String)
    -> TilesetMetadata
  {
    let box =
      metadataBounds
      ?? Self.clamped(BBox(west: -180, south: -85.051129, east: 180, north: 85.051129))
    var json = JSONTextWriter()
    json.raw("{\"vector_layers\":[")
    for (k, layer) in layers.enumerated() {
      if k > 0 { json.raw(",") }
      json.raw("{\"id\":")
      json.writeString(layer.name)
      json.raw(",\"description\":\"\",\"minzoom\":")
      json.writeInteger(Int64(max(options.minZoom, min(layer.minZoom, options.maxZoom))))
      json.raw(",\"maxzoom\":")
      json.writeInteger(Int64(min(options.maxZoom, max(layer.maxZoom, options.minZoom))))
      json.raw(",\"fields\":{")
      let order = layer.fieldTypes.indices.filter { layer.fieldTypes[$0] != 0 }.sorted {
        keyNames[$0] < keyNames[$1]
      }
      for (f, key) in order.enumerated() {
        if f > 0 { json.raw(",") }
        json.writeString(keyNames[key])
        json.raw(":")
        json.writeString(TileValue.fieldTypeNames[Int(layer.fieldTypes[key])])
      }
      json.raw("}}")
    }
    json.raw("]")
    writeCounts(into: &json)
    json.raw("}")
    return TilesetMetadata(
      name: name, description: description, attribution: attribution,
      west: box.west, south: box.south, east: box.east, north: box.north,
      minZoom: options.minZoom, maxZoom: options.maxZoom,
      json: String(decoding: json.bytes, as: UTF8.self))
  }

  /// A `"geopipe"` member with the features each zoom left out, when any was: per zoom,
  /// `"dropped"`, `"coalesced"` and `"clustered"`.
  private func writeCounts(into json: inout JSONTextWriter) {
    let counts = [
      ("dropped", summary.dropped), ("coalesced", summary.coalesced),
      ("clustered", summary.clustered),
    ].filter {
      $0.1.values.contains { $0 > 0 }
    }
    guard !counts.isEmpty else { return }
    json.raw(",\"geopipe\":{")
    for (k, (name, byZoom)) in counts.enumerated() {
      if k > 0 { json.raw(",") }
      json.writeString(name)
      json.raw(":{")
      for (n, z) in byZoom.keys.sorted().filter({ byZoom[$0, default: 0] > 0 }).enumerated() {
        if n > 0 { json.raw(",") }
        json.writeString(String(z))
        json.raw(":")
        json.writeInteger(Int64(byZoom[z, default: 0]))
      }
      json.raw("}")
    }
    json.raw("}")
  }

  /// The name a property's value gives a layer: a string as it is, a number or a boolean as
  /// its JSON text; nil for null, an empty string, an array or an object.
  static func layerName(_ value: JSONValue) -> String? {
    switch value {
    case .string(let s): return s.isEmpty ? nil : s
    case .null, .array, .object: return nil
    default:
      var w = JSONTextWriter()
      w.writeValue(value)
      return String(decoding: w.bytes, as: UTF8.self)
    }
  }

  // MARK: Geometry

  /// A geometry in world units, one part per kind (a collection's members each on their own).
  static func world(_ geometry: Geometry) -> [WorldGeometry] {
    func run(_ c: CoordinateArray) -> [Double] {
      var out: [Double] = []
      out.reserveCapacity(c.count * 2)
      c.forEachXY { x, y in
        out.append(WebMercator.x(longitude: x))
        out.append(WebMercator.y(latitude: y))
      }
      return out
    }
    switch geometry {
    case .point(let p):
      return [
        WorldGeometry(
          kind: .point, parts: [[WebMercator.x(longitude: p.x), WebMercator.y(latitude: p.y)]])
      ]
    case .multiPoint(let c):
      return c.isEmpty ? [] : [WorldGeometry(kind: .point, parts: [run(c)])]
    case .lineString(let c):
      return [WorldGeometry(kind: .line, parts: [run(c)])]
    case .multiLineString(let lines):
      return lines.isEmpty ? [] : [WorldGeometry(kind: .line, parts: lines.map(run))]
    case .polygon(let rings):
      return rings.isEmpty
        ? [] : [WorldGeometry(kind: .polygon, parts: rings.map(run), ringCounts: [rings.count])]
    case .multiPolygon(let polygons):
      let kept = polygons.filter { !$0.isEmpty }
      return kept.isEmpty
        ? []
        : [
          WorldGeometry(
            kind: .polygon, parts: kept.flatMap { $0.map(run) }, ringCounts: kept.map(\.count))
        ]
    case .geometryCollection(let members):
      return members.flatMap(world)
    }
  }
}
