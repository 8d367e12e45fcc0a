import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator

/// Cuts features into Mapbox Vector Tiles (MVT 2.1) zoom by zoom and hands them, gzipped and in
/// PMTiles tile-id order, to a tileset writer.
///
/// Holds every feature in memory, projected to Web Mercator world units, with its properties
/// reduced to numbers into shared key and value tables. Points are placed per zoom in the
/// tiles whose buffers they lie in; lines and polygons are cut into pieces per tile, each
/// zoom's pieces from the zoom above (``TileClipper``), and only one zoom's pieces are held
/// (a tile wholly inside a polygon holds no geometry of its own).
public final class Tiler {
  struct Stored {
    var x = 0.0
    var y = 0.0
    /// The points of a multipoint; nil for a single point, held in x and y, and for a line or
    /// polygon, which is cut into pieces.
    var points: WorldGeometry?
    var isShape = false
    var id: UInt64?
    var tags: [Int32]
    var minZoom: Int
    var maxZoom: Int
    var layer: Int32
    /// The quadkey of the point, or of the middle of the box of the points or the shape.
    var index: UInt64 = 0
  }

  /// A layer's name, the types of its fields and the zooms its features span.
  struct Layer {
    var name: String
    /// Per key number, the type of the layer's values of that key, as an index into
    /// ``TileValue/fieldTypeNames`` (0: the layer has no such field).
    var fieldTypes: [UInt8] = []
    var minZoom = Int.max
    var maxZoom = Int.min
  }

  var options: TilerOptions
  var features: [Stored] = []
  /// For the strategies that drop by size, each feature's area in 2^32-grid units squared.
  var extents: [Double] = []
  /// Lines' and polygons' vertex spacing for the max-zoom guess.
  var vertexSpacing = (logSum: 0.0, count: 0)
  /// The features in quadkey order, kept from the max-zoom guess for the strategies.
  var spacingOrder: [Int32]?
  /// Per feature, what a strategy compares with its threshold (``TileDropStrategy``).
  var dropKeys: [Double] = []
  /// The base zoom and rate point thinning used.
  var thinningUsed: (baseZoom: Int, rate: Double)?
  var shapes: [(feature: Int32, geometry: WorldGeometry)] = []
  var keyNames: [String] = []
  var keyNumbers: [String: Int32] = [:]
  /// The key last interned at each position among a feature's properties.
  var keysByPosition: [(name: String, key: Int32)] = []
  var valueTable: [TileValue] = []
  var valueNumbers: [TileValue: Int32] = [:]
  var layers: [Layer] = []
  var layerNumbers: [String: Int32] = [:]
  var bounds = BBox.empty
  var summary = TilesetSummary()
  /// The placements (and per-tile cost) dealt to each share so far (see ``TilerOptions/share``).
  var shareLoads: [Int] = []
  /// Told where `write` is after each batch of tiles.
  public var progress: ((TilerProgress) -> Void)?

  /// Creates a tiler.
  public init(options: TilerOptions) {
    self.options = options
  }

