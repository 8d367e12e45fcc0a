import GeoPipeCore

/// A line or polygon feature's part in one tile: its geometry clipped to the tile plus the
/// buffer, in world units, held in ``TilePieces/shapes``, or -1 when the tile and its buffer
/// lie wholly inside a polygon.
struct TilePiece: Sendable {
  var x: Int32
  var y: Int32
  var feature: Int32
  var shape: Int32
}

/// One zoom's pieces, with the geometry of those that have one kept apart, so that the many
/// pieces inside polygons cost 16 bytes each.
struct TilePieces: Sendable {
  var pieces: [TilePiece] = []
  var shapes: [WorldGeometry] = []

  /// The geometry of piece `k`, nil for a whole tile.
  func geometry(_ k: Int) -> WorldGeometry? {
    let shape = pieces[k].shape
    return shape < 0 ? nil : shapes[Int(shape)]
  }

  /// Adds a piece of `geometry` clipped to `box`, if anything is left.
  mutating func append(
    x: Int32, y: Int32, feature: Int32, clipping geometry: WorldGeometry, to box: BBox
  ) {
    guard let clipped = geometry.clipped(to: box) else { return }
    var shape: Int32 = -1
    if !clipped.isBox(box) {
      shape = Int32(shapes.count)
      shapes.append(clipped)
    }
    pieces.append(TilePiece(x: x, y: y, feature: feature, shape: shape))
  }

  /// Adds the pieces of `other` after these.
  mutating func append(contentsOf other: TilePieces) {
    let offset = Int32(shapes.count)
    for var piece in other.pieces {
      if piece.shape >= 0 { piece.shape += offset }
      pieces.append(piece)
    }
    shapes += other.shapes
  }
}

/// Cuts lines and polygons into tiles as tippecanoe does: zoom 0's pieces come from the whole
/// features, and each zoom's pieces from the pieces of the zoom above, clipped to the four
/// children (each with its buffer), so a feature reaches only the tiles it touches and the
/// clipping work follows the size of the pieces, not of the features.
///
/// Boxes are `BBox`es in world units: `west`...`east` is x and `south`...`north` is y as
/// numbers (world y grows southwards).
enum TileClipper {
  /// The tile (z, x, y) plus `buffer` (a fraction of a tile) on every side, in world units.
  static func box(z: Int, x: Int, y: Int, buffer: Double) -> BBox {
    let size = 1 / Double(1 << z)
    return BBox(
      west: (Double(x) - buffer) * size, south: (Double(y) - buffer) * size,
      east: (Double(x) + 1 + buffer) * size, north: (Double(y) + 1 + buffer) * size)
  }

  /// Adds zoom 0's piece of a feature: the feature with, as tippecanoe does, a copy shifted
  /// by the world's width wherever it comes within the buffer of the antimeridian, so that it
  /// also shows in the buffers of the tiles on the other side.
  static func root(
    _ geometry: WorldGeometry, feature: Int32, buffer: Double, into pieces: inout TilePieces
  ) {
    var wrapped = geometry
    if geometry.minX < buffer { wrapped.append(geometry.shifted(by: 1)) }
    if geometry.maxX > 1 - buffer { wrapped.append(geometry.shifted(by: -1)) }
    pieces.append(
      x: 0, y: 0, feature: feature, clipping: wrapped, to: box(z: 0, x: 0, y: 0, buffer: buffer))
  }

  /// Adds the pieces of the four children of `piece` (a tile of zoom `z`, whose geometry is
  /// `geometry`), in the order (2x, 2y), (2x, 2y + 1), (2x + 1, 2y), (2x + 1, 2y + 1).
  static func children(
    of piece: TilePiece, geometry: WorldGeometry?, z: Int, buffer: Double,
    into pieces: inout TilePieces
  ) {
    for dx in Int32(0)...1 {
      for dy in Int32(0)...1 {
        let x = piece.x * 2 + dx
        let y = piece.y * 2 + dy
        guard let geometry else {
          pieces.pieces.append(TilePiece(x: x, y: y, feature: piece.feature, shape: -1))
          continue
        }
        pieces.append(
          x: x, y: y, feature: piece.feature, clipping: geometry,
          to: box(z: z + 1, x: Int(x), y: Int(y), buffer: buffer))
      }
    }
  }

  // MARK: Clipping

  /// The pieces of a line inside the box (Liang–Barsky per segment).
  static func clipLine(_ line: [Double], to box: BBox) -> [[Double]] {
    var pieces: [[Double]] = []
    var current: [Double] = []
    var k = 0
    while k + 3 < line.count {
      let (x0, y0, x1, y1) = (line[k], line[k + 1], line[k + 2], line[k + 3])
      k += 2
      guard let (t0, t1) = box.segmentParameters(x0: x0, y0: y0, x1: x1, y1: y1) else {
        if !current.isEmpty {
          pieces.append(current)
          current = []
        }
        continue
      }
      if current.isEmpty || t0 > 0 {
        if !current.isEmpty { pieces.append(current) }
        current = [x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0]
      }
      current.append(x0 + (x1 - x0) * t1)
      current.append(y0 + (y1 - y0) * t1)
      if t1 < 1 {
        pieces.append(current)
        current = []
      }
    }
    if line.count == 2, box.contains(x: line[0], y: line[1]) { current = line }
    if !current.isEmpty { pieces.append(current) }
    return pieces
  }
}
