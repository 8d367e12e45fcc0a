import Foundation
import Testing

/// `select`, `sort` and `head` through the binary: golden outputs in `Fixtures/tables/`,
/// spilling to temporary files, usage errors and warnings.
///
/// To regenerate the expected files on purpose, run the tests with
/// `GEOPIPE_UPDATE_GOLDENS=1`, then review the diff before committing it.
@Suite("Table stages")
struct TableStageTests {
  struct Case: Sendable, CustomTestStringConvertible {
    /// The expected output, in `Fixtures/tables/`.
    var expected: String
    var arguments: [String]
    /// A file in `Fixtures/cli/` given as standard input.
    var stdin: String

    var testDescription: String { expected }
  }

  static let cases: [Case] = [
    Case(
      expected: "places.select.geojsonl",
      arguments: [
        "select", "--keep", "name,country,population", "--set", "label={name} ({country})",
        "--set", "people={population:,}", "--compute", "millions=population / 1000000",
        "--compute", "big=population >= 10000000", "--rename", "name=title",
      ],
      stdin: "places.read.geojsonl"),
    Case(
      expected: "places.sort-country-population-desc.geojsonl",
      arguments: ["sort", "--by", "country,population", "--desc"],
      stdin: "places.read.geojsonl"),
    Case(
      expected: "places.head.geojsonl", arguments: ["head", "3"], stdin: "places.read.geojsonl"),
    Case(
      expected: "world.sort-population.geojsonl", arguments: ["sort", "--by", "population"],
      stdin: "world.read.geojsonl"),
    Case(
      expected: "world.select.geojsonl",
      arguments: [
        "select", "--drop", "marker-color", "--rename", "kind=type", "--compute",
        "thousands=population / 1000", "--compute", "colour=\"marker-color\"",
      ],
      stdin: "world.read.geojsonl"),
  ]

  @Test(arguments: cases)
  func matchesGoldenFile(_ golden: Case) throws {
    let run = try geopipe(golden.arguments, stdinFile: CLI.fixtures("cli/\(golden.stdin)"))
    #expect(run.status == 0, "\(run)")
    let expected = CLI.fixtures("tables/\(golden.expected)")
    if ProcessInfo.processInfo.environment["GEOPIPE_UPDATE_GOLDENS"] == "1" {
      try run.stdout.write(to: expected)
      return
    }
    #expect(run.out == text(expected), "\(golden.expected) differs")
  }

  /// GeoJSONSeq of `count` points whose names repeat, about 130 bytes each.
  private static func sequence(count: Int) -> Data {
    var text = ""
    text.reserveCapacity(count * 130)
    for k in 0..<count {
      let name = "place \((k * 7919) % 1000)"
      text +=
        #"{"type":"Feature","properties":{"i":\#(k),"name":"\#(name)"},"geometry":{"type":"Point","coordinates":[\#(k % 360 - 180),0]}}"#
        + "\n"
    }
    return Data(text.utf8)
  }

  @Test(arguments: [false, true])
  func sortSpillsToTemporaryFilesAndLeavesNothing(descending: Bool) throws {
    let input = Self.sequence(count: 30_000)
    let flags = ["sort", "--by", "name"] + (descending ? ["--desc"] : [])
    try withTemporaryDirectory { dir in
      let inMemory = try geopipe(flags, stdin: input, environment: ["TMPDIR": dir.path])
      let spilled = try geopipe(
        flags + ["--memory", "1"], stdin: input, environment: ["TMPDIR": dir.path])
      #expect(inMemory.status == 0, "\(inMemory)")
      #expect(spilled.status == 0, "\(spilled)")
      #expect(spilled.outLines.count == 30_000)
      #expect(spilled.stdout == inMemory.stdout)
      #expect(try contents(of: dir) == [])
      // Names tie 30 times each; ties keep input order.
      let first = spilled.outLines.prefix(30).compactMap { try? JSON.parse($0) }
      let numbers = first.compactMap { $0["properties"]?["i"]?.number }
      #expect(numbers == numbers.sorted())
      #expect(Set(first.compactMap { $0["properties"]?["name"]?.string }).count == 1)
    }
  }

