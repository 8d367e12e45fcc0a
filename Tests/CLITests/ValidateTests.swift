import Foundation
import Testing

/// `geopipe validate` run on the files in `Fixtures/validate/`: reports compared with the
/// expected files beside them, exit statuses, CI controls and `--fix`.
@Suite struct ValidateTests {
  static let folder = CLI.fixtures("validate")
  static let files = ["mixed.geojson", "broken.geojsonl", "clean.geojsonl"]

  struct Golden: Sendable, CustomTestStringConvertible {
    var expected: String
    var arguments: [String]
    var testDescription: String { expected }
  }

  @Test(arguments: [
    Golden(expected: "all.txt", arguments: ["--schema", "schema.json"] + files),
    Golden(expected: "all.github.txt", arguments: ["--format", "github"] + files),
    Golden(expected: "all.junit.xml", arguments: ["--format", "junit"] + files),
    Golden(
      expected: "broken.json", arguments: ["--format", "json", "--schema", "schema.json", files[1]]),
    Golden(expected: "mixed.sarif.json", arguments: ["--format", "sarif", files[0]]),
  ])
  func reportsMatchTheExpectedFiles(golden: Golden) throws {
    let run = try geopipe(["validate"] + golden.arguments, in: Self.folder)
    #expect(run.status == 1, "\(run)")
    #expect(run.err == "")
    let expected = Self.folder.appendingPathComponent(golden.expected)
    if ProcessInfo.processInfo.environment["GEOPIPE_UPDATE_GOLDENS"] != nil {
      try run.stdout.write(to: expected)
    }
    #expect(run.out == text(expected))
  }

  @Test func machineReadableReportsParse() throws {
    for format in ["json", "sarif"] {
      let run = try geopipe(["validate", "--format", format] + Self.files, in: Self.folder)
      let document = try JSON.parse(run.out)
      #expect(document["findings"] != nil || document["runs"] != nil, "\(format)")
    }
    let json = try JSON.parse(
      try geopipe(["validate", "--format", "json", "mixed.geojson"], in: Self.folder).out)
    let first = try #require(json["findings"]?.array?.first)
    #expect(first["file"]?.string == "mixed.geojson")
    #expect(first["line"]?.number == 3)
    #expect(first["column"]?.number == 1)
    #expect(first["feature"]?.number == 1)
    #expect(first["rule"]?.string == "GP010")
    #expect(first["severity"]?.string == "error")
    #expect(first["reason"]?.string == "Self-intersection")
    #expect(first["message"]?.string == "Self-intersection at (5, 5)")
    #expect(json["summary"]?["errors"]?.number == 4)
  }

