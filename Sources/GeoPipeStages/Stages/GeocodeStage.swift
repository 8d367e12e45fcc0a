import GeoPipeCore
import GeoPipeGeocoding
import GeoPipeIO
import GeoPipeStageKit

/// `geocode`: a point and a placemark for each feature, from a query built from its
/// properties.
final class GeocodeStage: Stage {
  /// How names are matched and ranked, for the help of geocode and search.
  static let discussionOfMatching = """
    Names are compared folded (no diacritics, ø→o, ß→ss, lowercase, punctuation as spaces):
    "Zurich" finds Zürich. An exact match on any name, the place's own or an alternate one
    ("Roma", "München", "Moskva"), beats a prefix ("Frankf"), a token match (each word of
    the query is a word of the name: "Janeiro") and a typo (one edit for 4 to 8 characters,
    two from 9: "Amsterdma"). Weaker matches are tried only for names that match nothing
    stronger, so a query that is nothing like a name finds nothing. Among equal matches the
    most populous wins (areas count their population): "Roma" is Rome. A city beats its own
    admin1 area of the same name ("Tokyo", "New York"), or one in its country with at most
    ten times its population ("Buenos Aires"). Text after commas, and trailing words,
    qualify the name by country (name or ISO code) or admin1 area (name, or US state code):
    "Springfield, IL", "Paris, Texas", "London, Canada", "Portland Oregon". A qualifier
    naming several areas ("IL": Israel and Illinois) keeps candidates in any of them; one
    naming no area, or keeping no candidate, gives no result ("Paris, Germany"), and so do
    --country and --restrict. A country or admin1 name ("Japan", "Bavaria") finds the area,
    at its own point, its capital or its most populous place (point_source).
    --focus and --region prefer nearby places, as a map's search region does: the score,
    log10(population), gains 3 × S / (S + d) for a place d km from the focus (or from the
    region: 0 inside), S being a quarter of the region's diagonal, or 100 km without one;
    so a place at the focus counts as if 1,000 times more populous. --restrict keeps only
    places inside --region, --country only those in the countries given.
    confidence is the match's base (exact 1, alternate 0.95, prefix 0.8, token 0.7, typo
    0.55 or 0.4) times the result's share of the weight, 10^score, of all candidates of its
    kind of match: "Paris" 0.97, "Springfield" 0.26 (one of nine), "Springfield, IL" 1.
    """

  static let definition = StageDefinition(
    name: "geocode",
    abstract: "Place each feature at the gazetteer place its properties name (offline).",
    discussion: """
      For each feature, fills in --query with its properties ("{city}, {country}") and
      looks the text up in the gazetteer: the feature gets the best match's Point geometry
      and, under --prefix, its placemark: kind (place, admin1 or country), geonameid (null
      when unknown), name, admin1_code, admin1_name, country_code, country_name,
      population, match (exact, alternate, prefix, token or typo), confidence (0 to 1) and
      point_source (for areas: own row, capital or most populous place; null for places).
      With a gazetteer that has country polygons (the default one does; see 'gazetteer
      build --boundaries') each result's point is checked against them: polygon_country_code
      is the code of the country whose polygon holds it (null at sea or off a coarse
      coastline). country_code stays GeoNames' country of the place (the place's own record;
      the 1:10m polygons can be a kilometre off along a border); results whose polygon names
      another country are counted on standard error with examples, so they can be reviewed
      ("--where 'geocode_polygon_country_code != geocode_country_code'" picks them out).
      A feature without a match, or whose best match is below --min-confidence, is handled
      by --on-miss: kept as it is with match = none, dropped, or an error (exit 65).
      \(discussionOfMatching)
      The gazetteer is the default one (see 'geopipe gazetteer --help') unless --gazetteer
      names another. Place data: GeoNames (https://www.geonames.org/), CC BY 4.0.
      """,
    examples: [
      "geopipe read addresses.csv | geopipe geocode --query '{city}, {country}'",
      "geopipe read stores.csv | geopipe geocode --query '{town}' --country US "
        + "--on-miss drop",
      "geopipe read events.csv | geopipe geocode --query '{venue_city}' "
        + "--region -125,24,-66,50 --min-confidence 0.5 --prefix place_",
    ],
    options: [
      OptionSpec(
        "query", .string, required: true, templates: true,
        validate: { text in
          do throws(TemplateError) {
            _ = try Template(text)
            return nil
          } catch {
            return ValueProblem(error.message, offset: error.offset)
          }
        }, help: "The text to look up, a template of properties (\"{city}, {state}\")."),
      OptionSpec(
        "prefix", .string, default: "geocode_", help: "The prefix of the added properties."),
    ] + searchOptions + [
      OptionSpec(
        "min-confidence", .number, default: "0",
        validate: { text in
          guard let x = Double(text), !(0...1).contains(x) else { return nil }
          return ValueProblem("expected a number from 0 to 1")
        }, help: "Treat a best match below this confidence (0 to 1) as no match."),
      OptionSpec(
        "on-miss", .choice(of: MissPolicy.self), default: MissPolicy.keep.rawValue,
        help: "Features without a match: keep them (match = none), drop them, or fail "
          + "(exit 65)."),
      PropertyUsage.strictOption,
    ],
    role: .transform,
    make: { values, context in .stage(try GeocodeStage(values, context: context)) })

