import Foundation
import GeoPipeCore

/// A country or admin1 area with its polygon, as a gazetteer stores it.
public struct BoundaryArea: Sendable, Hashable {
  /// Which kind of area.
  public enum Level: String, Sendable, CaseIterable {
    case country, admin1
  }

  /// Country or admin1.
  public var level: Level
  /// ISO 3166-1 alpha-2 code of the country (of the area's country, for admin1 areas).
  public var countryCode: String
  /// GeoNames' admin1 code within the country (admin1 areas), or "".
  public var admin1Code: String
  /// The area's name as the boundaries file gives it.
  public var name: String
  /// A Polygon or MultiPolygon in WGS84 longitude/latitude.
  public var geometry: Geometry

  /// Creates an area.
  public init(
    level: Level, countryCode: String, admin1Code: String = "", name: String,
    geometry: Geometry
  ) {
    self.level = level
    self.countryCode = countryCode
    self.admin1Code = admin1Code
    self.name = name
    self.geometry = geometry
  }

  /// The area a boundaries file's feature describes, or a reason it describes none.
  ///
  /// Property names are matched ignoring case, so Natural Earth's `ISO_A2` and the
  /// lowercase `iso_a2` of its GeoJSON and GeoPackage editions both work. The country code
  /// is the first of these that is a two-letter code (Natural Earth writes `-99` where a
  /// column has none): `ISO_A2`; `ISO_A2_EH` (Natural Earth's "ISO_A2 except historical"
  /// column, which names France, Norway and their overseas parts whose `ISO_A2` is `-99`);
  /// `WB_A2` (Kosovo: XK); `ADM0_A3` turned into the alpha-2 code of the country whose
  /// alpha-3 code it is (`iso3`, from GeoNames' countryInfo); `country_code`. An area with
  /// none of them (Natural Earth's Akrotiri, Dhekelia, Guantanamo Bay, Bir Tawil, Spratly
  /// Islands, Scarborough Reef) is left out, so points there take the nearest place's country.
  ///
  /// Admin1 areas take their code from `gn_a1_code` (Natural Earth's GeoNames admin1 code,
  /// `US.CA`, its country part dropped), else `admin1_code`, else `iso_3166_2` (`US-CA`, its
  /// country part dropped); their name from `name`.
  public static func from(
    _ feature: Feature, level: Level, iso3: [String: String]
  ) -> Result<BoundaryArea, Skip> {
    guard let geometry = feature.geometry else { return .failure(.noGeometry) }
    switch geometry {
    case .polygon, .multiPolygon: break
    default: return .failure(.notAnArea(geometry.typeName))
    }
    var values: [String: String] = [:]
    for member in feature.properties ?? JSONObject() {
      if case .string(let text) = member.value {
        values[member.key.lowercased()] = text.trimmingCharacters(in: .whitespaces)
      }
    }
    func code(_ key: String) -> String? {
      guard let text = values[key], text.count == 2, text.allSatisfy(\.isLetter) else {
        return nil
      }
      return text.uppercased()
    }
    let country =
      code("iso_a2") ?? code("iso_a2_eh") ?? code("wb_a2")
      ?? values["adm0_a3"].flatMap { iso3[$0.uppercased()] } ?? code("country_code")
    let name = values["name"] ?? values["admin"] ?? values["name_en"] ?? ""
    guard let country else { return .failure(.noCountryCode(name)) }
    var admin1 = ""
    if level == .admin1 {
      let raw = values["gn_a1_code"] ?? values["admin1_code"] ?? values["iso_3166_2"] ?? ""
      admin1 =
        raw.hasPrefix(country + ".") || raw.hasPrefix(country + "-")
        ? String(raw.dropFirst(3)) : raw
      guard !admin1.isEmpty else { return .failure(.noAdmin1Code(name)) }
    }
    return .success(
      BoundaryArea(
        level: level, countryCode: country, admin1Code: admin1, name: name, geometry: geometry))
  }

  /// Why a feature of a boundaries file gives no area.
  public enum Skip: Error, Hashable, Sendable, CustomStringConvertible {
    case noGeometry
    case notAnArea(String)
    case noCountryCode(String)
    case noAdmin1Code(String)

    /// What is missing, as a phrase.
    public var description: String {
      switch self {
      case .noGeometry: "no geometry"
      case .notAnArea(let type): "a \(type), not a Polygon or MultiPolygon"
      case .noCountryCode(let name):
        "'\(name)' has no country code (ISO_A2, ISO_A2_EH, WB_A2, ADM0_A3 or country_code)"
      case .noAdmin1Code(let name):
        "'\(name)' has no admin1 code (gn_a1_code, admin1_code or iso_3166_2)"
      }
    }
  }
}
