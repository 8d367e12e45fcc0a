import Foundation
import Testing

/// What `geopipe check` knows before anything runs: several files at once, the refusals a run
/// would meet, `--var` names the file does not have, `$${` escapes and braces in expressions.
@Suite("Pipeline checks")
struct PipelineCheckTests {
  /// Writes `text` as `name` in `directory`, with `places.csv` beside it.
  private func pipeline(_ text: String, _ name: String = "p.yaml", in directory: URL) throws {
    try write(text, to: directory.appendingPathComponent(name))
    let places = directory.appendingPathComponent("places.csv")
    if !FileManager.default.fileExists(atPath: places.path) {
      try Data(contentsOf: CLI.fixtures("places/places.csv")).write(to: places)
    }
  }

  @Test func checkTakesSeveralFiles() throws {
    let files = try FileManager.default.contentsOfDirectory(
      atPath: CLI.root.appendingPathComponent("Pipelines").path
    ).filter { $0.hasSuffix(".yaml") }.sorted().map { "Pipelines/\($0)" }
    #expect(files.count > 1)
    let good = try geopipe(["check"] + files, in: CLI.root)
    #expect(good.status == 0, "\(good)")
    for file in files { #expect(good.err.contains("\(file): ok"), "\(good)") }
    try withTemporaryDirectory { directory in
      try pipeline(
        "version: 1\nstages:\n  - read: places.csv\n  - fliter: {}\n", "a.yaml", in: directory)
      try pipeline(
        "version: 1\nstages:\n  - read: places.csv\n  - head: x\n", "b.yaml", in: directory)
      try pipeline("version: 1\nstages:\n  - read: places.csv\n", "c.yaml", in: directory)
      let run = try geopipe(["check", "a.yaml", "b.yaml", "c.yaml"], in: directory)
      #expect(run.status == 78, "\(run)")
      #expect(run.err.contains("a.yaml:4:5: error: unknown stage 'fliter'; did you mean 'filter'?"))
      #expect(run.err.contains("b.yaml:4:11: error: invalid value 'x' for 'n' of 'head'"))
      #expect(run.err.contains("c.yaml: ok, 1 stages"))
      let missing = try geopipe(["check", "c.yaml", "nothere.yaml"], in: directory)
      #expect(missing.status == 66, "\(missing)")
      #expect(missing.err.contains("nothere.yaml: no such file"))
      #expect(missing.err.contains("c.yaml: ok"))
      let alone = try geopipe(["check", "nothere.yaml", "--var", "x=1"], in: directory)
      #expect(alone.status == 66, "\(alone)")
      #expect(alone.errLines == ["error: nothere.yaml: no such file"])
    }
  }

  @Test func checkReportsAnOutputFormatItCannotTell() throws {
    try withTemporaryDirectory { directory in
      try pipeline(
        "version: 1\nstages:\n  - read: places.csv\n  - write: {path: b.xyz}\n", in: directory)
      let expected =
        "p.yaml:4:19: error: 'write': cannot tell the output format of 'b.xyz' from its "
        + "extension: give output-format (geojson, geojsonseq, csv, kml, gpkg, shapefile, flatgeobuf, parquet) or use an "
        + "extension such as .geojson, .geojsonl or .csv\n1 error in p.yaml\n"
      let check = try geopipe(["check", "p.yaml"], in: directory)
      #expect(check.status == 78, "\(check)")
      #expect(check.err == expected)
      let run = try geopipe(["run", "p.yaml"], in: directory)
      #expect(run.status == 78, "\(run)")
      #expect(run.err == expected)
      #expect(try contents(of: directory) == ["p.yaml", "places.csv"])
      try pipeline(
        "version: 1\nstages:\n  - read: places.csv\n  - write: {path: b.xyz, output-format: csv}\n",
        in: directory)
      let given = try geopipe(["check", "p.yaml"], in: directory)
      #expect(given.status == 0, "\(given)")
    }
  }

  @Test func checkReportsGeoJSONInAnotherCRS() throws {
    try withTemporaryDirectory { directory in
      let text = """
        version: 1
        stages:
          - read: places.csv
          - reproject: {to: "EPSG:3857"}
          - write: out.geojson

        """
      try pipeline(text, in: directory)
      let check = try geopipe(["check", "p.yaml"], in: directory)
      #expect(check.status == 78, "\(check)")
      #expect(
        check.errLines.first
          == "p.yaml:5:5: error: 'write': the features are in EPSG:3857, and GeoJSON coordinates "
          + "are WGS84 longitude/latitude (RFC 7946): set allow-non-wgs84 to write them anyway, "
          + "or write CSV or GeoJSONSeq; the CRS comes from the stage on line 4")
      try pipeline(
        text.replacingOccurrences(
          of: "out.geojson", with: "{path: out.geojson, allow-non-wgs84: true}"),
        in: directory)
      let allowed = try geopipe(["check", "p.yaml"], in: directory)
      #expect(allowed.status == 0, "\(allowed)")
    }
  }

