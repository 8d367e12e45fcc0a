/// A row of the gazetteer: a populated place, an admin1 area or a country.
public struct Place: Sendable, Hashable {
  /// What a place is.
  public enum Kind: String, Sendable {
    case place, admin1, country
  }

  /// GeoNames' id (for an area without a row of its own, the id of its representative place).
  public var geonameid: Int64
  /// place, admin1 or country.
  public var kind: Kind
  /// The name (UTF-8, as GeoNames writes it).
  public var name: String
  /// Latitude in degrees.
  public var latitude: Double
  /// Longitude in degrees.
  public var longitude: Double
  /// ISO 3166-1 alpha-2 country code.
  public var countryCode: String
  /// GeoNames' admin1 code within the country ("IL" for Illinois, "07" elsewhere), or "".
  public var admin1Code: String
  /// Population (for areas: their own, else the sum of their places).
  public var population: Int64
  /// GeoNames' feature class (P for populated places).
  public var featureClass: String
  /// GeoNames' feature code (PPL, PPLC, ...).
  public var featureCode: String

  /// Creates a place.
  public init(
    geonameid: Int64, kind: Kind = .place, name: String, latitude: Double, longitude: Double,
    countryCode: String, admin1Code: String, population: Int64, featureClass: String = "P",
    featureCode: String = "PPL"
  ) {
    self.geonameid = geonameid
    self.kind = kind
    self.name = name
    self.latitude = latitude
    self.longitude = longitude
    self.countryCode = countryCode
    self.admin1Code = admin1Code
    self.population = population
    self.featureClass = featureClass
    self.featureCode = featureCode
  }
}
