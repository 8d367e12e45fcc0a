import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `geopipe reverse-geocode` against the shipped GeoNames cities15000, checked against a
/// brute-force great-circle search over the same file.
@Suite("reverse-geocode command")
struct ReverseGeocodeTests {
  struct City {
    var geonameid: Int
    var latitude: Double
    var longitude: Double
    var population: Int
  }

  /// The places of Data/geonames/cities15000.txt.gz, read with gzip.
  static let cities: [City] = {
    let path = CLI.root.appendingPathComponent("Data/geonames/cities15000.txt.gz").path
    guard
      let run = try? runProcess(
        URL(fileURLWithPath: "/bin/gzip"), ["-dc", path], stdin: nil, in: nil)
    else { return [] }
    return run.outLines.compactMap { line in
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count > 14, let id = Int(fields[0]), let lat = Double(fields[4]),
        let lon = Double(fields[5])
      else { return nil }
      return City(geonameid: id, latitude: lat, longitude: lon, population: Int(fields[14]) ?? 0)
    }
  }()

  static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
    let rad = Double.pi / 180
    let dLat = (lat2 - lat1) * rad
    let dLon = (lon2 - lon1) * rad
    let a =
      sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * rad) * cos(lat2 * rad) * sin(dLon / 2)
      * sin(dLon / 2)
    return 2 * 6_371_008.8 * asin(min(1, a.squareRoot()))
  }

  @Test func findsTheGreatCircleNearestPlace() throws {
    let gazetteer = try TestGazetteer.path.get()
    var points: [(Double, Double)] = [
      (90, 0), (-90, 0), (89.9, 179.9), (-17, 180), (-17, -180), (64.1, -21.9), (0, -140),
      (78.2, 15.6), (-54.8, -68.3), (71.0, 179.5), (51.5, -0.12), (1e-9, 1e-9),
    ]
    var random = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let lat = asin(Double.random(in: -1...1, using: &random)) * 180 / Double.pi
      points.append((lat, Double.random(in: -180...180, using: &random)))
    }
    let csv = "lat,lon\n" + points.map { "\($0.0),\($0.1)" }.joined(separator: "\n") + "\n"
    let run = try shell(
      "$GEOPIPE read --infer-types - | $GEOPIPE reverse-geocode --gazetteer '\(gazetteer)'",
      in: CLI.root, stdin: Data(csv.utf8))
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.count == points.count)
    for (line, point) in zip(run.outLines, points) {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      let properties = object?["properties"] as? [String: Any]
      let found = properties?["geocode_geonameid"] as? Int
      var best: City?
      var bestDistance = Double.infinity
      for city in Self.cities {
        let d = Self.haversine(point.0, point.1, city.latitude, city.longitude)
        if d < bestDistance
          || (d == bestDistance
            && (city.population, -city.geonameid) > (
              best?.population ?? -1, -(best?.geonameid ?? 0)
            ))
        {
          best = city
          bestDistance = d
        }
      }
      // Allow a different answer only when two places are equally far to within rounding.
      if found != best?.geonameid, let other = Self.cities.first(where: { $0.geonameid == found }) {
        let d = Self.haversine(point.0, point.1, other.latitude, other.longitude)
        #expect(
          abs(d - bestDistance) <= 1e-6,
          "at \(point): \(String(describing: found)) vs \(String(describing: best?.geonameid))")
      } else {
        #expect(found == best?.geonameid, "at \(point)")
      }
    }
  }

  @Test func maxDistanceAndMisses() throws {
    let gazetteer = try TestGazetteer.path.get()
    let csv = "lat,lon\n0,-140\n59.9,10.7\n"
    let keep = try shell(
      "$GEOPIPE read --infer-types - | $GEOPIPE reverse-geocode --gazetteer '\(gazetteer)' --max-distance 25km",
      in: CLI.root, stdin: Data(csv.utf8))
    #expect(keep.outLines.count == 2)
    #expect(keep.outLines.first?.contains("\"geocode_match\":\"none\"") == true)
    #expect(keep.outLines.last?.contains("\"geocode_name\":\"Oslo\"") == true)
    let drop = try shell(
      "$GEOPIPE read --infer-types - | $GEOPIPE reverse-geocode --gazetteer '\(gazetteer)' --max-distance 25km --on-miss drop",
      in: CLI.root, stdin: Data(csv.utf8))
    #expect(drop.outLines.count == 1)
    let fail = try shell(
      "$GEOPIPE read --infer-types - | $GEOPIPE reverse-geocode --gazetteer '\(gazetteer)' --max-distance 2km --on-miss fail",
      in: CLI.root, stdin: Data(csv.utf8))
    #expect(fail.status == 65)
    let big = try shell(
      "$GEOPIPE read --infer-types - | $GEOPIPE reverse-geocode --gazetteer '\(gazetteer)' --min-population 5000000",
      in: CLI.root, stdin: Data(csv.utf8))
    // The nearest place of five million people or more to Oslo is Saint Petersburg.
    #expect(big.outLines.last?.contains("\"geocode_name\":\"Saint Petersburg\"") == true, "\(big)")
  }

  @Test func replacesPropertiesUnderThePrefixInPlace() throws {
    let gazetteer = try TestGazetteer.path.get()
    let input = Data(
      (#"{"type":"Feature","properties":{"a":1,"geocode_name":"old","z":2},"#
        + #""geometry":{"type":"Point","coordinates":[10.7,59.9]}}"# + "\n"
        + #"{"type":"Feature","properties":{"a":1},"#
        + #""geometry":{"type":"Point","coordinates":[10.7,59.9]}}"# + "\n").utf8)
    let run = try geopipe(["reverse-geocode", "--gazetteer", gazetteer, "-q"], stdin: input)
    #expect(run.status == 0, "\(run)")
    let keys = try run.outLines.map { try JSON.parse($0)["properties"]?.keys ?? [] }
    let placemark = [
      "geocode_kind", "geocode_geonameid", "geocode_name", "geocode_admin1_code",
      "geocode_admin1_name", "geocode_country_code", "geocode_country_name",
      "geocode_country_source", "geocode_population", "geocode_match", "geocode_distance_m",
    ]
    // An existing property keeps its place; the others follow the input's.
    #expect(keys.first == ["a", "geocode_name", "z"] + placemark.filter { $0 != "geocode_name" })
    #expect(keys.last == ["a"] + placemark)
    #expect(run.outLines.allSatisfy { $0.contains(#""geocode_name":"Oslo""#) })
    let custom = try geopipe(
      ["reverse-geocode", "--gazetteer", gazetteer, "--prefix", "city.", "-q"], stdin: input)
    #expect(custom.outLines.count == 2)
    #expect(custom.outLines.allSatisfy { $0.contains(#""city.name":"Oslo","#) }, "\(custom)")
    #expect(custom.outLines.allSatisfy { $0.contains(#""city.distance_m":"#) })
  }

  @Test func fieldsKeepsOnlyTheNamedPlacemarkProperties() throws {
    let gazetteer = try TestGazetteer.path.get()
    let input = Data(
      (#"{"type":"Feature","properties":{"a":1},"#
        + #""geometry":{"type":"Point","coordinates":[10.7,59.9]}}"# + "\n").utf8)
    let run = try geopipe(
      ["reverse-geocode", "--gazetteer", gazetteer, "--fields", "name,country_code", "-q"],
      stdin: input)
    #expect(run.status == 0, "\(run)")
    let keys = try run.outLines.map { try JSON.parse($0)["properties"]?.keys ?? [] }
    #expect(keys == [["a", "geocode_name", "geocode_country_code"]])
    let unknown = try geopipe(
      ["reverse-geocode", "--gazetteer", gazetteer, "--fields", "name,town"], stdin: input)
    #expect(unknown.status == 64, "\(unknown)")
    #expect(unknown.err.contains("unknown field 'town'"), "\(unknown)")
  }

  @Test func explainsAMissingOrForeignGazetteer() throws {
    try withTemporaryDirectory { folder in
      let missing = try geopipe(
        ["reverse-geocode"], stdin: Data(),
        environment: ["GEOPIPE_GAZETTEER": folder.appendingPathComponent("none.sqlite").path])
      #expect(missing.status == 66)
      #expect(missing.err.contains("geopipe gazetteer build --default"))
      let foreign = folder.appendingPathComponent("foreign.sqlite")
      try Data(repeating: 7, count: 4096).write(to: foreign)
      let bad = try geopipe(["reverse-geocode", "--gazetteer", foreign.path], stdin: Data())
      #expect(bad.status == 65)
      #expect(bad.err.contains("is not a geopipe gazetteer"))
    }
  }
}