  /// Adds a feature (one without geometry is skipped).
  ///
  /// A `tippecanoe` member's `minzoom` and `maxzoom` limit the zooms it appears at, and its
  /// `layer` names the layer it goes into (before ``TilerOptions/layerProperty`` and
  /// ``TilerOptions/layer``).
  public func add(_ feature: Feature) {
    guard let geometry = feature.geometry else { return }
    var minZoom = options.minZoom
    var maxZoom = options.maxZoom
    var layerName = options.layer
    var skippedKey: String?
    if let key = options.layerProperty, let value = feature.properties?[key],
      let name = Self.layerName(value)
    {
      layerName = name
      skippedKey = key
    }
    if case .object(let member)? = feature.foreignMembers["tippecanoe"] {
      if let z = member["minzoom"]?.numberValue { minZoom = max(minZoom, Int(z.rounded(.up))) }
      if let z = member["maxzoom"]?.numberValue { maxZoom = min(maxZoom, Int(z.rounded(.down))) }
      if let name = member["layer"]?.stringValue, !name.isEmpty { layerName = name }
    }
    let layer = layerNumber(layerName)
    layers[Int(layer)].minZoom = min(layers[Int(layer)].minZoom, minZoom)
    layers[Int(layer)].maxZoom = max(layers[Int(layer)].maxZoom, maxZoom)
    let tags = self.tags(feature.properties, layer: layer, skipping: skippedKey)
    let id: UInt64? =
      switch feature.id {
      case .integer(let n)? where n >= 0: UInt64(n)
      case .double(let x)? where x >= 0 && x == x.rounded() && x < 1.8e19: UInt64(x)
      default: nil
      }
    summary.features += 1
    geometry.forEachXY { x, y in bounds.extend(x: x, y: y) }
    if case .point(let p) = geometry {
      // A point needs no world geometry: its projected position is all that is kept.
      var stored = Stored(
        points: nil, id: id, tags: tags, minZoom: minZoom, maxZoom: maxZoom, layer: layer)
      stored.x = WebMercator.x(longitude: p.x)
      stored.y = WebMercator.y(latitude: p.y)
      stored.index = Self.quadkey(x: stored.x, y: stored.y)
      if options.strategy == .dropSmallest { extents.append(0) }
      features.append(stored)
      return
    }
    for part in Self.world(geometry) {
      var stored = Stored(
        points: part, id: id, tags: tags, minZoom: minZoom, maxZoom: maxZoom, layer: layer)
      stored.index = Self.quadkey(x: (part.minX + part.maxX) / 2, y: (part.minY + part.maxY) / 2)
      if options.strategy == .dropSmallest { extents.append(Self.extent(part)) }
      if part.kind != .point {
        if options.guessesMaxZoom { noteVertexSpacing(part) }
        stored.points = nil
        stored.isShape = true
        shapes.append((Int32(features.count), part))
      } else if part.parts.count == 1, part.parts[0].count == 2 {
        stored.x = part.parts[0][0]
        stored.y = part.parts[0][1]
        stored.points = nil
      }
      features.append(stored)
    }
  }

  /// Writes every zoom's tiles and the metadata; `name`, `attribution` and `description` go
  /// into the metadata.
  public func write(
    to writer: any TilesetWriter, name: String, attribution: String, description: String
  ) throws -> TilesetSummary {
    var pieces = TilePieces()
    let repairer = try PolygonRepairer()
    for (feature, geometry) in shapes {
      TileClipper.root(
        repairer.valid(geometry), feature: feature, buffer: pieceBuffer, into: &pieces)
    }
    shapes = []
    prepareDropping()
    for z in 0...options.maxZoom {
      if z >= options.minZoom { try writeZoom(z, pieces: pieces, to: writer) }
      if z < options.maxZoom { pieces = try descend(pieces, from: z) }
    }
    try writer.finish(
      metadata: metadata(name: name, attribution: attribution, description: description))
    return summary
  }

  // MARK: Zooms

  /// The buffer pieces are cut with, as a fraction of a tile: wider than the tiles' own, so
  /// that the runs a piece has along its own box's edges lie outside the tile's final clip.
  var pieceBuffer: Double { Double(options.buffer + 16) / Double(options.extent) }

  struct Placement {
    var tileID: UInt64
    var x: Int32
    var y: Int32
    var feature: Int32
    /// The index of a line's or polygon's piece, -1 for a point.
    var piece: Int32
  }

