import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator
import GeoPipeSQLite

/// An MBTiles 1.3 file read through its `tiles` table or view and its `metadata` table.
///
/// Rows are TMS (counted from the south) and come out as XYZ tiles. Zoom by zoom, the tile
/// positions are read and sorted into PMTiles tile-id order (16 bytes a tile), then each
/// tile's data is fetched by its position, so only one tile's bytes are held at a time.
final class MBTilesReader: TilesetReader {
  let path: String
  let metadata: TilesetMetadata
  let entries: JSONObject
  private let database: SQLiteDatabase
  private var zooms: [Int]
  private var pending: [(id: UInt64, tile: TileID)] = []
  private var position = 0

  /// Opens the file read-only and reads its metadata.
  init(path: String) throws {
    self.path = path
    do {
      database = try SQLiteDatabase(path: path, readOnly: true)
      // One read transaction for the reader's life: without it every tile's query takes and
      // drops the file's shared lock and checks for a hot journal (system calls per tile).
      try database.execute("BEGIN")
      var entries = JSONObject()
      let rows = try database.statement("SELECT name, value FROM metadata")
      while try rows.step() {
        guard !rows.isNull(0) else { continue }
        entries[rows.text(0)] = rows.isNull(1) ? .null : .string(rows.text(1))
      }
      self.entries = entries
      zooms = []
      let levels = try database.statement(
        "SELECT DISTINCT zoom_level FROM tiles ORDER BY zoom_level")
      while try levels.step() {
        let z = levels.int64(0)
        guard (0...Int64(TileID.maxZoom)).contains(z) else {
          throw GeoPipeError(
            "\(path): zoom level \(z) is out of range (0 to \(TileID.maxZoom))",
            status: .dataError)
        }
        zooms.append(Int(z))
      }
      metadata = TilesetMetadata(
        entries: entries, minZoom: zooms.first ?? 0, maxZoom: zooms.last ?? 0)
    } catch let error as SQLiteError {
      throw GeoPipeError(
        "cannot read '\(path)' as MBTiles: \(error.message)",
        status: FileManager.default.isReadableFile(atPath: path) ? .dataError : .noInput)
    }
  }

  func next() throws -> (tile: TileID, data: [UInt8])? {
    while position == pending.count {
      guard !zooms.isEmpty else { return nil }
      do {
        try loadZoom(zooms.removeFirst())
      } catch let error as SQLiteError {
        throw GeoPipeError("\(path): \(error.message)", status: .dataError)
      }
    }
    let tile = pending[position].tile
    position += 1
    guard let data = try data(of: tile) else {
      throw GeoPipeError("\(path): tile \(tile) went missing while reading", status: .ioError)
    }
    return (tile, data)
  }

  func data(of tile: TileID) throws -> [UInt8]? {
    do {
      let row = try database.statement(
        "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?")
      try row.bind(.integer(Int64(tile.z)), .integer(Int64(tile.x)), .integer(Int64(tile.tmsY)))
      defer { row.reset() }
      guard try row.step() else { return nil }
      guard row.type(0) == .blob || row.type(0) == .text else {
        throw GeoPipeError("\(path): tile \(tile) has no data", status: .dataError)
      }
      return row.withBytes(0) { Array($0) }
    } catch let error as SQLiteError {
      throw GeoPipeError("\(path): tile \(tile): \(error.message)", status: .dataError)
    }
  }

  /// The positions of one zoom's tiles, checked and in tile-id order.
  private func loadZoom(_ z: Int) throws {
    pending.removeAll(keepingCapacity: true)
    position = 0
    let rows = try database.statement(
      "SELECT tile_column, tile_row FROM tiles WHERE zoom_level = ?")
    try rows.bind(.integer(Int64(z)))
    defer { rows.reset() }
    while try rows.step() {
      let (x, row) = (rows.int64(0), rows.int64(1))
      let size = Int64(1) << Int64(z)
      guard (0..<size).contains(x), (0..<size).contains(row) else {
        throw GeoPipeError(
          "\(path): the tile at zoom \(z), column \(x), row \(row) is outside the "
            + "\(size)×\(size) tiles of its zoom", status: .dataError)
      }
      let tile = TileID(unchecked: z, Int(x), Int(size - 1 - row))
      pending.append((PMTilesID.id(z: tile.z, x: tile.x, y: tile.y), tile))
    }
    pending.sort { $0.id < $1.id }
    for k in pending.indices.dropFirst() where pending[k].id == pending[k - 1].id {
      throw GeoPipeError("\(path): tile \(pending[k].tile) is stored twice", status: .dataError)
    }
  }
}
