import Foundation
import GeoPipeCore
import GeoPipeIO
import Testing

@testable import GeoPipeValidation

/// Checks GEOS validity against Fixtures/validate/geos/expected.json, which
/// Scripts/gen-validate-fixtures.py wrote from the system GEOS 3.11 through Debian's shapely.
@Suite struct GEOSValidityTests {
  struct Expected: Decodable {
    var `case`: String
    var valid: Bool
    var reason: String?
    var location: [Double]?
  }

  struct ExpectedFile: Decodable {
    var cases: [Expected]
  }

  @Test func reasonsAndLocationsMatchGEOS() throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: fixture("validate/geos/expected.json")))
    let expected = try JSONDecoder().decode(ExpectedFile.self, from: data).cases
    let cases = try features("validate/geos/cases.geojsonl")
    #expect(cases.count == expected.count)
    let checker = try GEOSValidityChecker()
    for (feature, expectation) in zip(cases, expected) {
      #expect(feature[property: "case"] == .string(expectation.case))
      let geometry = try #require(feature.geometry)
      let issue = try checker.invalidity(of: geometry)
      if expectation.valid {
        #expect(issue == nil, "\(expectation.case)")
        continue
      }
      let found = try #require(issue, "\(expectation.case) should be invalid")
      #expect(found.reason == expectation.reason, "\(expectation.case)")
      #expect(found.position == expectation.location, "\(expectation.case)")
      #expect(found.rule == Rule.forGEOSReason(expectation.reason ?? ""), "\(expectation.case)")
      #expect(found.message.hasPrefix(expectation.reason ?? "?"), "\(expectation.case)")
    }
  }

  @Test(arguments: [
    ("Self-intersection", "GP010"), ("Ring Self-intersection", "GP011"),
    ("Hole lies outside shell", "GP012"), ("Holes are nested", "GP013"),
    ("Interior is disconnected", "GP014"), ("Nested shells", "GP015"),
    ("Duplicate Rings", "GP016"), ("Too few points in geometry component", "GP005"),
    ("Ring is not closed", "GP006"), ("Invalid Coordinate", "GP003"),
    ("Something new", "GP019"),
  ])
  func eachGEOSReasonHasItsRule(reason: String, code: String) {
    #expect(Rule.forGEOSReason(reason).code == code)
  }

  @Test func makeValidRepairsEveryInvalidCase() throws {
    let checker = try GEOSValidityChecker()
    for feature in try features("validate/geos/cases.geojsonl") {
      let geometry = try #require(feature.geometry)
      let repaired = try Repair.repair(geometry, validity: checker)
      #expect(try checker.invalidity(of: repaired) == nil, "\(feature[property: "case"] ?? .null)")
    }
  }
}
