import GeoPipeSQLite

/// A country or an admin1 area, as a qualifier in a query names it.
enum Area: Hashable, Sendable {
  /// A country by ISO 3166-1 alpha-2 code.
  case country(String)
  /// An admin1 area by country code and GeoNames admin1 code.
  case admin1(country: String, code: String)

  /// Whether a gazetteer row lies in the area (an area lies in itself; a country is in no
  /// admin1 area).
  func contains(_ place: Place) -> Bool {
    switch self {
    case .country(let iso): place.countryCode == iso
    case .admin1(let country, let code):
      place.kind != .country && place.countryCode == country && place.admin1Code == code
    }
  }
}

/// The countries and admin1 areas of a gazetteer, held in memory: their names for results and
/// every way a qualifier may name them.
///
/// A country is named by its name, its ISO alpha-2 and alpha-3 codes and the common names in
/// `countryAliases`; an admin1 area by its name, its ASCII name and, in the United States, its
/// two-letter state code. Names are folded (`NameFolding`), so "Île-de-France", "ile de
/// france" and "ILE-DE-FRANCE" are one key. A key may name several areas ("ca" is Canada and
/// California; "georgia" a country and a state).
final class AreaDirectory {
  /// Country names by ISO code.
  let countryNames: [String: String]
  /// Admin1 names by "CC.code".
  let admin1Names: [String: String]
  private let byKey: [String: [Area]]
  private let aliasCountries: [String: String]

  init(database: SQLiteDatabase) throws {
    var keys: [String: [Area]] = [:]
    func add(_ key: String, _ area: Area) {
      guard !key.isEmpty else { return }
      if !(keys[key]?.contains(area) ?? false) { keys[key, default: []].append(area) }
    }
    var countries: [String: String] = [:]
    let countryRows = try database.statement("SELECT iso, iso3, name FROM countries")
    while try countryRows.step() {
      let iso = countryRows.text(0)
      countries[iso] = countryRows.text(2)
      add(iso.lowercased(), .country(iso))
      add(countryRows.text(1).lowercased(), .country(iso))
      add(NameFolding.fold(countryRows.text(2)), .country(iso))
    }
    for (alias, iso) in Self.countryAliases where countries[iso] != nil {
      add(alias, .country(iso))
    }
    var admin1: [String: String] = [:]
    let adminRows = try database.statement(
      "SELECT country_code, admin1_code, name, asciiname FROM admin1")
    while try adminRows.step() {
      let country = adminRows.text(0)
      let code = adminRows.text(1)
      let area = Area.admin1(country: country, code: code)
      admin1[country + "." + code] = adminRows.text(2)
      add(NameFolding.fold(adminRows.text(2)), area)
      add(NameFolding.fold(adminRows.text(3)), area)
      if country == "US" { add(code.lowercased(), area) }
    }
    countryNames = countries
    admin1Names = admin1
    byKey = keys
    aliasCountries = Self.countryAliases.filter { countries[$0.value] != nil }
  }

  /// The areas a folded phrase names (empty when none).
  func areas(named folded: String) -> [Area] { byKey[Self.key(folded)] ?? [] }

  /// The country a folded phrase names by one of `countryAliases` ("usa", "deutschland").
  func aliasCountry(named folded: String) -> String? { aliasCountries[Self.key(folded)] }

  /// The lookup key of a folded phrase: initials written with stops fold to single letters
  /// and are read joined ("D.C." → "d c" → "dc").
  private static func key(_ folded: String) -> String {
    let words = folded.split(separator: " ")
    guard words.count > 1, words.allSatisfy({ $0.count == 1 }) else { return folded }
    return words.joined()
  }

  /// The name of a place's admin1 area, if the gazetteer has one.
  func admin1Name(of place: Place) -> String? {
    guard place.kind != .country, !place.admin1Code.isEmpty else { return nil }
    return admin1Names[place.countryCode + "." + place.admin1Code]
  }

  /// Common names of countries that countryInfo does not carry: short forms, former names and
  /// endonyms, folded.
  static let countryAliases: [String: String] = [
    "usa": "US", "united states of america": "US", "america": "US",
    "uk": "GB", "great britain": "GB", "britain": "GB",
    "netherlands": "NL", "holland": "NL", "nederland": "NL", "korea": "KR",
    "republic of korea": "KR", "czech republic": "CZ", "cesko": "CZ", "burma": "MM",
    "cote divoire": "CI", "uae": "AE", "east timor": "TL", "swaziland": "SZ",
    "macedonia": "MK", "cape verde": "CV", "vatican city": "VA", "palestine": "PS",
    "turkiye": "TR", "russian federation": "RU", "rossiya": "RU", "deutschland": "DE",
    "espana": "ES", "italia": "IT", "osterreich": "AT", "schweiz": "CH", "suisse": "CH",
    "svizzera": "CH", "polska": "PL", "brasil": "BR", "nippon": "JP", "nihon": "JP",
    "sverige": "SE", "norge": "NO", "danmark": "DK", "suomi": "FI", "hellas": "GR",
    "magyarorszag": "HU", "hrvatska": "HR", "zhongguo": "CN", "bharat": "IN",
  ]
}
