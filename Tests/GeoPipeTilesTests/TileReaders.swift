import Foundation
import GeoPipeIO
import GeoPipeSQLite

/// Readers written here from the specifications, to check what geopipe writes without
/// sharing its code: protobuf fields, MVT features, gunzip, MBTiles rows and PMTiles
/// directories.
struct ProtobufReader {
  let bytes: [UInt8]
  var position = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var atEnd: Bool { position >= bytes.count }

  mutating func varint() -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let byte = bytes[position]
      position += 1
      result |= UInt64(byte & 0x7f) << shift
      if byte < 0x80 { return result }
      shift += 7
    }
  }

  /// The next field: its number, wire type and value (a varint, or the bytes).
  mutating func field() -> (number: Int, type: Int, value: UInt64, data: [UInt8]) {
    let key = varint()
    let type = Int(key & 7)
    switch type {
    case 0: return (Int(key >> 3), 0, varint(), [])
    case 1:
      var bits: UInt64 = 0
      for k in 0..<8 { bits |= UInt64(bytes[position + k]) << (8 * UInt64(k)) }
      position += 8
      return (Int(key >> 3), 1, bits, [])
    default:
      let length = Int(varint())
      let data = Array(bytes[position..<position + length])
      position += length
      return (Int(key >> 3), 2, 0, data)
    }
  }

  static func packed(_ data: [UInt8]) -> [UInt64] {
    var reader = ProtobufReader(data)
    var out: [UInt64] = []
    while !reader.atEnd { out.append(reader.varint()) }
    return out
  }

  static func unzigzag(_ n: UInt64) -> Int64 { Int64(n >> 1) ^ -Int64(n & 1) }
}

/// A decoded MVT feature: its id, type, properties (as text) and geometry commands.
struct DecodedFeature {
  var id: UInt64?
  var type: Int
  var properties: [String: String]
  var commands: [UInt32]

  /// The points of a point feature, in tile units.
  var points: [(Int64, Int64)] {
    var out: [(Int64, Int64)] = []
    var k = 0
    var x: Int64 = 0
    var y: Int64 = 0
    while k < commands.count {
      let count = Int(commands[k] >> 3)
      k += 1
      for _ in 0..<(commands[k - 1] & 7 == 7 ? 0 : count) {
        x += ProtobufReader.unzigzag(UInt64(commands[k]))
        y += ProtobufReader.unzigzag(UInt64(commands[k + 1]))
        out.append((x, y))
        k += 2
      }
    }
    return out
  }
}

struct DecodedLayer {
  var name = ""
  var version = 0
  var extent = 0
  var features: [DecodedFeature] = []
}

enum MVTDecoder {
  static func decode(_ tile: [UInt8]) -> [DecodedLayer] {
    var reader = ProtobufReader(tile)
    var layers: [DecodedLayer] = []
    while !reader.atEnd {
      let field = reader.field()
      if field.number == 3 { layers.append(layer(field.data)) }
    }
    return layers
  }

  static func layer(_ data: [UInt8]) -> DecodedLayer {
    var reader = ProtobufReader(data)
    var layer = DecodedLayer()
    var keys: [String] = []
    var values: [String] = []
    var raw: [(UInt64?, Int, [UInt64], [UInt32])] = []
    while !reader.atEnd {
      let field = reader.field()
      switch field.number {
      case 1: layer.name = String(decoding: field.data, as: UTF8.self)
      case 15: layer.version = Int(field.value)
      case 5: layer.extent = Int(field.value)
      case 3: keys.append(String(decoding: field.data, as: UTF8.self))
      case 4: values.append(value(field.data))
      case 2:
        var f = ProtobufReader(field.data)
        var id: UInt64?
        var type = 0
        var tags: [UInt64] = []
        var geometry: [UInt32] = []
        while !f.atEnd {
          let g = f.field()
          switch g.number {
          case 1: id = g.value
          case 2: tags = ProtobufReader.packed(g.data)
          case 3: type = Int(g.value)
          case 4: geometry = ProtobufReader.packed(g.data).map { UInt32($0) }
          default: break
          }
        }
        raw.append((id, type, tags, geometry))
      default: break
      }
    }
    for (id, type, tags, geometry) in raw {
      var properties: [String: String] = [:]
      var k = 0
      while k + 1 < tags.count {
        properties[keys[Int(tags[k])]] = values[Int(tags[k + 1])]
        k += 2
      }
      layer.features.append(
        DecodedFeature(id: id, type: type, properties: properties, commands: geometry))
    }
    return layer
  }

