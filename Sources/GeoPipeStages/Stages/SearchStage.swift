import GeoPipeCore
import GeoPipeGeocoding
import GeoPipeIO
import GeoPipeStageKit

/// `search`: the gazetteer places a text names, best first, as Point features.
enum SearchStage {
  static let definition = StageDefinition(
    name: "search",
    abstract: "List the gazetteer places a name may mean, best first (offline).",
    discussion: """
      Looks QUERY up in the gazetteer as geocode does and writes the candidates, best first,
      as Point features with the placemark properties kind (place, admin1 or country),
      geonameid (null when unknown), name, admin1_code, admin1_name, country_code,
      country_name, population, match (exact, alternate, prefix, token or typo),
      confidence (0 to 1) and point_source (for areas; null for places). The candidates of
      the strongest kind of match come first; when they are fewer than --limit, prefix and
      token matches of the same name follow (typos only when nothing else matches). A
      query that matches nothing writes no features.
      \(GeocodeStage.discussionOfMatching)
      The gazetteer is the default one (see 'geopipe gazetteer --help') unless --gazetteer
      names another. Place data: GeoNames (https://www.geonames.org/), CC BY 4.0.
      """,
    examples: [
      "geopipe search Springfield",
      "geopipe search 'Paris' --focus -95.55,33.66 --limit 3",
      "geopipe search 'San Jose' --region -125,32,-114,42 --restrict | geopipe write sj.geojson",
    ],
    options: [
      OptionSpec(
        "query", .string, required: true, positional: true,
        help: "The text to look up: a name, optionally with qualifiers (\"Springfield, IL\")."),
      OptionSpec(
        "limit", .integer, default: "10",
        validate: OptionBounds.integer(1...10_000), help: "The most candidates to list, 1 to 10000."
      ),
    ] + GeocodeStage.searchOptions,
    role: .source,
    make: { values, _ in
      let geocoder = try ForwardGeocoder(
        gazetteer: try Gazetteer.open(values.string("gazetteer")))
      let options = try GeocodeStage.searchOptions(
        values, geocoder: geocoder, limit: values.integer("limit") ?? 10)
      let results = try geocoder.search(values.string("query") ?? "", options: options)
      return .source(
        SearchReader(
          features: results.map { result in
            Feature(
              geometry: .point(Position(x: result.place.longitude, y: result.place.latitude)),
              properties: JSONObject(
                members: GeocodeStage.placemark(result, geocoder: geocoder)))
          }))
    })
}

/// Hands out the features of a finished search.
final class SearchReader: FeatureReader {
  private var features: IndexingIterator<[Feature]>

  init(features: [Feature]) {
    self.features = features.makeIterator()
  }

  var bytesRead: Int { 0 }
  var skippedCount: Int { 0 }
  var collectionMembers: JSONObject { JSONObject() }

  func next() throws -> Feature? { features.next() }
}
