/// Remembers recent small tiles by content, so that a writer can store identical tiles once
/// (the squares inside a large polygon, empty sea and land).
///
/// Only tiles up to ``sizeLimit`` bytes are remembered, and only the last ``capacity``
/// distinct ones (first in, first out): identical tiles come in runs, since tiles are written
/// in tile-id order, and a bounded memory keeps a tileset of millions of distinct small
/// tiles (one point each) from holding them all.
struct TileDeduplicator<Location> {
  /// Tiles up to this size are looked up.
  static var sizeLimit: Int { 1024 }
  /// Distinct tiles remembered.
  let capacity: Int
  private var known: [TileBytes: Location] = [:]
  private var order: [TileBytes] = []
  private var next = 0

  init(capacity: Int = 65_536) {
    self.capacity = capacity
  }

  /// Where identical bytes were stored before, if they are remembered.
  func location(of bytes: [UInt8]) -> Location? {
    bytes.count <= Self.sizeLimit ? known[TileBytes(bytes: bytes[...])] : nil
  }

  /// Remembers where `bytes` are stored, forgetting the oldest tile when full.
  mutating func remember(_ bytes: [UInt8], at location: Location) {
    guard bytes.count <= Self.sizeLimit else { return }
    let key = TileBytes(bytes: bytes[...])
    if order.count < capacity {
      order.append(key)
    } else {
      known[order[next]] = nil
      order[next] = key
      next = (next + 1) % capacity
    }
    known[key] = location
  }
}

/// Bytes (a tile, an encoded value) as a dictionary key, hashed in one call rather than byte
/// by byte.
struct TileBytes: Hashable {
  var bytes: ArraySlice<UInt8>

  func hash(into hasher: inout Hasher) {
    bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
  }
}
