import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

extension GazetteerBuild {
  /// Stores the boundaries files' areas in `GazetteerSchema.areas`.
  ///
  /// Each polygon goes in as WKB, its box in the R*Tree. Features that give no area are
  /// counted in `meta`, with the first few reasons.
  mutating func storeAreas(_ files: [BoundaryFile], iso3: [String: String]) throws {
    guard !files.isEmpty else { return }
    try database.execute(GazetteerSchema.areas)
    let insert = try database.statement(
      """
      INSERT INTO areas (level, country_code, admin1_code, name, geometry)
      VALUES (?1, ?2, ?3, ?4, ?5)
      """)
    let insertBox = try database.statement(
      "INSERT INTO areas_rtree (id, min_x, max_x, min_y, max_y) VALUES (?1, ?2, ?3, ?4, ?5)")
    var counts: [BoundaryArea.Level: Int] = [:]
    var skipped: [String] = []
    for file in files {
      progress("storing the areas of \(file.path)")
      let name = URL(fileURLWithPath: file.path).lastPathComponent
      for (k, feature) in file.features.enumerated() {
        let area: BoundaryArea
        switch BoundaryArea.from(feature, level: file.level, iso3: iso3) {
        case .success(let found): area = found
        case .failure(let skip):
          skipped.append("\(name): feature \(k): \(skip)")
          continue
        }
        guard let box = area.geometry.bbox else { continue }
        insert.reset()
        try insert.bind(
          .text(area.level.rawValue), .text(area.countryCode), .text(area.admin1Code),
          .text(area.name), .blob(WKBWriter.bytes(area.geometry)))
        try insert.run()
        insertBox.reset()
        try insertBox.bind(
          .integer(database.lastInsertedRowID), .real(box.west), .real(box.east),
          .real(box.south), .real(box.north))
        try insertBox.run()
        counts[area.level, default: 0] += 1
      }
    }
    meta["country_areas"] = String(counts[.country] ?? 0)
    meta["admin1_areas"] = String(counts[.admin1] ?? 0)
    if !skipped.isEmpty {
      progress("left out \(skipped.count) features: " + skipped.joined(separator: "; "))
      meta["areas_left_out"] =
        "\(skipped.count): " + skipped.prefix(8).joined(separator: "; ")
        + (skipped.count > 8 ? "; ..." : "")
    }
  }
}