  /// The pieces of zoom `z + 1` of the features that reach it, cut on every thread from
  /// contiguous runs of zoom `z`'s pieces and joined in order.
  private func descend(_ pieces: TilePieces, from z: Int) throws -> TilePieces {
    let buffer = pieceBuffer
    let count = pieces.pieces.count
    let threads = max(1, min(options.threads, count / 256 + 1))
    let chunk = (count + threads - 1) / threads
    let results = ResultSlots<TilePieces>(count: threads)
    let shared = SharedState(tiler: self, placements: [], pieces: pieces)
    DispatchQueue.concurrentPerform(iterations: threads) { worker in
      var out = TilePieces()
      for k in (worker * chunk)..<min((worker + 1) * chunk, count) {
        let piece = shared.pieces.pieces[k]
        guard shared.tiler.features[Int(piece.feature)].maxZoom > z else { continue }
        TileClipper.children(
          of: piece, geometry: shared.pieces.geometry(k), z: z, buffer: buffer, into: &out)
      }
      results.set(worker, out)
    }
    // Joined into arrays of the final size, each worker's part released once copied, so that
    // no more than one extra copy of a part is alive at a time.
    var joined = TilePieces()
    joined.pieces.reserveCapacity(
      (0..<threads).reduce(0) { $0 + (results.values[$1]?.pieces.count ?? 0) })
    joined.shapes.reserveCapacity(
      (0..<threads).reduce(0) { $0 + (results.values[$1]?.shapes.count ?? 0) })
    for worker in 0..<threads {
      if let part = results.values[worker] {
        results.values[worker] = nil
        joined.append(contentsOf: part)
      }
    }
    return joined
  }

  /// Calls `body` with the column, row, feature and piece (-1 for a point) of every
  /// placement of zoom `z`: the points' (and multipoints') in feature order, then the pieces'
  /// in piece order.
  @inline(__always)
  private func forEachPlacement(
    _ z: Int, pieces: TilePieces, _ body: (_ x: Int, _ y: Int, _ feature: Int, _ piece: Int) -> Void
  ) {
    let n = 1 << z
    let scale = Double(n)
    let pad = Double(options.buffer) / Double(options.extent)
    // Fields are read in place: a copy of a stored feature would retain its arrays.
    features.withUnsafeBufferPointer { features in
      for index in features.indices
      where !features[index].isShape && features[index].minZoom <= z
        && z <= features[index].maxZoom
      {
        // Every tile in whose buffer the point (or the multipoint's box) lies, as tippecanoe
        // does, so that symbols near an edge are drawn whole; across the antimeridian too.
        let (minX, minY, maxX, maxY) =
          features[index].points.map { ($0.minX, $0.minY, $0.maxX, $0.maxY) }
          ?? (features[index].x, features[index].y, features[index].x, features[index].y)
        let x0 = Int((minX * scale - pad).rounded(.down))
        let x1 = Int((maxX * scale + pad).rounded(.down))
        let y0 = max(Int((minY * scale - pad).rounded(.down)), 0)
        let y1 = min(Int((maxY * scale + pad).rounded(.down)), n - 1)
        guard x0 <= x1, y0 <= y1 else { continue }
        let (first, last) = x1 - x0 + 1 >= n ? (0, n - 1) : (x0, x1)
        for column in first...last {
          let tx = (column % n + n) % n
          for ty in y0...y1 { body(tx, ty, index, -1) }
        }
      }
    }
    for (index, piece) in pieces.pieces.enumerated()
    where features[Int(piece.feature)].minZoom <= z {
      body(Int(piece.x), Int(piece.y), Int(piece.feature), index)
    }
  }

