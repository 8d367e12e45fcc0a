/// One layer built from the same-named layers of several tiles (or one layer re-encoded with
/// fewer attributes): features concatenated in input order, their ids, types and geometry
/// commands copied as they are, and their tags re-tabled into one keys table and one values
/// table (values compared by their encoded bytes, so `1` as an int and as a uint stay apart).
struct TileLayerMerger {
  let name: String
  let extent: Int
  private(set) var version: Int
  private(set) var count = 0
  private var keys: [String] = []
  private var keyIndex: [String: UInt32] = [:]
  private var values: [ArraySlice<UInt8>] = []
  private var valueIndex: [TileBytes: UInt32] = [:]
  private var features = ProtobufWriter()
  private var tags: [UInt32] = []

  /// An empty layer taking the name, extent and version of `first` (which it does not add).
  init(like first: TileLayer) {
    name = first.name
    extent = first.extent
    version = first.version
  }

  /// Appends the features of `layer`, which must have this layer's name, keeping only the
  /// attributes `filter` keeps.
  mutating func add(_ layer: TileLayer, filter: TileAttributeFilter) throws {
    guard layer.extent == extent else {
      throw TilesError(
        "layer '\(name)' has extent \(extent) in one input and \(layer.extent) in another; "
          + "tiles join merges layers of the same extent only")
    }
    version = max(version, layer.version)
    let none = UInt32.max
    var keyMap = [UInt32](repeating: none, count: layer.keys.count)
    let keptKeys = layer.keys.map { filter.keepsAll || filter.keeps($0) }
    var valueMap = [UInt32](repeating: none, count: layer.values.count)
    valueIndex.reserveCapacity(valueIndex.count + layer.values.count)
    for feature in layer.features {
      tags.removeAll(keepingCapacity: true)
      var k = 0
      while k + 1 < feature.tags.count {
        let (key, value) = (Int(feature.tags[k]), Int(feature.tags[k + 1]))
        k += 2
        guard keptKeys[key] else { continue }
        if keyMap[key] == none {
          let name = layer.keys[key]
          if let known = keyIndex[name] {
            keyMap[key] = known
          } else {
            keyMap[key] = UInt32(keys.count)
            keyIndex[name] = keyMap[key]
            keys.append(name)
          }
        }
        if valueMap[value] == none {
          let bytes = layer.bytes[layer.values[value]]
          if let known = valueIndex[TileBytes(bytes: bytes)] {
            valueMap[value] = known
          } else {
            valueMap[value] = UInt32(values.count)
            valueIndex[TileBytes(bytes: bytes)] = valueMap[value]
            values.append(bytes)
          }
        }
        tags.append(keyMap[key])
        tags.append(valueMap[value])
      }
      let geometry = layer.bytes[feature.geometry]
      features.feature(
        id: feature.id, tags: tags, type: feature.type, geometryLength: geometry.count
      ) { $0.bytes.append(contentsOf: geometry) }
      count += 1
    }
  }

  /// The layer message, appended to a tile as field 3.
  func encode(into tile: inout ProtobufWriter) {
    var layer = ProtobufWriter()
    layer.varintField(15, UInt64(version))
    layer.stringField(1, name)
    layer.bytes.append(contentsOf: features.bytes)
    for key in keys { layer.stringField(3, key) }
    for value in values {
      layer.key(4, 2)
      layer.varint(UInt64(value.count))
      layer.bytes.append(contentsOf: value)
    }
    layer.varintField(5, UInt64(extent))
    tile.bytesField(3, layer.bytes)
  }
}
