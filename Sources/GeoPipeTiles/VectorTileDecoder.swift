import GeoPipeCore

/// One layer of a decoded vector tile (MVT 2.1 §4.1): its name, extent, the keys and values
/// its features' tags point into, and the features, with values and geometries left as the
/// bytes they were stored as until asked for.
struct TileLayer {
  /// The tile's bytes, which the ranges below point into.
  let bytes: [UInt8]
  var name: String
  var version: Int
  var extent: Int
  var keys: [String]
  /// Each Value message's bytes.
  var values: [Range<Int>]
  var features: [TileFeature]

  /// The value at `index` as JSON: strings, numbers of every type, booleans.
  func value(_ index: Int) throws -> JSONValue {
    var decoder = ProtobufDecoder(bytes, range: values[index])
    var result: JSONValue?
    while !decoder.atEnd {
      let (number, value) = try decoder.field()
      switch (number, value) {
      case (1, .bytes(let range)): result = .string(decoder.string(range))
      case (2, .fixed32(let bits)): result = .double(Double(Float(bitPattern: bits)))
      case (3, .fixed64(let bits)): result = .double(Double(bitPattern: bits))
      case (4, .varint(let n)): result = .integer(Int64(bitPattern: n))
      case (5, .varint(let n)):
        result = n <= UInt64(Int64.max) ? .integer(Int64(n)) : .bigInteger(String(n))
      case (6, .varint(let n)):
        result = .integer(Int64(bitPattern: n >> 1) ^ -Int64(bitPattern: n & 1))
      case (7, .varint(let n)): result = .bool(n != 0)
      case (1...7, _): throw TilesError("value \(index) has field \(number) of the wrong type")
      default: continue
      }
    }
    guard let result else { throw TilesError("value \(index) holds no value") }
    return result
  }

  /// A feature's properties in tag order.
  func properties(of feature: TileFeature) throws -> JSONObject {
    var object = JSONObject()
    object.reserveCapacity(feature.tags.count / 2)
    var k = 0
    while k + 1 < feature.tags.count {
      object[keys[Int(feature.tags[k])]] = try value(Int(feature.tags[k + 1]))
      k += 2
    }
    return object
  }

  /// A feature's geometry commands.
  func commands(of feature: TileFeature) throws -> [UInt32] {
    try ProtobufDecoder(bytes).packed(feature.geometry)
  }
}

/// One feature of a `TileLayer` (MVT 2.1 §4.2).
struct TileFeature {
  var id: UInt64?
  /// 0 unknown, 1 point, 2 line string, 3 polygon.
  var type: UInt8
  /// Key and value indexes in pairs, each checked against the layer's tables.
  var tags: [UInt32]
  /// The packed geometry commands' bytes.
  var geometry: Range<Int>
}

/// Decodes the protocol-buffers message of a vector tile into its layers (MVT 2.1 §4),
/// checking every length, index and type; unknown fields are skipped as protobuf allows.
enum VectorTileDecoder {
  /// The layers of an uncompressed tile.
  static func decode(_ bytes: [UInt8]) throws -> [TileLayer] {
    var decoder = ProtobufDecoder(bytes)
    var layers: [TileLayer] = []
    while !decoder.atEnd {
      let (number, value) = try decoder.field()
      guard number == 3 else { continue }
      guard case .bytes(let range) = value else { throw TilesError("a layer is not a message") }
      let layer = try self.layer(bytes, range)
      guard !layers.contains(where: { $0.name == layer.name }) else {
        throw TilesError("layer '\(layer.name)' appears twice")
      }
      layers.append(layer)
    }
    return layers
  }

  private static func layer(_ bytes: [UInt8], _ range: Range<Int>) throws -> TileLayer {
    var decoder = ProtobufDecoder(bytes, range: range)
    var layer = TileLayer(
      bytes: bytes, name: "", version: 1, extent: 4096, keys: [], values: [], features: [])
    var name: String?
    while !decoder.atEnd {
      let (number, value) = try decoder.field()
      switch (number, value) {
      case (15, .varint(let n)): layer.version = Int(min(n, 1000))
      case (1, .bytes(let r)): name = decoder.string(r)
      case (2, .bytes(let r)): layer.features.append(try feature(decoder, r))
      case (3, .bytes(let r)): layer.keys.append(decoder.string(r))
      case (4, .bytes(let r)): layer.values.append(r)
      case (5, .varint(let n)):
        guard n > 0, n <= 1 << 24 else { throw TilesError("the layer's extent \(n) is invalid") }
        layer.extent = Int(n)
      case (1...5, _), (15, _): throw TilesError("layer field \(number) has the wrong type")
      default: continue
      }
    }
    guard let name else { throw TilesError("a layer has no name") }
    layer.name = name
    guard (1...2).contains(layer.version) else {
      throw TilesError("layer '\(name)' has version \(layer.version); versions 1 and 2 are known")
    }
    for (k, feature) in layer.features.enumerated() {
      var t = 0
      while t < feature.tags.count {
        guard t + 1 < feature.tags.count else {
          throw TilesError("layer '\(name)' feature \(k) has an odd number of tags")
        }
        guard Int(feature.tags[t]) < layer.keys.count,
          Int(feature.tags[t + 1]) < layer.values.count
        else {
          throw TilesError(
            "layer '\(name)' feature \(k) has a tag (\(feature.tags[t]), \(feature.tags[t + 1])) "
              + "past its \(layer.keys.count) keys and \(layer.values.count) values")
        }
        t += 2
      }
    }
    return layer
  }

  private static func feature(_ parent: ProtobufDecoder, _ range: Range<Int>) throws
    -> TileFeature
  {
    var decoder = ProtobufDecoder(parent.bytes, range: range)
    var feature = TileFeature(
      id: nil, type: 0, tags: [], geometry: range.upperBound..<range.upperBound)
    while !decoder.atEnd {
      let (number, value) = try decoder.field()
      switch (number, value) {
      case (1, .varint(let n)): feature.id = n
      case (2, .bytes(let r)): feature.tags = try decoder.packed(r)
      case (3, .varint(let n)):
        guard n <= 3 else { throw TilesError("a feature has geometry type \(n)") }
        feature.type = UInt8(n)
      case (4, .bytes(let r)): feature.geometry = r
      case (1...4, _): throw TilesError("feature field \(number) has the wrong type")
      default: continue
      }
    }
    return feature
  }
}