  /// A Value message as text: strings as they are, numbers and booleans as JSON writes them.
  static func value(_ data: [UInt8]) -> String {
    var reader = ProtobufReader(data)
    let field = reader.field()
    switch field.number {
    case 1: return String(decoding: field.data, as: UTF8.self)
    case 3: return "\(Double(bitPattern: field.value))"
    case 5: return "\(field.value)"
    case 6: return "\(ProtobufReader.unzigzag(field.value))"
    case 7: return field.value == 1 ? "true" : "false"
    default: return "?"
    }
  }
}

enum TestGzip {
  static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let source = try GzipByteSource(MemoryByteSource(bytes))
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
      if n == 0 { return out }
      out.append(contentsOf: buffer[0..<n])
    }
  }
}

/// Every tile of an MBTiles file by XYZ "z/x/y", gunzipped.
func readMBTiles(_ path: String) throws -> (tiles: [String: [UInt8]], metadata: [String: String]) {
  let database = try SQLiteDatabase(path: path, readOnly: true)
  var tiles: [String: [UInt8]] = [:]
  let rows = try database.statement(
    "SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles")
  while try rows.step() {
    let z = Int(rows.int64(0))
    let y = (1 << z) - 1 - Int(rows.int64(2))
    tiles["\(z)/\(rows.int64(1))/\(y)"] = try TestGzip.gunzip(hexBytes(rows.text(3)))
  }
  var metadata: [String: String] = [:]
  let meta = try database.statement("SELECT name, value FROM metadata")
  while try meta.step() { metadata[meta.text(0)] = meta.text(1) }
  return (tiles, metadata)
}

func hexBytes(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  var high: UInt8?
  for c in text.utf8 {
    let v = c <= 57 ? c - 48 : c - 55
    if let h = high {
      out.append(h << 4 | v)
      high = nil
    } else {
      high = v
    }
  }
  return out
}

/// Every tile of a PMTiles archive by tile id, gunzipped, read from the header and
/// directories as the v3 specification lays them out; and the metadata JSON.
func readPMTiles(_ path: String) throws -> (
  tiles: [UInt64: [UInt8]], header: [UInt8], metadata: String
) {
  let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
  func u64(_ at: Int) -> Int {
    var v = 0
    for k in 0..<8 { v |= Int(file[at + k]) << (8 * k) }
    return v
  }
  let dataOffset = u64(56)
  let leafOffset = u64(40)
  var tiles: [UInt64: [UInt8]] = [:]
  func walk(_ offset: Int, _ length: Int) throws {
    let bytes = try TestGzip.gunzip(Array(file[offset..<offset + length]))
    var reader = ProtobufReader(bytes)
    let n = Int(reader.varint())
    var ids: [UInt64] = []
    var last: UInt64 = 0
    for _ in 0..<n {
      last += reader.varint()
      ids.append(last)
    }
    let runs = (0..<n).map { _ in reader.varint() }
    let lengths = (0..<n).map { _ in Int(reader.varint()) }
    var offsets: [Int] = []
    for k in 0..<n {
      let v = Int(reader.varint())
      offsets.append(v == 0 && k > 0 ? offsets[k - 1] + lengths[k - 1] : v - 1)
    }
    for k in 0..<n {
      if runs[k] == 0 {
        try walk(leafOffset + offsets[k], lengths[k])
      } else {
        let data = try TestGzip.gunzip(
          Array(file[dataOffset + offsets[k]..<dataOffset + offsets[k] + lengths[k]]))
        for r in 0..<runs[k] { tiles[ids[k] + r] = data }
      }
    }
  }
  try walk(u64(8), u64(16))
  let metadata = try TestGzip.gunzip(Array(file[u64(24)..<u64(24) + u64(32)]))
  return (tiles, Array(file[0..<127]), String(decoding: metadata, as: UTF8.self))
}