  @Test func checkReportsAnUnknownCRS() throws {
    try withTemporaryDirectory { directory in
      try pipeline(
        "version: 1\nstages:\n  - read: places.csv\n  - reproject: {to: \"EPSG:99999\"}\n"
          + "  - reproject: {to: \"3857\"}\n  - {id: b, read: {path: places.csv, crs: \"4326x\"}}\n",
        in: directory)
      let check = try geopipe(["check", "p.yaml"], in: directory)
      #expect(check.status == 78, "\(check)")
      #expect(
        check.errLines.prefix(2) == [
          "p.yaml:4:22: error: 'to' of 'reproject': unknown CRS 'EPSG:99999' (give an EPSG code "
            + "such as EPSG:3857, a PROJ string or WKT)",
          "p.yaml:5:22: error: 'to' of 'reproject': unknown CRS '3857'; did you mean 'EPSG:3857'?",
        ])
      #expect(check.err.contains("p.yaml:6:44: error: 'crs' of 'read': unknown CRS '4326x'"))
    }
  }

  /// A `--var` the file neither declares nor uses is a usage error with a suggestion; the
  /// example of `geopipe run --help` works as written.
  @Test func unknownVariablesAreUsageErrors() throws {
    try withTemporaryDirectory { directory in
      let file = CLI.root.appendingPathComponent("Pipelines/csv-to-geojson.yaml").path
      let typo = try geopipe(
        ["run", file, "--var", "inptu=x.csv", "--var", "out=."], in: directory)
      #expect(typo.status == 64, "\(typo)")
      #expect(
        typo.errLines.first
          == "error: --var inptu: \(file) has no variable 'inptu'; did you mean 'input'? "
          + "(its variables: input, out)")
      let output = try geopipe(["check", file, "--var", "output=x"], in: directory)
      #expect(output.status == 64, "\(output)")
      #expect(output.err.contains("has no variable 'output'; did you mean 'out'?"))
      #expect(try contents(of: directory).isEmpty)
      // A variable the file uses without declaring it may be set.
      try pipeline("version: 1\nstages:\n  - read: \"${src}\"\n", in: directory)
      let used = try geopipe(["run", "p.yaml", "--var", "src=places.csv"], in: directory)
      #expect(used.status == 0, "\(used)")
      // Several files: a name is an error only when none of them has it.
      try pipeline(
        "version: 1\nvars: {zoom: 3}\nstages:\n  - read: places.csv\n", "q.yaml", in: directory)
      let some = try geopipe(
        ["check", "p.yaml", "q.yaml", "--var", "src=places.csv", "--var", "zoom=4"], in: directory)
      #expect(some.status == 0, "\(some)")
      let none = try geopipe(
        ["check", "p.yaml", "q.yaml", "--var", "src=places.csv", "--var", "zom=4"], in: directory)
      #expect(none.status == 64, "\(none)")
      #expect(none.err.contains("error: --var zom: none of the files has a variable 'zom'"))
      // In a file with errors, the errors come first: a stage in error may use the variable.
      try pipeline(
        "version: 1\nstages:\n  - read: places.csv\n  - fliter: \"${n}\"\n", in: directory)
      let broken = try geopipe(["check", "p.yaml", "--var", "n=1"], in: directory)
      #expect(broken.status == 78, "\(broken)")
      #expect(broken.errLines.first?.hasPrefix("p.yaml:4:5: error: unknown stage 'fliter'") == true)
      #expect(!broken.err.contains("--var"))
    }
    let help = try geopipe(["run", "--help"])
    let example = try #require(
      help.outLines.first { $0.contains("csv-to-geojson.yaml --var") }?
        .split(separator: " ").map(String.init))
    try withTemporaryDirectory { directory in
      let words = example.dropFirst().map { $0.hasPrefix("out=") ? "out=\(directory.path)" : $0 }
      let run = try geopipe(Array(words), in: CLI.root)
      #expect(run.status == 0, "\(run)")
      #expect(try contents(of: directory) == ["places.geojson"])
    }
  }

  /// `$${…}` is the text `${…}` in every option, templates included; braces inside a `where`
  /// expression's string are text.
  @Test func escapesAndBracesAreLiteral() throws {
    try withTemporaryDirectory { directory in
      let yaml = """
        version: 1
        stages:
          - read: places.csv
          - filter: {where: "name = 'Oslo' and country != '{a}'"}
          - select: {keep: [name], set: {home: "$${env.HOME}", both: "$${x} {name}"}}
          - write: {path: "o$${x}.geojsonl"}

        """
      try pipeline(yaml, in: directory)
      let check = try geopipe(["check", "p.yaml"], in: directory)
      #expect(check.status == 0, "\(check)")
      let run = try geopipe(["run", "p.yaml"], in: directory)
      #expect(run.status == 0, "\(run)")
      let output = text(directory.appendingPathComponent("o${x}.geojsonl"))
      #expect(
        output.contains(#""properties":{"name":"Oslo","home":"${env.HOME}","both":"${x} Oslo"}"#))
    }
  }

  @Test func tabsAndDeepNestingAreReportedWithTheirPlace() throws {
    try withTemporaryDirectory { directory in
      try pipeline("version: 1\nstages:\n  - read: places.csv\n\t- head: 1\n", in: directory)
      let tab = try geopipe(["check", "p.yaml"], in: directory)
      #expect(tab.status == 78, "\(tab)")
      #expect(
        tab.errLines.first
          == "p.yaml:4:1: error: a tab character here: YAML indents with spaces only; replace "
          + "the tab with spaces")
      let deep =
        "version: 1\nstages:\n  - select: {set: {a: " + String(repeating: "[", count: 100_000)
        + String(repeating: "]", count: 100_000) + "}}\n"
      try pipeline(deep, in: directory)
      let run = try geopipe(["check", "p.yaml"], in: directory)
      #expect(run.status == 78, "\(run)")
      #expect(!run.signaled)
      #expect(
        run.errLines.first
          == "p.yaml:3:530: error: nesting deeper than 512 levels of mappings and lists")
    }
  }
}