  @Test func sortSaysWhenItCannotSpill() throws {
    let run = try geopipe(
      ["sort", "--by", "name", "--memory", "1"], stdin: Self.sequence(count: 30_000),
      environment: ["TMPDIR": "/nonexistent/folder"])
    #expect(run.status == 73, "\(run)")
    #expect(run.err.contains("cannot create a temporary file in '/nonexistent/folder'"))
    #expect(run.err.contains("TMPDIR"))
  }

  @Test(arguments: [
    (["head", "--n", "-1"], "invalid value '-1' for --n: expected a whole number, 0 or more"),
    (["sort"], "missing --by"),
    (["sort", "--by", "name", "--memory", "0"], "expected a whole number of MiB, 1 or more"),
    (
      ["select", "--compute", "k=population /"],
      "invalid value 'k=population /' for --compute: expected a property or a value"
    ),
    (["select", "--set", "label={name"], "invalid value 'label={name' for --set: unclosed '{'"),
    (["select"], "select needs at least one of --keep, --drop, --rename, --set or --compute"),
  ])
  func rejectsBadOptionsAsUsageErrors(arguments: [String], message: String) throws {
    let run = try geopipe(arguments, stdin: Data())
    #expect(run.status == 64, "\(run)")
    #expect(run.err.contains(message), "\(run.err)")
  }

  /// `-n N` is head's short name for its count, as in head(1); `-q` is `--quiet` everywhere.
  @Test func shortNamesAreTheirLongOptions() throws {
    let places = CLI.fixtures("cli/places.read.geojsonl")
    let short = try geopipe(["head", "-n", "3"], stdinFile: places)
    #expect(short.status == 0, "\(short)")
    #expect(short.outLines.count == 3)
    #expect(short.out == (try geopipe(["head", "3"], stdinFile: places)).out)
    let quiet = try geopipe(["select", "--set", "label={regio}", "-q"], stdinFile: places)
    #expect(quiet.status == 0, "\(quiet)")
    #expect(quiet.err == "")
  }

  @Test func selectWarnsOnceAboutMissingTemplateProperties() throws {
    let places = CLI.fixtures("cli/places.read.geojsonl")
    let run = try geopipe(["select", "--set", "label={regio}"], stdinFile: places)
    #expect(run.status == 0, "\(run)")
    #expect(run.errLines == ["warning: select: no feature has a property 'regio'"])
    // A property some features have is counted where it is missing.
    let mixed = Data(
      ("{\"type\":\"Feature\",\"properties\":{\"region\":\"N\"},\"geometry\":null}\n"
        + "{\"type\":\"Feature\",\"properties\":{},\"geometry\":null}\n"
        + "{\"type\":\"Feature\",\"properties\":null,\"geometry\":null}\n").utf8)
    let some = try geopipe(["select", "--set", "label={region}"], stdin: mixed)
    #expect(some.status == 0, "\(some)")
    #expect(
      some.errLines == [
        "warning: select --set label: the template's property 'region' is missing or null in "
          + "2 features; it was left empty"
      ])
    #expect(run.outLines.count == 32)
    let quiet = try geopipe(["select", "--set", "label={region}", "--quiet"], stdinFile: places)
    #expect(quiet.err == "")
  }

  @Test func sortThenHeadKeepsTheLargest() throws {
    try withTemporaryDirectory { dir in
      let run = try shell(
        "\"$GEOPIPE\" read \(shellQuoted(CLI.fixtures("cli/places.csv").path)) | "
          + "\"$GEOPIPE\" sort --by population --desc | \"$GEOPIPE\" head 3 | "
          + "\"$GEOPIPE\" select --keep name,population",
        in: dir)
      #expect(run.status == 0, "\(run)")
      let names = run.outLines.compactMap { try? JSON.parse($0)["properties"]?["name"]?.string }
      #expect(names == ["Shanghai", "Beijing", "Lagos"])
    }
  }
}
