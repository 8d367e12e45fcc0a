import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator

/// Settings of a tileset (tippecanoe's defaults where it has one).
public struct TilerOptions: Sendable {
  /// The lowest zoom written.
  public var minZoom = 0
  /// The highest zoom written.
  public var maxZoom = 14
  /// The layer every feature goes into.
  public var layer = "features"
  /// Tile units across a tile (MVT's default 4096).
  public var extent = 4096
  /// Tile units around each tile that clipped lines and polygons keep (tippecanoe: 80 of 4096).
  public var buffer = 80
  /// Douglas–Peucker tolerance in tile units for lines and polygons (0: none).
  public var tolerance = 1.0
  /// Threads that encode tiles.
  public var threads = 1

  /// Creates options with the defaults.
  public init() {}
}

/// What a written tileset holds.
public struct TilesetSummary: Sendable {
  /// Tiles written.
  public var tiles = 0
  /// Features added.
  public var features = 0
  /// Feature copies written across all tiles.
  public var placements = 0
}

/// Cuts features into Mapbox Vector Tiles (MVT 2.1) zoom by zoom and hands them, gzipped and in
/// PMTiles tile-id order, to a tileset writer.
///
/// Holds every feature in memory, projected to Web Mercator world units, with its properties
/// reduced to numbers into shared key and value tables; per zoom it holds the list of
/// (tile, feature) placements of that zoom and a batch of encoded tiles.
public final class Tiler {
  struct Stored {
    var x = 0.0
    var y = 0.0
    /// Nil for a single point, held in x and y.
    var geometry: WorldGeometry?
    var id: UInt64?
    var tags: [Int32]
    var minZoom: Int
    var maxZoom: Int
  }

  private let options: TilerOptions
  private var features: [Stored] = []
  private var keyNames: [String] = []
  private var keyNumbers: [String: Int32] = [:]
  private var valueTable: [TileValue] = []
  private var valueNumbers: [TileValue: Int32] = [:]
  private var fieldTypes: [Int32: String] = [:]
  private var bounds = BBox.empty
  private var summary = TilesetSummary()

  /// Creates a tiler.
  public init(options: TilerOptions) {
    self.options = options
  }

  /// Adds a feature (one without geometry is skipped).
  ///
  /// A `tippecanoe` member's `minzoom` and `maxzoom` limit the zooms it appears at.
  public func add(_ feature: Feature) {
    guard let geometry = feature.geometry else { return }
    var minZoom = options.minZoom
    var maxZoom = options.maxZoom
    if case .object(let member)? = feature.foreignMembers["tippecanoe"] {
      if let z = member["minzoom"]?.numberValue { minZoom = max(minZoom, Int(z.rounded(.up))) }
      if let z = member["maxzoom"]?.numberValue { maxZoom = min(maxZoom, Int(z.rounded(.down))) }
    }
    let tags = self.tags(feature.properties)
    let id: UInt64? =
      switch feature.id {
      case .integer(let n)? where n >= 0: UInt64(n)
      case .double(let x)? where x >= 0 && x == x.rounded() && x < 1.8e19: UInt64(x)
      default: nil
      }
    summary.features += 1
    geometry.forEachXY { x, y in bounds.extend(x: x, y: y) }
    for part in Self.world(geometry) {
      var stored = Stored(geometry: part, id: id, tags: tags, minZoom: minZoom, maxZoom: maxZoom)
      if part.kind == .point, part.parts.count == 1, part.parts[0].count == 2 {
        stored.x = part.parts[0][0]
        stored.y = part.parts[0][1]
        stored.geometry = nil
      }
      features.append(stored)
    }
  }

  /// Writes every zoom's tiles and the metadata; `name`, `attribution` and `description` go
  /// into the metadata.
  public func write(
    to writer: any TilesetWriter, name: String, attribution: String, description: String
  ) throws -> TilesetSummary {
    for z in options.minZoom...options.maxZoom {
      try writeZoom(z, to: writer)
    }
    try writer.finish(
      metadata: metadata(name: name, attribution: attribution, description: description))
    return summary
  }

  // MARK: Zooms

