import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator
import GeoPipeSQLite

/// An MBTiles 1.3 file of gzipped vector tiles (rows in TMS order), written beside its path
/// and renamed into place when finished.
///
/// Identical small tiles are stored once (see `TileDeduplicator`), in the layout tippecanoe
/// and mbutil use: a `map` table of tile positions and image ids, an `images` table of tile
/// data, and a `tiles` view that joins them, which is what readers query.
final class MBTilesWriter: TilesetWriter {
  private let destination: OutputPath
  private var temporary: String?
  private var database: SQLiteDatabase?
  private var seen = TileDeduplicator<Int64>()
  private var images: Int64 = 0

  /// Checks `path` and starts the database beside it; errors are `GeoPipeError`s (exit 73).
  init(path: String) throws {
    destination = try OutputPath(path)
    let (temporary, fd) = try destination.makeTemporaryFile()
    close(fd)
    self.temporary = temporary
    do {
      let database = try SQLiteDatabase(path: temporary, create: true)
      try database.execute(
        """
        PRAGMA journal_mode = OFF;
        PRAGMA synchronous = OFF;
        CREATE TABLE metadata (name TEXT, value TEXT);
        CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER,
          tile_id INTEGER);
        CREATE TABLE images (tile_id INTEGER PRIMARY KEY, tile_data BLOB);
        CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level,
          map.tile_column AS tile_column, map.tile_row AS tile_row,
          images.tile_data AS tile_data
          FROM map JOIN images ON images.tile_id = map.tile_id;
        BEGIN;
        """)
      self.database = database
    } catch {
      abort()
      throw GeoPipeError("cannot create '\(path)': \(error)", status: .cannotCreate)
    }
  }

  func writeTile(_ tile: TileID, data: [UInt8]) throws {
    guard let database else { return }
    let image: Int64
    if let known = seen.location(of: data) {
      image = known
    } else {
      images += 1
      image = images
      try database.statement("INSERT INTO images (tile_id, tile_data) VALUES (?, ?)")
        .bind(.integer(image), .blob(data)).run()
      seen.remember(data, at: image)
    }
    try database.statement(
      "INSERT INTO map (zoom_level, tile_column, tile_row, tile_id) VALUES (?, ?, ?, ?)"
    ).bind(
      .integer(Int64(tile.z)), .integer(Int64(tile.x)), .integer(Int64(tile.tmsY)),
      .integer(image)
    )
    .run()
  }

  func finish(metadata: TilesetMetadata) throws {
    guard let database else { return }
    let center = metadata.center
    let centerZoom = min(max(metadata.minZoom, 0), metadata.maxZoom)
    let rows: [(String, String)] = [
      ("name", metadata.name), ("format", "pbf"), ("type", "overlay"), ("version", "2"),
      ("description", metadata.description), ("attribution", metadata.attribution),
      (
        "bounds",
        [metadata.west, metadata.south, metadata.east, metadata.north].map(formatDegrees)
          .joined(separator: ",")
      ),
      (
        "center",
        "\(formatDegrees(center.longitude)),\(formatDegrees(center.latitude)),\(centerZoom)"
      ),
      ("minzoom", String(metadata.minZoom)), ("maxzoom", String(metadata.maxZoom)),
      ("json", metadata.json),
    ]
    for (name, value) in rows {
      try database.statement("INSERT INTO metadata (name, value) VALUES (?, ?)")
        .bind(.text(name), .text(value)).run()
    }
    try database.execute(
      """
      CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row);
      CREATE UNIQUE INDEX name ON metadata (name);
      COMMIT;
      """)
    // Closing the connection writes everything out; the file is then synced and renamed.
    self.database = nil
    guard let temporary else { return }
    self.temporary = nil
    do {
      try destination.commit(temporary: temporary, fd: -1)
    } catch {
      destination.discard(temporary: nil)
      throw error
    }
  }

  func abort() {
    database = nil
    destination.discard(temporary: temporary)
    temporary = nil
  }
}