  /// The options `geocode` and `search` share: the gazetteer and where to look.
  static let searchOptions: [OptionSpec] = [
    OptionSpec(
      "gazetteer", .path, help: "The gazetteer file (default: the default gazetteer)."),
    OptionSpec("focus", .point, help: "Prefer places near LON,LAT."),
    OptionSpec("region", .bbox, help: "Prefer places in W,S,E,N (W > E crosses the antimeridian)."),
    OptionSpec("restrict", .flag, help: "Keep only places inside --region."),
    OptionSpec(
      "country", .list,
      validate: { text in
        let codes = text.split(separator: ",", omittingEmptySubsequences: true)
        guard
          codes.isEmpty || codes.contains(where: { $0.count != 2 || !$0.allSatisfy(\.isLetter) })
        else { return nil }
        return ValueProblem("expected ISO 3166-1 alpha-2 country codes such as US or FR,DE")
      }, help: "Keep only places in these countries (ISO alpha-2 codes: US or FR,BE)."),
  ]

  private let geocoder: ForwardGeocoder
  private let query: Template
  private let options: SearchOptions
  private let prefix: String
  private let minimumConfidence: Double
  private let onMiss: MissPolicy
  private let report: @Sendable (ReadDiagnostic) -> Void
  private var index = 0
  private var misses = 0
  private var missExamples: [String] = []
  /// Features whose best match was below --min-confidence, and the first few of them.
  private var weak = 0
  private var weakExamples: [String] = []
  private var usage: PropertyUsage
  /// The gazetteer's country polygons (none in a gazetteer built without them).
  private let areas: AreaIndex
  /// Results whose point lies in another country's polygon, and the first few of them.
  private var disagreements = 0
  private var disagreementExamples: [String] = []

  init(_ values: OptionValues, context: StageContext) throws {
    let text = values.string("query") ?? ""
    do {
      query = try Template(text)
    } catch {
      throw GeoPipeError.usage("invalid value '\(text)' for --query: \(error.message)")
    }
    let gazetteer = try Gazetteer.open(values.string("gazetteer"))
    areas = AreaIndex(try gazetteer.areas().filter { $0.level == .country })
    geocoder = try ForwardGeocoder(gazetteer: gazetteer)
    options = try Self.searchOptions(values, geocoder: geocoder, limit: 1)
    prefix = values.string("prefix") ?? "geocode_"
    minimumConfidence = values.number("min-confidence") ?? 0
    onMiss = values.choice("on-miss", as: MissPolicy.self) ?? .keep
    report = context.diagnostics
    usage = PropertyUsage(
      stage: "geocode", names: query.propertyNames, strict: values.flag("strict"))
  }

  /// The search options from `--focus`, `--region`, `--restrict` and `--country`, checked.
  static func searchOptions(_ values: OptionValues, geocoder: ForwardGeocoder, limit: Int) throws
    -> SearchOptions
  {
    let region = values.bbox("region")
    let restrict = values.flag("restrict")
    if restrict && region == nil {
      throw GeoPipeError.usage("--restrict needs --region W,S,E,N: the region to keep")
    }
    let countries = (values.list("country") ?? []).map { $0.uppercased() }
    if let unknown = countries.first(where: { !geocoder.hasCountry($0) }) {
      throw GeoPipeError.usage(
        "invalid value '\(unknown)' for --country: the gazetteer has no such country code")
    }
    return SearchOptions(
      focus: values.point("focus").map { Position(x: $0.lon, y: $0.lat) }, region: region,
      restrictToRegion: restrict, countries: Set(countries), limit: limit)
  }

