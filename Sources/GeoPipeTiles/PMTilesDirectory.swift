/// A PMTiles v3 directory: entries of tile ids, run lengths, lengths and offsets, each a
/// column of varints after the entry count (the PMTiles v3 specification, "Directories").
///
/// An entry with a run length of 0 points at a leaf directory; otherwise at tile data that
/// `runLength` consecutive tile ids share.
enum PMTilesDirectory {
  typealias Entry = PMTilesWriter.Entry

  /// The entries of a directory's uncompressed bytes, checked: ids strictly increasing, runs
  /// that do not overlap the next entry, every length above 0 and every offset and length
  /// within `sectionLength` (the tile data section, or the leaf directories section).
  static func parse(_ bytes: [UInt8], sectionLength: UInt64, leafLength: UInt64) throws -> [Entry] {
    var decoder = ProtobufDecoder(bytes)
    let count = try decoder.varint()
    // Each entry takes at least 4 bytes.
    guard count <= UInt64(bytes.count / 4) else {
      throw TilesError("a directory claims \(count) entries in \(bytes.count) bytes")
    }
    let n = Int(count)
    var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: n)
    var id: UInt64 = 0
    for k in 0..<n {
      let delta = try decoder.varint()
      guard k == 0 || delta > 0 else { throw TilesError("directory entry \(k) repeats a tile id") }
      let (sum, overflow) = id.addingReportingOverflow(delta)
      guard !overflow else { throw TilesError("directory entry \(k)'s tile id overflows") }
      id = sum
      entries[k].tileID = id
    }
    for k in 0..<n {
      let run = try decoder.varint()
      guard run <= UInt64(UInt32.max) else {
        throw TilesError("directory entry \(k)'s run is too long")
      }
      entries[k].runLength = UInt32(run)
    }
    for k in 0..<n {
      let length = try decoder.varint()
      guard length > 0, length <= UInt64(UInt32.max) else {
        throw TilesError("directory entry \(k) has length \(length)")
      }
      entries[k].length = UInt32(length)
    }
    for k in 0..<n {
      let value = try decoder.varint()
      if value == 0 {
        guard k > 0 else { throw TilesError("the first directory entry has no offset") }
        entries[k].offset = entries[k - 1].offset + UInt64(entries[k - 1].length)
      } else {
        entries[k].offset = value - 1
      }
      let entry = entries[k]
      let limit = entry.runLength == 0 ? leafLength : sectionLength
      guard entry.offset <= limit, UInt64(entry.length) <= limit - entry.offset else {
        throw TilesError(
          "directory entry \(k) (\(entry.length) bytes at offset \(entry.offset)) lies outside "
            + "its section of \(limit) bytes")
      }
      if k > 0, entries[k - 1].runLength > 0,
        entries[k - 1].tileID + UInt64(entries[k - 1].runLength) > entry.tileID
      {
        throw TilesError("directory entry \(k - 1)'s run overlaps the next entry")
      }
    }
    if let last = entries.last, last.runLength > 0,
      last.tileID.addingReportingOverflow(UInt64(last.runLength)).overflow
    {
      throw TilesError("the last directory entry's run overflows the tile ids")
    }
    return entries
  }
}