  struct Placement {
    var tileID: UInt64
    var x: Int32
    var y: Int32
    var feature: Int32
  }

  private func writeZoom(_ z: Int, to writer: any TilesetWriter) throws {
    let n = 1 << z
    let scale = Double(n)
    let pad = Double(options.buffer) / Double(options.extent)
    var placements: [Placement] = []
    placements.reserveCapacity(features.count)
    for (index, feature) in features.enumerated() where feature.minZoom <= z && z <= feature.maxZoom
    {
      // Every tile the feature's box, padded by the buffer, touches: for a point, its tile and
      // the tiles in whose buffers it lies, as tippecanoe does, so that symbols near an edge
      // are drawn whole.
      let (minX, minY, maxX, maxY) =
        feature.geometry.map { ($0.minX, $0.minY, $0.maxX, $0.maxY) }
        ?? (feature.x, feature.y, feature.x, feature.y)
      let x0 = max(Int((minX * scale - pad).rounded(.down)), 0)
      let x1 = min(Int((maxX * scale + pad).rounded(.down)), n - 1)
      let y0 = max(Int((minY * scale - pad).rounded(.down)), 0)
      let y1 = min(Int((maxY * scale + pad).rounded(.down)), n - 1)
      guard x0 <= x1, y0 <= y1 else { continue }
      for tx in x0...x1 {
        for ty in y0...y1 {
          placements.append(
            Placement(
              tileID: PMTilesID.id(z: z, x: tx, y: ty), x: Int32(tx), y: Int32(ty),
              feature: Int32(index)))
        }
      }
    }
    guard !placements.isEmpty else { return }
    placements.sort { ($0.tileID, $0.feature) < ($1.tileID, $1.feature) }
    // Runs of placements, one per tile.
    var runs: [Range<Int>] = []
    var start = 0
    for k in 1...placements.count
    where k == placements.count || placements[k].tileID != placements[start].tileID {
      if k > start { runs.append(start..<k) }
      start = k
    }
    let batchSize = 4096
    var batchStart = 0
    let threads = max(1, options.threads)
    while batchStart < runs.count {
      let batch = Array(runs[batchStart..<min(batchStart + batchSize, runs.count)])
      let results = ResultSlots(count: batch.count)
      let chunk = (batch.count + threads - 1) / threads
      let shared = SharedState(tiler: self, placements: placements)
      DispatchQueue.concurrentPerform(iterations: threads) { worker in
        let begin = worker * chunk
        let end = min(begin + chunk, batch.count)
        guard begin < end else { return }
        do {
          let compressor = try GzipCompressor()
          for k in begin..<end {
            results.set(
              k,
              try shared.tiler.encodeTile(
                z: z, run: batch[k], placements: shared.placements, compressor: compressor))
          }
        } catch {
          results.fail(error)
        }
      }
      if let error = results.error { throw error }
      for (k, run) in batch.enumerated() {
        guard let data = results.values[k] else { continue }
        let first = placements[run.lowerBound]
        try writer.writeTile(TileID(unchecked: z, Int(first.x), Int(first.y)), data: data.bytes)
        summary.tiles += 1
        summary.placements += data.count
      }
      batchStart += batchSize
    }
  }

  private func encodeTile(
    z: Int, run: Range<Int>, placements: [Placement], compressor: GzipCompressor
  ) throws -> (bytes: [UInt8], count: Int)? {
    let first = placements[run.lowerBound]
    let tx = Int(first.x)
    let ty = Int(first.y)
    var layer = VectorTileLayerEncoder(name: options.layer, extent: options.extent)
    let extent = Double(options.extent)
    let scale = Double(1 << z)
    for k in run {
      let feature = features[Int(placements[k].feature)]
      guard let geometry = feature.geometry else {
        let px = feature.x * scale * extent - Double(tx) * extent
        let py = feature.y * scale * extent - Double(ty) * extent
        let buffer = Double(options.buffer)
        guard px >= -buffer, px < extent + buffer, py >= -buffer, py < extent + buffer else {
          continue
        }
        var commands = CommandWriter()
        commands.moveTo([Int32(px.rounded()), Int32(py.rounded())])
        layer.add(id: feature.id, kind: 1, tags: feature.tags, geometry: commands.values)
        continue
      }
      guard
        let commands = TileGeometryEncoder.encode(
          geometry, z: z, x: tx, y: ty, extent: options.extent, buffer: Double(options.buffer),
          tolerance: options.tolerance)
      else { continue }
      layer.add(
        id: feature.id, kind: geometry.kind.rawValue, tags: feature.tags, geometry: commands)
    }
    guard layer.count > 0 else { return nil }
    var tile = ProtobufWriter()
    layer.encode(into: &tile, keyNames: keyNames, valueTable: valueTable)
    return (try compressor.compress(tile.bytes), layer.count)
  }