  /// A result's placemark properties, without prefix, in the documented order.
  static func placemark(_ result: ForwardMatch, geocoder: ForwardGeocoder) -> [JSONMember] {
    result.place.placemark(
      admin1: geocoder.admin1Names, countries: geocoder.countryNames,
      match: result.match.rawValue)
      + [
        JSONMember("confidence", .double(result.confidence)),
        JSONMember(
          "point_source", result.place.kind == .place ? .null : .string(result.pointSource)),
      ]
  }

  func process(_ feature: Feature, emit: Emit) throws {
    defer { index += 1 }
    usage.observe(feature.properties)
    var missing = 0
    let text = query.render(feature.properties, missing: &missing)
    let found = try geocoder.geocode(text, options: options)
    guard let result = found, result.confidence >= minimumConfidence else {
      let why: String
      if let found {
        // A match was found and rejected: say so, with its confidence, not "no match".
        weak += 1
        why =
          "the best match for '\(text)' is \(found.place.name) with confidence "
          + "\(Self.confidence(found.confidence)), below --min-confidence "
          + Template.text(of: .double(minimumConfidence))
        if weakExamples.count < 3 {
          weakExamples.append("'\(text)': \(Self.confidence(found.confidence))")
        }
      } else {
        misses += 1
        why = "no match for '\(text)'"
        if missExamples.count < 3 { missExamples.append("'\(text)'") }
      }
      switch onMiss {
      case .drop: return
      case .fail:
        throw GeoPipeError("geocode: feature \(index): \(why)", status: .dataError)
      case .keep:
        var out = feature
        out[property: prefix + "match"] = .string("none")
        return try emit(out)
      }
    }
    var out = feature
    out.geometry = .point(Position(x: result.place.longitude, y: result.place.latitude))
    var properties = out.properties ?? JSONObject()
    for member in Self.placemark(result, geocoder: geocoder) {
      properties[prefix + member.key] = member.value
    }
    if !areas.isEmpty {
      let place = result.place
      let code = areas.country(longitude: place.longitude, latitude: place.latitude).map {
        areas.areas[$0].countryCode
      }
      properties[prefix + "polygon_country_code"] = code.map(JSONValue.string) ?? .null
      if let code, code != place.countryCode {
        disagreements += 1
        if disagreementExamples.count < 3 {
          disagreementExamples.append("\(place.name) \(place.countryCode) in \(code)")
        }
      }
    }
    out.properties = properties
    try emit(out)
  }

  func finish(emit: Emit) throws {
    try usage.finish(report: report)
    reportDisagreements()
    let outcome = onMiss == .drop ? ", dropped (--on-miss drop)" : ", kept with match = none"
    let of = "\(index) feature\(index == 1 ? "" : "s")"
    if misses > 0 {
      report(
        ReadDiagnostic(
          severity: .warning,
          message: "geocode: \(misses) of \(of) had no match "
            + "(\(missExamples.joined(separator: ", "))\(misses > missExamples.count ? ", ..." : ""))"
            + outcome))
    }
    if weak > 0 {
      report(
        ReadDiagnostic(
          severity: .warning,
          message: "geocode: \(weak) of \(of) had a best match below --min-confidence "
            + Template.text(of: .double(minimumConfidence)) + " ("
            + weakExamples.joined(separator: ", ") + (weak > weakExamples.count ? ", ..." : "")
            + ")" + outcome))
    }
  }

  /// Notes the results whose point lies in another country's polygon.
  private func reportDisagreements() {
    guard disagreements > 0 else { return }
    report(
      ReadDiagnostic(
        severity: .note,
        message: "geocode: \(disagreements) "
          + (disagreements == 1 ? "result lies" : "results lie") + " in "
          + "another country's polygon than GeoNames gives ("
          + disagreementExamples.joined(
            separator: ", ") + (disagreements > disagreementExamples.count ? ", ..." : "")
          + "); country_code is GeoNames', polygon_country_code the polygon's"))
  }

  /// A confidence with two decimals.
  private static func confidence(_ x: Double) -> String {
    Template.text(of: .double((x * 100).rounded() / 100))
  }
}
