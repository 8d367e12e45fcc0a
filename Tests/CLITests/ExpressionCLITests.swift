import Foundation
import Testing

/// The expression language through the binary: `filter --where` and `select --compute` with
/// SQL tests and functions, null semantics, property warnings, and errors at the character.
@Suite("Expressions")
struct ExpressionCLITests {
  private static let places = CLI.fixtures("cli/places.read.geojsonl")

  /// The `name` of each feature line.
  private static func names(_ lines: [String]) throws -> [String] {
    try lines.filter { !$0.isEmpty }.map { line in
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      let properties = object?["properties"] as? [String: Any]
      return try #require(properties?["name"] as? String)
    }
  }

  @Test func filterTakesLikeAndFunctions() throws {
    let input = try String(contentsOf: Self.places, encoding: .utf8)
      .split(separator: "\n").map(String.init)
    // The same condition worked out here, character by character.
    let expected = try Self.names(input).filter {
      $0.hasPrefix("S") && $0.unicodeScalars.count > 6
    }
    #expect(!expected.isEmpty)
    let run = try geopipe(
      ["filter", "--where", "name like 'S%' and length(name) > 6"], stdinFile: Self.places)
    #expect(run.status == 0, "\(run)")
    #expect(try Self.names(run.outLines) == expected)
    let insensitive = try geopipe(
      ["filter", "--where", "lower(name) ilike 's%' and name ~ '^S' and length(name) > 6"],
      stdinFile: Self.places)
    #expect(insensitive.out == run.out)
  }

  /// A comparison with null is unknown: neither it nor its negation keeps the feature.
  @Test func nullsAreUnknown() throws {
    let input = Data(
      """
      {"type":"Feature","properties":{"name":"a","size":null},"geometry":null}
      {"type":"Feature","properties":{"name":"b","size":5},"geometry":null}
      {"type":"Feature","properties":{"name":"c","size":1},"geometry":null}

      """.utf8)
    func kept(_ condition: String) throws -> [String] {
      let run = try geopipe(["filter", "--where", condition], stdin: input)
      #expect(run.status == 0, "\(run)")
      return try Self.names(run.outLines)
    }
    #expect(try kept("size > 2") == ["b"])
    #expect(try kept("not (size > 2)") == ["c"])
    #expect(try kept("size > 2 or size is null") == ["a", "b"])
    #expect(try kept("coalesce(size, 0) between 0 and 2") == ["a", "c"])
    #expect(try kept("size not in (5, null)") == [])
  }

  @Test func selectComputesWithCaseAndConcatenation() throws {
    let run = try geopipe(
      [
        "select", "--keep", "name", "--compute",
        "label=upper(substr(name, 1, 3)) || '-' || case when population > 1000000 then 'big' "
          + "else 'small' end",
      ],
      stdinFile: Self.places)
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.first?.contains("\"label\":\"AL -small\"") == true, "\(run.out)")
    #expect(run.outLines[2].contains("\"name\":\"Cairo\",\"label\":\"CAI-big\""), "\(run.out)")
  }

  /// A style value that starts with `case` is an expression; its constant outputs are checked
  /// before the run.
  @Test func styleTakesCaseExpressions() throws {
    let run = try geopipe(
      [
        "style", "--marker-color",
        "case when population > 5000000 then '#d33' when name like 'S%' then '#36c' end",
      ], stdinFile: Self.places)
    #expect(run.status == 0, "\(run)")
    let colours = try run.outLines.filter { !$0.isEmpty }.map { line in
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      let properties = try #require(object?["properties"] as? [String: Any])
      return "\(properties["name"] ?? ""): \(properties["marker-color"] ?? "-")"
    }
    #expect(colours.contains("Cairo: #d33"))
    #expect(colours.contains("Shanghai: #d33"))
    #expect(colours.contains("Stockholm: #36c"))
    #expect(colours.contains("São Luís: #36c"))
    #expect(colours.contains("Al Ḩudaydah: -"))
    let bad = try geopipe(
      ["style", "--marker-color", "case when rank > 1 then '#d33' else '#zz' end"], stdin: Data())
    #expect(bad.status == 64, "\(bad)")
    #expect(bad.err.contains("'#zz' is not a colour"), "\(bad.err)")
  }

  @Test func errorsShowACaretUnderTheCharacter() throws {
    let run = try geopipe(["filter", "--where", "rank > 1 and lowr(name) = 'x'"], stdin: Data())
    #expect(run.status == 64, "\(run)")
    #expect(
      run.errLines.prefix(3) == [
        "error: invalid value 'rank > 1 and lowr(name) = 'x'' for --where: unknown function "
          + "'lowr'; did you mean 'lower'?",
        "  rank > 1 and lowr(name) = 'x'",
        "               ^",
      ], "\(run.err)")
    let arity = try geopipe(["select", "--compute", "k=round()"], stdin: Data())
    #expect(arity.status == 64, "\(arity)")
    #expect(
      arity.err.contains(
        "round takes 1 to 2 arguments (round(number[, decimals])), found 0\n  k=round()\n    ^"),
      "\(arity.err)")
  }

  /// Property names are case-sensitive; a name that differs only in case gets a hint.
  @Test func misspeltPropertiesAreWarnings() throws {
    let run = try geopipe(["filter", "--where", "Name like 'C%'"], stdinFile: Self.places)
    #expect(run.status == 0, "\(run)")
    #expect(run.out.isEmpty)
    #expect(
      run.err.contains(
        "filter: no feature has a property 'Name'; did you mean 'name'? (names are "
          + "case-sensitive)"), "\(run.err)")
    let strict = try geopipe(
      ["filter", "--where", "Name like 'C%'", "--strict"], stdinFile: Self.places)
    #expect(strict.status == 65, "\(strict)")
  }

  @Test func pipelineFilesReportTheLineAndColumn() throws {
    try withTemporaryDirectory { directory in
      try Data(
        """
        version: 1
        stages:
          - read: places.csv
          - filter: {where: "name ilike 'p%' and lenght(name) > 3"}
          - write: out.geojson

        """.utf8
      ).write(to: directory.appendingPathComponent("p.yaml"))
      try Data(contentsOf: CLI.fixtures("places/places.csv"))
        .write(to: directory.appendingPathComponent("places.csv"))
      let check = try geopipe(["check", "p.yaml"], in: directory)
      #expect(check.status == 78, "\(check)")
      #expect(
        check.errLines.first
          == "p.yaml:4:42: error: 'where' of 'filter': unknown function "
          + "'lenght'; did you mean 'length'?", "\(check.err)")
    }
  }
}
