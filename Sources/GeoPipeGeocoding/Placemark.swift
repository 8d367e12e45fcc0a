import GeoPipeCore

extension Place {
  /// The place's placemark properties, without prefix, in the documented order: kind,
  /// geonameid, name, admin1 code and name, country code and name, population and how it
  /// matched (`match`).
  ///
  /// `admin1` maps `CC.CODE` to the admin1 area's name, `countries` a country code to the
  /// country's name.
  public func placemark(admin1: [String: String], countries: [String: String], match: String)
    -> [JSONMember]
  {
    let admin1Name = admin1[countryCode + "." + admin1Code].map(JSONValue.string)
    return [
      JSONMember("kind", .string(kind.rawValue)),
      JSONMember("geonameid", geonameid == 0 ? .null : .integer(geonameid)),
      JSONMember("name", .string(name)),
      JSONMember("admin1_code", admin1Code.isEmpty ? .null : .string(admin1Code)),
      JSONMember("admin1_name", admin1Name ?? .null),
      JSONMember("country_code", .string(countryCode)),
      JSONMember("country_name", countries[countryCode].map(JSONValue.string) ?? .null),
      JSONMember("population", .integer(population)),
      JSONMember("match", .string(match)),
    ]
  }
}

extension Gazetteer {
  /// Opens the gazetteer at `path`, or the default one (`defaultPath`) when `path` is nil,
  /// saying how to build it when it is missing.
  public static func open(_ path: String?) throws -> Gazetteer {
    if let path { return try Gazetteer(path: path) }
    let fallback = defaultPath
    do {
      return try Gazetteer(path: fallback)
    } catch let error as GeoPipeError where error.status == .noInput {
      throw GeoPipeError(
        "no default gazetteer at \(fallback): build it with 'geopipe gazetteer build --default' "
          + "(or 'make'), or name one with --gazetteer", status: .noInput)
    }
  }
}