  /// Every placement of zoom `z` in tile order (features in input order within a tile), and
  /// the runs of placements that make up each tile; with a ``TilerOptions/share``, only those
  /// of the share's tiles.
  func placements(_ z: Int, pieces: TilePieces) -> (placements: [Placement], runs: [Range<Int>]) {
    var placements: [Placement] = []
    func place(_ x: Int, _ y: Int, _ feature: Int, _ piece: Int) {
      placements.append(
        Placement(
          tileID: PMTilesID.id(z: z, x: x, y: y), x: Int32(x), y: Int32(y),
          feature: Int32(feature), piece: Int32(piece)))
    }
    if let share = options.share {
      let owned = ownedTiles(z, pieces: pieces, share: share)
      forEachPlacement(z, pieces: pieces) { x, y, feature, piece in
        if owned[x, y] { place(x, y, feature, piece) }
      }
    } else {
      placements.reserveCapacity(features.count + pieces.pieces.count)
      forEachPlacement(z, pieces: pieces, place)
    }
    guard !placements.isEmpty else { return ([], []) }
    placements.sort { ($0.tileID, $0.feature, $0.piece) < ($1.tileID, $1.feature, $1.piece) }
    // Runs of placements, one per tile.
    var runs: [Range<Int>] = []
    var start = 0
    for k in 1...placements.count
    where k == placements.count || placements[k].tileID != placements[start].tileID {
      if k > start { runs.append(start..<k) }
      start = k
    }
    return (placements, runs)
  }

  /// A value for each tile of one zoom, by column and row: an array over the zoom's grid when
  /// it is small, else a dictionary.
  struct TileTable<Value> {
    private let n: Int
    private var dense: [Value]
    private var sparse: [Int: Value] = [:]
    private let initial: Value

    init(zoom z: Int, initial: Value) {
      n = 1 << z
      self.initial = initial
      dense = z <= 11 ? Array(repeating: initial, count: n * n) : []
    }

    subscript(_ x: Int, _ y: Int) -> Value {
      get { dense.isEmpty ? sparse[y * n + x, default: initial] : dense[y * n + x] }
      set {
        if dense.isEmpty { sparse[y * n + x] = newValue } else { dense[y * n + x] = newValue }
      }
    }
  }

  /// The tiles of zoom `z` that `share` owns.
  ///
  /// Each tile, largest first by its placements (ties in tile order), goes to the share with
  /// the least load so far over all zooms (ties to the lower share), a tile's load being its
  /// placements plus ``shareTileCost``. Every tiler sees the same features, so every share
  /// deals the same way.
  private func ownedTiles(_ z: Int, pieces: TilePieces, share: Shard) -> TileTable<Bool> {
    if shareLoads.count != share.count { shareLoads = Array(repeating: 0, count: share.count) }
    var counts = TileTable<Int32>(zoom: z, initial: 0)
    var tiles: [(x: Int, y: Int)] = []
    forEachPlacement(z, pieces: pieces) { x, y, _, _ in
      if counts[x, y] == 0 { tiles.append((x, y)) }
      counts[x, y] += 1
    }
    let dealt = tiles.map { tile in
      (count: Int(counts[tile.x, tile.y]), id: PMTilesID.id(z: z, x: tile.x, y: tile.y), tile)
    }.sorted { a, b in a.count != b.count ? a.count > b.count : a.id < b.id }
    // A min-heap of (load, share); sorted, it is one.
    var heap = shareLoads.enumerated().map { ($1, $0) }.sorted { $0 < $1 }
    var owned = TileTable<Bool>(zoom: z, initial: false)
    for (count, _, tile) in dealt {
      if heap[0].1 == share.index { owned[tile.x, tile.y] = true }
      heap[0].0 += count + Self.shareTileCost
      var k = 0
      while true {
        let (l, r) = (2 * k + 1, 2 * k + 2)
        var least = k
        if l < heap.count && heap[l] < heap[least] { least = l }
        if r < heap.count && heap[r] < heap[least] { least = r }
        if least == k { break }
        heap.swapAt(k, least)
        k = least
      }
    }
    for (load, owner) in heap { shareLoads[owner] = load }
    return owned
  }

  /// What a tile costs beyond its placements when shares are dealt out, in placements.
  static let shareTileCost = 32

  func layerNumber(_ name: String) -> Int32 {
    if let known = layerNumbers[name] { return known }
    let number = Int32(layers.count)
    layers.append(Layer(name: name))
    layerNumbers[name] = number
    return number
  }
}