  /// The GEOS cases end to end: each invalid one gets exactly its GEOS finding (reason and rule
  /// as the system GEOS gives them, see Scripts/gen-validate-fixtures.py), valid ones none
  /// but the winding warning of the clockwise square.
  @Test func geosCasesGetTheirFindings() throws {
    let rules = [
      "Self-intersection": "GP010", "Ring Self-intersection": "GP011",
      "Hole lies outside shell": "GP012", "Holes are nested": "GP013",
      "Interior is disconnected": "GP014", "Nested shells": "GP015",
      "Too few points in geometry component": "GP005",
    ]
    let folder = Self.folder.appendingPathComponent("geos")
    let expected = try #require(
      try JSON.parse(text(folder.appendingPathComponent("expected.json")))["cases"]?.array)
    let run = try geopipe(["validate", "--format", "json", "cases.geojsonl"], in: folder)
    #expect(run.status == 1)
    let findings = try #require(try JSON.parse(run.out)["findings"]?.array)
    for (index, expectation) in expected.enumerated() {
      let name = expectation["case"]?.string ?? "?"
      let found = findings.filter { $0["feature"]?.number == Double(index) }
      if expectation["valid"] == .bool(true) {
        let codes = found.compactMap { $0["rule"]?.string }
        #expect(codes == (name == "valid-clockwise-square" ? ["GP020"] : []), "\(name)")
        continue
      }
      let geos = found.filter { $0["reason"] != nil }
      #expect(geos.count == 1, "\(name)")
      let reason = try #require(expectation["reason"]?.string)
      #expect(geos.first?["reason"]?.string == reason, "\(name)")
      #expect(geos.first?["rule"]?.string == rules[reason], "\(name)")
      #expect(geos.first?["message"]?.string?.hasPrefix(reason + " at (") == true, "\(name)")
    }
  }

  /// Real data: of Natural Earth's 177 countries, GEOS finds Sudan's self-intersection only.
  @Test func naturalEarthCountriesMatchGEOS() throws {
    let folder = Self.folder.appendingPathComponent("geos")
    let expected = try JSON.parse(text(folder.appendingPathComponent("ne_110m_countries.json")))
    let invalid = try #require(expected["invalid"]?.array)
    let run = try geopipe(
      ["validate", "--format", "json", "--ignore", "winding", "ne_110m_countries.geojson.gz"],
      in: folder)
    let report = try JSON.parse(run.out)
    let findings = try #require(report["findings"]?.array)
    #expect(report["summary"]?["features"]?.number == expected["features"]?.number)
    #expect(findings.count == invalid.count)
    for (finding, oracle) in zip(findings, invalid) {
      #expect(finding["feature"]?.number == oracle["feature"]?.number)
      #expect(finding["reason"]?.string == oracle["reason"]?.string)
      let position = finding["position"]?.array?.compactMap(\.number) ?? []
      let location = oracle["location"]?.array?.compactMap(\.number) ?? []
      #expect(position.count == 2 && location.count == 2)
      for (a, b) in zip(position, location) { #expect(abs(a - b) < 1e-12) }
    }
    #expect(run.status == (invalid.isEmpty ? 0 : 1))
  }

  @Test func exitStatuses() throws {
    let clean = try geopipe(["validate", "clean.geojsonl"], in: Self.folder)
    #expect(clean.status == 0, "warnings alone pass")
    #expect(clean.outLines.last == "validate: 1 file, 3 features: 0 errors, 1 warning")
    let strict = try geopipe(
      ["validate", "--warnings-as-errors", "clean.geojsonl"], in: Self.folder)
    #expect(strict.status == 1)
    #expect(strict.outLines.first?.contains("error[GP020]") == true)
    let ignored = try geopipe(
      ["validate", "--warnings-as-errors", "--ignore", "winding", "clean.geojsonl"],
      in: Self.folder)
    #expect(ignored.status == 0)
    #expect(ignored.out == "validate: 1 file, 3 features: no problems\n")
    let missing = try geopipe(["validate", "clean.geojsonl", "missing.geojson"], in: Self.folder)
    #expect(missing.status == 66)
    #expect(missing.err.contains("cannot open 'missing.geojson'"))
    #expect(missing.outLines.last?.hasSuffix("1 file could not be opened") == true)
    let unknownRule = try geopipe(["validate", "--select", "GP999", "clean.geojsonl"])
    #expect(unknownRule.status == 64)
    #expect(unknownRule.err.hasPrefix("error: --select: unknown rule 'GP999'"))
    #expect(try geopipe(["validate"]).status == 64)
    #expect(try geopipe(["validate", "--format", "xml", "a.geojson"]).status == 64)
    let badSchema = try withTemporaryDirectory { folder in
      try write(
        #"{"properties": {"a": {"format": "date"}}}"#, to: folder.appendingPathComponent("s.json"))
      return try geopipe(["validate", "--schema", "s.json", "x.geojson"], in: folder)
    }
    #expect(badSchema.status == 64)
    #expect(badSchema.err.contains("\"format\" is not supported"))
  }

  @Test func filesThatCannotBeOpenedShowInGitHubAndJUnitReports() throws {
    let github = try geopipe(
      ["validate", "--format", "github", "clean.geojsonl", "missing.geojson"], in: Self.folder)
    #expect(github.status == 66)
    #expect(
      github.outLines.contains(
        "::error title=geopipe validate::cannot open 'missing.geojson': No such file or directory"))
    let junit = try geopipe(
      ["validate", "--format", "junit", "missing.geojson"], in: Self.folder)
    #expect(junit.status == 66)
    #expect(
      junit.out.contains(
        "<testsuites name=\"geopipe validate\" tests=\"1\" failures=\"0\" errors=\"1\">"))
    #expect(
      junit.out.contains(
        "<error message=\"cannot open &apos;missing.geojson&apos;: No such file or directory\" type=\"noInput\"/>"
      ))
  }

  @Test func selectRunsOnlyTheNamedRules() throws {
    let run = try geopipe(
      ["validate", "--select", "GP010,hole-outside-shell", "mixed.geojson"], in: Self.folder)
    #expect(run.status == 1)
    #expect(
      run.outLines.map { $0.components(separatedBy: ": ")[1] } == [
        "error[GP010]", "error[GP012]", "1 file, 8 features",
      ])
  }

  @Test func maxFindingsStopsEarly() throws {
    let run = try geopipe(["validate", "--max-findings", "2"] + Self.files, in: Self.folder)
    #expect(run.status == 1)
    #expect(run.outLines.count == 3)
    #expect(run.outLines.last?.hasSuffix("(stopped at --max-findings)") == true)
  }

  @Test func githubAnnotationsAreCappedWithASummary() throws {
    let bowtie =
      #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[10,10],[10,0],[0,10],[0,0]]]},"properties":{}}"#
    let run = try withTemporaryDirectory { folder in
      try write(
        String(repeating: bowtie + "\n", count: 14), to: folder.appendingPathComponent("b.geojsonl")
      )
      return try geopipe(["validate", "--format", "github", "b.geojsonl"], in: folder)
    }
    #expect(run.status == 1)
    let lines = run.outLines
    #expect(lines.count == 15)
    #expect(lines.prefix(10).allSatisfy { $0.hasPrefix("::error file=b.geojsonl,line=") })
    #expect(lines[10] == "b.geojsonl:11:1: error[GP010]: Self-intersection at (5, 5)")
    #expect(
      lines.last
        == "::notice title=geopipe validate::validate: 1 file, 14 features: 14 errors, 0 warnings; "
        + "4 findings beyond the first 10 of each severity are in the log only")
  }

  @Test func githubEscapesWorkflowCommandText() throws {
    let run = try withTemporaryDirectory { folder in
      try write(
        #"{"type":"Feature","id":"a,b:c%","geometry":null,"properties":{}}"# + "\n"
          + #"{"type":"Feature","id":"a,b:c%","geometry":null,"properties":{}}"# + "\n",
        to: folder.appendingPathComponent("a,b.geojsonl"))
      return try geopipe(["validate", "--format", "github", "a,b.geojsonl"], in: folder)
    }
    #expect(
      run.outLines.first
        == #"::error file=a%2Cb.geojsonl,line=2,col=1,title=GP024 duplicate-id::id "a,b:c%25" was already used by feature 0 (line 1)"#
    )
  }

  @Test func fixWritesARepairedCopyThatValidates() throws {
    try withTemporaryDirectory { folder in
      for name in ["mixed.geojson", "broken.geojsonl"] {
        try FileManager.default.copyItem(
          at: Self.folder.appendingPathComponent(name), to: folder.appendingPathComponent(name))
      }
      let run = try geopipe(["validate", "--fix", "mixed.geojson", "broken.geojsonl"], in: folder)
      #expect(run.status == 1, "findings are about the originals")
      #expect(
        run.errLines == [
          "wrote mixed.fixed.geojson: 7 features, 4 repaired, 1 unreadable left out",
          "wrote broken.fixed.geojsonl: 3 features, 0 repaired, 4 unreadable left out",
        ])
      // What --fix cannot repair: ids and empty geometries are the data's to decide.
      let again = try geopipe(
        [
          "validate", "--ignore", "duplicate-id,empty-geometry", "mixed.fixed.geojson",
          "broken.fixed.geojsonl",
        ], in: folder)
      #expect(again.status == 0, "\(again)")
      #expect(again.out == "validate: 2 files, 10 features: no problems\n")
    }
  }

  @Test func fixWritesNoPartialCopyWhenMaxFindingsStopsTheRun() throws {
    try withTemporaryDirectory { folder in
      try FileManager.default.copyItem(
        at: Self.folder.appendingPathComponent("mixed.geojson"),
        to: folder.appendingPathComponent("mixed.geojson"))
      let run = try geopipe(
        ["validate", "--fix", "--max-findings", "2", "mixed.geojson"], in: folder)
      #expect(run.status == 1)
      #expect(
        run.err == "note: no repaired copy of mixed.geojson: validation stopped at --max-findings\n"
      )
      #expect(try contents(of: folder) == ["mixed.geojson"])
    }
  }

  @Test func fixLeavesNoCopyOfAFileItCannotRead() throws {
    try withTemporaryDirectory { folder in
      try write(
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":null,"properties":{}} x]}"#,
        to: folder.appendingPathComponent("cut.geojson"))
      let run = try geopipe(["validate", "--fix", "cut.geojson"], in: folder)
      #expect(run.status == 1)
      #expect(run.err == "note: no repaired copy of cut.geojson: it cannot be read to the end\n")
      #expect(try contents(of: folder) == ["cut.geojson"])
    }
  }

  @Test func readsStandardInputAndCSV() throws {
    let csv = "name,lat,lon\nA,1,2\nB,100,2\nC,1,2\n"
    let run = try geopipe(["validate", "-"], stdin: Data(csv.utf8))
    #expect(run.status == 1)
    #expect(
      run.out == "<stdin>:3:3: error[GP004]: latitude 100 is out of range [-90, 90] (\"lon\" holds "
        + "2): are latitude and longitude swapped?\n"
        + "validate: 1 file, 3 features: 1 error, 0 warnings\n")
  }
}
