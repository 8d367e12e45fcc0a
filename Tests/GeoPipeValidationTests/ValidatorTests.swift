import GeoPipeCore
import GeoPipeIO
import Testing

@testable import GeoPipeValidation

@Suite struct ValidatorTests {
  private func summary(_ found: [Finding]) -> [String] {
    found.map { "\($0.location.line):\($0.location.column) \($0.rule.code) \($0.feature ?? -1)" }
  }

  @Test func sequencesResumeAtTheNextRecord() throws {
    let text = """
      {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}
      {"type":"Feature",,}
      {"type":"Feature","geometry":{"type":"Point","coordinates":[1,NaN]},"properties":{}}
      {"type":"Feature","geometry":{"type":"Point","coordinates":[1,95]},"properties":{}}
      {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]},"properties":{}}
      {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]},"properties":{}}
      {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[10,10],[10,0],[0,10],[0,0]]]},"properties":{}}

      """
    let (found, summary) = try findings(in: text, named: "a.geojsonl")
    #expect(
      self.summary(found) == [
        "2:19 GP001 1", "3:63 GP003 2", "4:63 GP004 3", "5:63 GP005 4", "6:63 GP006 5",
        "7:1 GP010 6",
      ])
    #expect(summary.features == 7)
    #expect(summary.errors == 6)
    #expect(found.last?.message == "Self-intersection at (5, 5)")
    #expect(found.last?.reason == "Self-intersection")
  }

  @Test func aSyntaxErrorEndsAFeatureCollection() throws {
    let text = """
      {"type":"FeatureCollection","features":[
      {"type":"Feature","geometry":{"type":"Point","coordinates":[1,200]},"properties":{}},
      {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{} x},
      {"type":"Feature","id":1,"geometry":null,"properties":{}}
      ]}
      """
    let (found, summary) = try findings(in: text)
    #expect(self.summary(found) == ["2:63 GP004 0", "3:83 GP001 1"])
    #expect(summary.features == 2)
  }

  @Test func findsDuplicateIds() throws {
    let text = """
      {"type":"Feature","id":"a","geometry":null,"properties":{}}
      {"type":"Feature","id":"b","geometry":null,"properties":{}}
      {"type":"Feature","id":"a","geometry":null,"properties":{}}
      """
    let (found, _) = try findings(in: text, named: "ids.geojsonl")
    #expect(self.summary(found) == ["3:1 GP024 2"])
    #expect(found[0].message == #"id "a" was already used by feature 0 (line 1)"#)
  }

  @Test func selectIgnoreAndWarningsAsErrors() throws {
    let text = """
      {"type":"Feature","id":1,"geometry":{"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[1,0],[0,0]]]},"properties":{}}
      {"type":"Feature","id":1,"geometry":{"type":"LineString","coordinates":[[0,0],[1,1],[1,1]]},"properties":{}}
      """
    let all = try findings(in: text, named: "x.geojsonl").findings.map(\.rule.code)
    #expect(all == ["GP020", "GP022", "GP024"])
    let ignored = try findings(in: text, named: "x.geojsonl") { $0.ignored = [.winding] }
    #expect(ignored.findings.map(\.rule.code) == ["GP022", "GP024"])
    let selected = try findings(in: text, named: "x.geojsonl") { $0.selected = [.duplicatePoints] }
    #expect(selected.findings.map(\.rule.code) == ["GP022"])
    #expect(selected.summary.warnings == 1 && selected.summary.errors == 0)
    let strict = try findings(in: text, named: "x.geojsonl") { $0.warningsAsErrors = true }
    #expect(strict.findings.allSatisfy { $0.severity == .error })
    #expect(strict.summary.errors == 3)
  }

  @Test func csvRowsResumeAtTheNextRecord() throws {
    let text = "name,lat,lon\na,1,2\nb,95,2\nc,x,2\nd,1\ne,1,2\n"
    let (found, summary) = try findings(in: text, named: "p.csv")
    #expect(self.summary(found) == ["3:3 GP004 1", "4:3 GP003 2", "5:4 GP002 3"])
    #expect(summary.features == 5)
  }

  @Test func anEmptyPointIsAnEmptyGeometryThatFails() throws {
    let text = """
      {"type":"Feature","geometry":{"type":"Point","coordinates":[]},"properties":{}}
      {"type":"Feature","geometry":{"coordinates":[],"type":"Point"},"properties":{}}
      {"type":"Feature","geometry":{"type":"LineString","coordinates":[]},"properties":{}}
      """
    let (found, summary) = try findings(in: text, named: "e.geojsonl")
    #expect(self.summary(found) == ["1:60 GP023 0", "2:45 GP023 1", "3:1 GP023 2"])
    #expect(found.map(\.severity) == [.error, .error, .warning])
    #expect(summary.errors == 2)
  }

  @Test func unreadableContentIsAFinding() throws {
    let (found, _) = try findings(in: "[1, 2, 3]", named: "array.json")
    #expect(found.map(\.rule.code) == ["GP001"])
  }
}
