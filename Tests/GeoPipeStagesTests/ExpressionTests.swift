import GeoPipeCore
import Testing

@testable import GeoPipeStages

@Suite struct ExpressionTests {
  private let place = Feature(properties: [
    "name": .string("Paris"), "population": .string("2148000"), "rank": .integer(3),
    "area": .double(105.4), "capital": .bool(true), "note": .null, "marker-color": .string("#d33"),
    "geopipe:priority": .integer(7),
  ])

  @Test(arguments: [
    ("population > 10000", true),
    ("population < 10000", false),
    ("rank = 3 and area >= 105.4", true),
    ("rank != 3 or name = 'Paris'", true),
    ("not (rank = 3)", false),
    ("name in ('Lyon', 'Paris')", true),
    ("name not in ('Lyon', 'Paris')", false),
    ("note is null", true),
    ("missing is null", true),
    ("name is not null", true),
    ("\"marker-color\" = '#d33'", true),
    ("\"geopipe:priority\" > 5", true),
    ("capital = true", true),
    ("capital", true),
    ("name > 5", false),
    ("not (name > 5)", true),
    ("missing > 5", false),
    ("name = 'it''s'", false),
    ("rank <> 4", true),
    ("10000 < population", true),
  ])
  func evaluates(expression: String, expected: Bool) throws {
    #expect(try Expression.parse(expression).matches(place) == expected)
  }

  @Test(arguments: [
    ("", "the expression is empty"),
    ("population >", "column 13: expected a property or a value"),
    ("name = 'open", "unterminated string"),
    ("(rank = 3", "expected ')'"),
    ("rank = 3 rank", "unexpected 'rank'"),
    ("name in 'a'", "expected '(' after 'in'"),
  ])
  func rejectsMalformedExpressions(expression: String, fragment: String) {
    do {
      _ = try Expression.parse(expression)
      Issue.record("\(expression) parsed")
    } catch {
      #expect("\(error)".contains(fragment), "\(error)")
    }
  }
}

@Suite struct ArgumentParserTests {
  private let parser = ArgumentParser(options: [
    OptionSpec("path", .path, default: "-", positional: true, help: ""),
    OptionSpec("bbox", .bbox, help: ""),
    OptionSpec("quiet", .flag, help: ""),
    OptionSpec("where", .string, help: ""),
    OptionSpec("precision", .integer, help: ""),
  ])

  @Test func takesValuesThatStartWithADash() throws {
    let values = try parser.parse(["--bbox", "-10,35,30,60", "in.csv"])
    #expect(values.bbox("bbox") == BBox(west: -10, south: 35, east: 30, north: 60))
    #expect(values.string("path") == "in.csv")
  }

  @Test func acceptsEqualsForm() throws {
    let values = try parser.parse(["--where=a = 1", "--quiet", "--precision=6"])
    #expect(values.string("where") == "a = 1")
    #expect(values.flag("quiet"))
    #expect(values.integer("precision") == 6)
    #expect(values.string("path") == "-")
  }

  @Test func suggestsTheClosestOption() {
    #expect(throws: GeoPipeError.self) { try parser.parse(["--wher", "x"]) }
    do {
      _ = try parser.parse(["--wher", "x"])
    } catch {
      #expect("\(error)".contains("did you mean '--where'?"))
    }
  }

  @Test func rejectsBadBoxes() {
    for bad in ["1,2,3", "10,60,30,35", "a,b,c,d", "-190,0,0,10"] {
      #expect(throws: GeoPipeError.self) { try parser.parse(["--bbox", bad]) }
    }
  }
}
