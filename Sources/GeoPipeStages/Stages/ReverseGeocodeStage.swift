import Foundation
import GeoPipeCore
import GeoPipeGeocoding
import GeoPipeIO
import GeoPipeStageKit

/// `reverse-geocode`: the nearest gazetteer place to each point.
final class ReverseGeocodeStage: Stage {
  static let definition = StageDefinition(
    name: "reverse-geocode",
    abstract: "Name the nearest place to each point (offline, against a local gazetteer).",
    discussion: """
      For each Point feature, finds the nearest populated place of the gazetteer by
      great-circle distance (haversine on the mean-radius sphere, R = 6,371,008.8 m; exact,
      also at the poles and across the antimeridian; ties go to the larger population, then
      the smaller geonameid) and adds its placemark under --prefix: kind, geonameid, name,
      admin1_code, admin1_name, country_code, country_name, country_source, population,
      distance_m and match ("nearest", or "none" when nothing qualifies).
      Countries come from polygons when the gazetteer has them (the default one has the
      Natural Earth 1:10m countries; see 'gazetteer build --boundaries'): country_code and
      country_name are those of the country whose polygon holds the point, with
      country_source "polygon"; a point in no polygon (at sea, off a coarse coastline) takes
      the nearest place's country, with country_source "nearest", as does every point with a
      gazetteer built without boundaries. A point on a border two polygons share goes to the
      one stored first (the first in the boundaries file), on every run. When the polygon's
      country is not the nearest place's, admin1_code and admin1_name are null (the place's
      admin1 area is in the other country) unless admin1 polygons give them: with
      --admin1-boundaries in the gazetteer, admin1 comes from the polygon holding the point.
      A point with no place within --max-distance is unmatched, but when kept (--on-miss
      keep) it still gets the country of the polygon holding it. --max-distance leaves points farther
      away unmatched (a number of metres, or with a unit: 500m, 25km, 10mi);
      --feature-class and --min-population choose which places count; --fields keeps only some
      of the placemark properties (match is always added to unmatched features).
      Features that are not Points, and unmatched ones, are handled by --on-miss; how many
      of each kind were dropped or left unmatched is counted on standard error at the end
      ("dropped 50 LineStrings: not points").
      The gazetteer is the default one (see 'geopipe gazetteer --help') unless --gazetteer
      names another. Place data: GeoNames (https://www.geonames.org/), CC BY 4.0.
      """,
    examples: [
      "geopipe read photos.csv | geopipe reverse-geocode | geopipe write photos-named.geojson",
      "geopipe read tracks.geojsonl | geopipe reverse-geocode --max-distance 25km --on-miss drop",
      "geopipe read points.csv | geopipe reverse-geocode --gazetteer world.gazetteer "
        + "--min-population 100000 --prefix city_",
      "geopipe read photos.geojsonl | geopipe reverse-geocode --fields name,country_code,distance_m",
      "geopipe read border-posts.csv | geopipe reverse-geocode --fields country_code,country_source",
    ],
    options: [
      OptionSpec(
        "gazetteer", .path, help: "The gazetteer file (default: the default gazetteer)."),
      OptionSpec(
        "max-distance", .string,
        validate: { text in
          ReverseGeocodeStage.metres(text) == nil
            ? ValueProblem("expected a distance such as 2500, 500m, 25km or 10mi") : nil
        }, help: "Leave points farther than this from every place unmatched."),
      OptionSpec(
        "feature-class", .list, help: "Only places of these GeoNames feature classes (P, A, ...)."),
      OptionSpec("min-population", .integer, help: "Only places with at least this population."),
      OptionSpec(
        "prefix", .string, default: "geocode_", help: "The prefix of the added properties."),
      OptionSpec(
        "fields", .list,
        validate: { text in
          let unknown = text.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
          }.filter { !ReverseGeocodeStage.fields.contains($0) }
          return unknown.isEmpty
            ? nil
            : ValueProblem(
              "unknown field '\(unknown[0])': expected some of "
                + ReverseGeocodeStage.fields.joined(separator: ", "))
        },
        help: "Add only these placemark properties (default: all of them)."),
      OptionSpec(
        "on-miss", .choice(of: MissPolicy.self), default: MissPolicy.keep.rawValue,
        help: "Unmatched features: keep them (match = none), drop them, or fail (exit 65)."),
    ],
    role: .transform,
    make: { values, context in .stage(try ReverseGeocodeStage(values, context: context)) })

  private let places: [Place]
  private let index: ReverseIndex
  private let admin1: [String: String]
  private let countries: [String: String]
  private let maxDistance: Double?
  private let prefix: String
  private let onMiss: MissPolicy
  private let distanceKey: String?
  /// The placemark members to add (nil: all).
  private let keep: Set<String>?

  /// The placemark members, in the order they are added.
  static let fields = [
    "kind", "geonameid", "name", "admin1_code", "admin1_name", "country_code", "country_name",
    "country_source", "population", "match", "distance_m",
  ]
  /// The gazetteer's country and admin1 polygons (none in a gazetteer built without them).
  private let areas: AreaIndex
  /// Each place's placemark members under the prefix, made when the place is first found:
  /// with its own country (country_source nearest), and confirmed by a polygon.
  private var placemarks: [[JSONMember]?]
  private var confirmedPlacemarks: [[JSONMember]?]
  private var count = 0
  /// Unmatched features by kind and reason (`LineString`, `not a Point`), in order of first
  /// appearance.
  private var misses: [(kind: String, reason: String, count: Int)] = []
  private let report: @Sendable (ReadDiagnostic) -> Void

  init(_ values: OptionValues, context: StageContext) throws {
    let gazetteer = try Gazetteer.open(values.string("gazetteer"))
    let classes = values.list("feature-class").map(Set.init)
    let minimum = values.integer("min-population").map(Int64.init)
    // The filters are fixed for the run, so the index holds only the places they keep:
    // faster than rejecting places during every search.
    places = try gazetteer.places().filter { place in
      (classes?.contains(place.featureClass) ?? true)
        && (minimum.map { place.population >= $0 } ?? true)
    }
    admin1 = try gazetteer.admin1Names()
    countries = try gazetteer.countryNames()
    index = ReverseIndex(places: places)
    areas = AreaIndex(try gazetteer.areas())
    maxDistance = values.string("max-distance").flatMap(Self.metres)
    prefix = values.string("prefix") ?? "geocode_"
    onMiss = values.choice("on-miss", as: MissPolicy.self) ?? .keep
    let keep = values.list("fields").map { Set($0.map { $0.trimmingCharacters(in: .whitespaces) }) }
    self.keep = keep
    distanceKey =
      keep?.contains("distance_m") == false
      ? nil : prefix == "geocode_" ? "geocode_distance_m" : prefix + "distance_m"
    placemarks = [[JSONMember]?](repeating: nil, count: places.count)
    confirmedPlacemarks = areas.isEmpty ? [] : placemarks
    report = context.diagnostics
  }

  func process(_ feature: Feature, emit: Emit) throws {
    defer { count += 1 }
    var out = feature
    var country: Int?
    var admin1Area: Int?
    if case .point(let p)? = feature.geometry, !areas.isEmpty {
      country = areas.country(longitude: p.x, latitude: p.y)
      if areas.hasAdmin1 { admin1Area = areas.admin1(longitude: p.x, latitude: p.y) }
    }
    guard case .point(let p)? = feature.geometry,
      let (k, distance) = index.nearest(
        latitude: p.y, longitude: p.x, maxDistance: maxDistance)
    else {
      noteMiss(feature.geometry)
      switch onMiss {
      case .drop: return
      case .fail:
        throw GeoPipeError(
          "reverse-geocode: feature \(count) "
            + (feature.geometry.map {
              if case .point = $0 {
                "has no place within reach"
              } else {
                "is a \($0.typeName), not a Point"
              }
            } ?? "has no geometry"),
          status: .dataError)
      case .keep:
        out[property: prefix + "match"] = .string("none")
        if let country {
          for member in countryMembers(country) where keep?.contains(member.key) ?? true {
            out[property: key(member.key)] = member.value
          }
        }
        try emit(out)
        return
      }
    }
    let placemark: [JSONMember]
    if let country, admin1Area == nil,
      areas.areas[country].countryCode == places[k].countryCode
    {
      placemark = confirmedPlacemarks[k] ?? self.placemark(k, country: country, admin1: nil)
      confirmedPlacemarks[k] = placemark
    } else if country == nil && admin1Area == nil {
      placemark = placemarks[k] ?? self.placemark(k, country: nil, admin1: nil)
      placemarks[k] = placemark
    } else {
      placemark = self.placemark(k, country: country, admin1: admin1Area)
    }
    var properties = out.properties ?? JSONObject()
    out.properties = nil
    if properties.contains(where: { $0.key.hasPrefix(prefix) }) {
      for member in placemark { properties[member.key] = member.value }
      if let distanceKey { properties[distanceKey] = .double(distance) }
    } else {
      // No property has the prefix, so none is replaced: append without looking.
      properties.reserveCapacity(properties.count + placemark.count + 1)
      for member in placemark { properties.appendUnchecked(member.key, member.value) }
      if let distanceKey { properties.appendUnchecked(distanceKey, .double(distance)) }
    }
    out.properties = properties
    try emit(out)
  }

  func finish(emit: Emit) throws {
    for (kind, reason, n) in misses {
      let what =
        n == 1
        ? "1 \(kind)" : "\(n) " + (kind == "feature" ? "features" : "\(kind)s")
      let message =
        onMiss == .drop
        ? "reverse-geocode: dropped \(what): \(reason)"
        : "reverse-geocode: \(what) kept with \(key("match")) = none: \(reason)"
      report(ReadDiagnostic(severity: onMiss == .drop ? .warning : .note, message: message))
    }
  }

  /// Place `k`'s placemark members under the prefix, with the country of area `country`
  /// (else the place's own) and the admin1 area of area `admin1Area` when given.
  private func placemark(_ k: Int, country: Int?, admin1 admin1Area: Int?) -> [JSONMember] {
    var members = places[k].placemark(admin1: admin1, countries: countries, match: "nearest")
    var replacements: [String: JSONValue] = [:]
    if let country {
      for member in countryMembers(country) { replacements[member.key] = member.value }
      if areas.areas[country].countryCode != places[k].countryCode {
        replacements["admin1_code"] = .null
        replacements["admin1_name"] = .null
      }
    } else {
      replacements["country_source"] = .string("nearest")
    }
    if let admin1Area {
      let area = areas.areas[admin1Area]
      replacements["admin1_code"] = .string(area.admin1Code)
      replacements["admin1_name"] = .string(
        admin1[area.countryCode + "." + area.admin1Code] ?? area.name)
    }
    for k in members.indices {
      if let value = replacements[members[k].key] { members[k].value = value }
    }
    if let at = members.firstIndex(where: { $0.key == "country_name" }) {
      members.insert(
        JSONMember("country_source", replacements["country_source"] ?? .null), at: at + 1)
    }
    return members.filter { keep?.contains($0.key) ?? true }.map {
      JSONMember(key($0.key), $0.value)
    }
  }

  /// The country members of the polygon `area`, without prefix: its code, name (GeoNames'
  /// name of the code, else the polygon's) and country_source polygon.
  private func countryMembers(_ area: Int) -> [JSONMember] {
    let code = areas.areas[area].countryCode
    return [
      JSONMember("country_code", .string(code)),
      JSONMember("country_name", .string(countries[code] ?? areas.areas[area].name)),
      JSONMember("country_source", .string("polygon")),
    ]
  }

  /// Counts an unmatched feature under its kind and reason.
  private func noteMiss(_ geometry: Geometry?) {
    let kind: String
    let reason: String
    switch geometry {
    case nil:
      kind = "feature"
      reason = "no geometry"
    case .point?:
      kind = "Point"
      reason =
        maxDistance.map { "no place within \(Template.text(of: .double($0))) m" }
        ?? "no place qualifies"
    case let geometry?:
      kind = geometry.typeName
      reason = "not a Point"
    }
    if let k = misses.firstIndex(where: { $0.kind == kind && $0.reason == reason }) {
      misses[k].count += 1
    } else {
      misses.append((kind, reason, 1))
    }
  }

  /// The property name of a placemark member.
  ///
  /// With the default prefix it is a string literal: literals need no reference counting,
  /// and every feature copies these names to the writer threads, where atomic counts on
  /// shared strings would cost more than the lookup.
  private func key(_ member: String) -> String {
    guard prefix == "geocode_" else { return prefix + member }
    switch member {
    case "kind": return "geocode_kind"
    case "geonameid": return "geocode_geonameid"
    case "name": return "geocode_name"
    case "admin1_code": return "geocode_admin1_code"
    case "admin1_name": return "geocode_admin1_name"
    case "country_code": return "geocode_country_code"
    case "country_name": return "geocode_country_name"
    case "country_source": return "geocode_country_source"
    case "population": return "geocode_population"
    case "match": return "geocode_match"
    default: return prefix + member
    }
  }

  /// A distance in metres from `2500`, `500m`, `25km` or `10mi`.
  static func metres(_ text: String) -> Double? {
    let units: [(String, Double)] = [("km", 1000), ("mi", 1609.344), ("m", 1)]
    for (suffix, factor) in units where text.hasSuffix(suffix) {
      guard let x = Double(text.dropLast(suffix.count)), x >= 0, x.isFinite else { return nil }
      return x * factor
    }
    guard let x = Double(text), x >= 0, x.isFinite else { return nil }
    return x
  }
}