  // MARK: Properties

  /// Properties as global key and value numbers, converted as tippecanoe does: null values are
  /// left out, integers stay integers, arrays and objects become their JSON text.
  private func tags(_ properties: JSONObject?) -> [Int32] {
    guard let properties else { return [] }
    var tags: [Int32] = []
    for member in properties.members {
      guard let value = Self.tileValue(member.value) else { continue }
      let key: Int32
      if let known = keyNumbers[member.key] {
        key = known
      } else {
        key = Int32(keyNames.count)
        keyNames.append(member.key)
        keyNumbers[member.key] = key
      }
      let number: Int32
      if let known = valueNumbers[value] {
        number = known
      } else {
        number = Int32(valueTable.count)
        valueTable.append(value)
        valueNumbers[value] = number
      }
      let type = value.fieldType
      if let seen = fieldTypes[key], seen != type {
        fieldTypes[key] = "Mixed"
      } else if fieldTypes[key] == nil {
        fieldTypes[key] = type
      }
      tags.append(key)
      tags.append(number)
    }
    return tags
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

  private func metadata(name: String, attribution: String, description: String) -> TilesetMetadata {
    let box =
      bounds.isEmpty
      ? BBox(west: -180, south: -85.051129, east: 180, north: 85.051129) : bounds
    let clampedSouth = max(box.south, -WebMercator.maxLatitude)
    let clampedNorth = min(box.north, WebMercator.maxLatitude)
    var fields = JSONTextWriter()
    fields.raw("{")
    let order = fieldTypes.keys.sorted { keyNames[Int($0)] < keyNames[Int($1)] }
    for (k, key) in order.enumerated() {
      if k > 0 { fields.raw(",") }
      fields.writeString(keyNames[Int(key)])
      fields.raw(":")
      fields.writeString(fieldTypes[key] ?? "String")
    }
    fields.raw("}")
    var layer = JSONTextWriter()
    layer.raw("{\"vector_layers\":[{\"id\":")
    layer.writeString(options.layer)
    layer.raw(",\"description\":\"\",\"minzoom\":")
    layer.writeInteger(Int64(options.minZoom))
    layer.raw(",\"maxzoom\":")
    layer.writeInteger(Int64(options.maxZoom))
    layer.raw(",\"fields\":")
    layer.bytes.append(contentsOf: fields.bytes)
    layer.raw("}]}")
    return TilesetMetadata(
      name: name, description: description, attribution: attribution,
      west: box.west, south: clampedSouth, east: box.east, north: clampedNorth,
      minZoom: options.minZoom, maxZoom: options.maxZoom,
      json: String(decoding: layer.bytes, as: UTF8.self))
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

/// What the workers read while encoding: the tiler and this zoom's placements.
private struct SharedState: @unchecked Sendable {
  let tiler: Tiler
  let placements: [Tiler.Placement]
}

/// One slot per tile of a batch, each written by one worker only.
private final class ResultSlots: @unchecked Sendable {
  let values: UnsafeMutableBufferPointer<(bytes: [UInt8], count: Int)?>
  private(set) var error: (any Error)?
  private let lock = NSLock()

  init(count: Int) {
    values = .allocate(capacity: count)
    values.initialize(repeating: nil)
  }

  deinit {
    values.deinitialize()
    values.deallocate()
  }

  func set(_ k: Int, _ value: (bytes: [UInt8], count: Int)?) { values[k] = value }

  func fail(_ error: any Error) { lock.withLock { self.error = error } }
}
