import Foundation
import GeoPipeCore
import GeoPipeSQLite
import Testing

@testable import GeoPipeGeocoding

/// Building and opening gazetteers: folding, atomic builds, clear errors on bad files.
@Suite struct GazetteerTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  private func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "geopipe-gazetteer-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  private func write(_ text: String, to url: URL) throws {
    try Data(text.utf8).write(to: url)
  }

  /// A tiny dump: three places in two countries, admin1 and country rows.
  private func sources(in folder: URL) throws -> GazetteerSources {
    let places =
      [
        "1\tZürich\tZurich\tZurich,Zuerich,Zurigo\t47.36667\t8.55\tP\tPPL\tCH\t\t25\t\t\t\t341730\t\t\tEurope/Zurich\t",
        "2\tSão Paulo\tSao Paulo\tSampa\t-23.5475\t-46.63611\tP\tPPL\tBR\t\t27\t\t\t\t10021295\t\t\tAmerica/Sao_Paulo\t",
        "3\tCampinas\tCampinas\t\t-22.90556\t-47.06083\tP\tPPL\tBR\t\t27\t\t\t\t1031554\t\t\tAmerica/Sao_Paulo\t",
      ].joined(separator: "\n") + "\n"
    let admin1 = "CH.25\tZurich\tZurich\t2657895\nBR.27\tSão Paulo\tSao Paulo\t\n"
    let countries =
      "#ISO\tISO3\tISO-Numeric\tfips\tCountry\tCapital\tArea\tPopulation\tContinent\ttld\tCurrencyCode\tCurrencyName\tPhone\tPostal\tRegex\tLanguages\tgeonameid\tneighbours\tEquivalentFipsCode\n"
      + "CH\tCHE\t756\tSZ\tSwitzerland\tBern\t41290\t8516543\tEU\t.ch\tCHF\tFranc\t41\t####\t\tde-CH\t2658434\tDE,IT\t\n"
      + "BR\tBRA\t076\tBR\tBrazil\tBrasilia\t8511965\t209469333\tSA\t.br\tBRL\tReal\t55\t\t\tpt-BR\t3469034\tAR\t\n"
    let urls = ["places.txt", "admin1.txt", "countries.txt"].map {
      folder.appendingPathComponent($0)
    }
    try write(places, to: urls[0])
    try write(admin1, to: urls[1])
    try write(countries, to: urls[2])
    return GazetteerSources(geonames: urls[0].path, admin1: urls[1].path, countries: urls[2].path)
  }

  @Test(arguments: [
    ("São Paulo", "sao paulo"), ("ZÜRICH", "zurich"), ("Malmö", "malmo"), ("Łódź", "lodz"),
    ("Straße", "strasse"), ("Ærøskøbing", "aeroskobing"), ("Val-d'Or", "val dor"),
    ("  St. Louis  ", "st louis"), ("Trondheim", "trondheim"), ("İstanbul", "istanbul"),
  ])
  func foldsNames(name: String, folded: String) {
    #expect(NameFolding.fold(name) == folded)
  }

  @Test func foldsASCIINamesAsTheUnicodePathDoes() {
    // Every pair of ASCII characters, between letters and at the ends.
    let characters = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
    for a in characters {
      for b in characters {
        for text in [a + b, "x" + a + "y" + b + "z", " " + a + "Q" + b] {
          #expect(
            NameFolding.fold(text) == NameFolding.foldScalars(text), "\(text.debugDescription)")
        }
      }
    }
  }

  @Test func buildsAndOpensAGazetteer() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("g.sqlite").path
    let meta = try GazetteerBuilder.build(try sources(in: folder), to: path)
    #expect(meta["places"] == "3")
    #expect(meta["admin1"] == "2")
    #expect(meta["countries"] == "2")
    let gazetteer = try Gazetteer(path: path)
    let places = try gazetteer.places()
    #expect(places.map(\.name) == ["Zürich", "São Paulo", "Campinas"])
    let countries = try gazetteer.places(kind: .country)
    // Brazil's capital is not in the dump: its point is its most populous place.
    #expect(countries.first { $0.countryCode == "BR" }?.latitude == -23.5475)
    #expect(try gazetteer.admin1Names()["CH.25"] == "Zurich")
    #expect(try gazetteer.metadata().contains { $0.key == "attribution" })
    let folded = try gazetteer.database.statement(
      "SELECT count(*) FROM names WHERE folded = 'zurich'")
    #expect(try folded.step())
    #expect(folded.int64(0) == 2, "the place and its admin1 area")
  }

  @Test func aFailedBuildLeavesThePreviousGazetteerIntact() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("g.sqlite").path
    try GazetteerBuilder.build(try sources(in: folder), to: path)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let broken = folder.appendingPathComponent("broken.txt")
    try write("1\tA\tA\t\t95.0\t10\tP\tPPL\tCH\t\t25\t\t\t\t10\t\t\t\t\n", to: broken)
    var bad = try sources(in: folder)
    bad.geonames = broken.path
    #expect(throws: GeoPipeError.self) { try GazetteerBuilder.build(bad, to: path) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(!left.contains { $0.contains(".tmp-") }, "no temporary file is left")
  }

  @Test func refusesFilesThatAreNotGazetteers() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let text = folder.appendingPathComponent("text.sqlite")
    try write(String(repeating: "not a database ", count: 100), to: text)
    #expect {
      try Gazetteer(path: text.path)
    } throws: { error in
      "\(error)".contains("is not a geopipe gazetteer: it is not an SQLite database")
    }
    #expect {
      try SQLiteDatabase(path: text.path, readOnly: true)
        .scalarText("SELECT count(*) FROM sqlite_master")
    } throws: { error in
      (error as? SQLiteError)?.code == SQLiteError.notADatabase
    }
    let other = folder.appendingPathComponent("other.sqlite")
    try SQLiteDatabase(path: other.path, create: true).execute("CREATE TABLE t (x)")
    #expect {
      try Gazetteer(path: other.path)
    } throws: { error in
      "\(error)".contains(
        "is not a geopipe gazetteer: it is an SQLite database without geopipe's tables")
    }
    let missing = folder.appendingPathComponent("missing.sqlite").path
    #expect {
      try Gazetteer(path: missing)
    } throws: { error in
      (error as? GeoPipeError)?.status == .noInput
    }
  }

  @Test func storesAreasAsWKBWithAnRTreeOfTheirBoxes() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var sources = try sources(in: folder)
    func square(_ west: Double, _ south: Double, _ size: Double) -> Geometry {
      .polygon([
        CoordinateArray(
          storage: [
            west, south, west + size, south, west + size, south + size, west, south + size,
            west, south,
          ], dimension: 2)
      ])
    }
    sources.boundaries = [
      BoundaryFile(
        path: "countries.geojson", level: .country,
        features: [
          Feature(
            geometry: square(6, 46, 4),
            properties: ["ISO_A2": .string("-99"), "ADM0_A3": .string("CHE")]),
          Feature(geometry: square(0, 0, 1), properties: ["NAME": .string("none")]),
          Feature(geometry: square(-50, -25, 5), properties: ["iso_a2": .string("br")]),
        ])
    ]
    let path = folder.appendingPathComponent("g.sqlite").path
    let meta = try GazetteerBuilder.build(sources, to: path)
    #expect(meta["country_areas"] == "2")
    #expect(meta["areas_left_out"]?.hasPrefix("1: countries.geojson: feature 1: 'none'") == true)
    let gazetteer = try Gazetteer(path: path)
    let areas = try gazetteer.areas()
    #expect(areas.map(\.countryCode) == ["CH", "BR"])
    #expect(areas.first?.geometry == square(6, 46, 4))
    // The R*Tree finds São Paulo's square, and only it, from São Paulo's point.
    let statement = try gazetteer.database.statement(
      "SELECT id FROM areas_rtree WHERE min_x <= ?1 AND max_x >= ?1 AND min_y <= ?2 AND max_y >= ?2"
    )
    try statement.bind(.real(-46.6), .real(-23.5))
    var found: [Int64] = []
    while try statement.step() { found.append(statement.int64(0)) }
    #expect(found == [2])
    let index = AreaIndex(areas)
    #expect(index.country(longitude: -46.6, latitude: -23.5) == 1)
    #expect(index.country(longitude: 8.5 + 360, latitude: 47.4) == 0)
    #expect(index.country(longitude: 0.5, latitude: 0.5) == nil)
  }

  @Test func aGazetteerWithoutAreasHasNone() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("g.sqlite").path
    try GazetteerBuilder.build(try sources(in: folder), to: path)
    #expect(try Gazetteer(path: path).areas().isEmpty)
  }
}
