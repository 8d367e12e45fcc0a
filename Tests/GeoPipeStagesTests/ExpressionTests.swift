import GeoPipeCore
import Testing

@testable import GeoPipeStageKit
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

@Suite struct ArithmeticTests {
  private let place = Feature(properties: [
    "name": .string("Paris"), "population": .string("2148000"), "rank": .integer(3),
    "area": .double(105.5), "capital": .bool(true), "note": .null, "padded": .string(" 12 "),
    "width": .string("2.5"), "stroke-width": .integer(2),
  ])

  @Test(arguments: [
    ("rank + 1", JSONValue.integer(4)),
    ("rank * 2 - 1", .integer(5)),
    ("rank + 1 * 2", .integer(5)),
    ("(rank + 1) * 2", .integer(8)),
    ("rank-1", .integer(2)),
    ("1 - -1", .integer(2)),
    ("-rank", .integer(-3)),
    ("- (rank + 1)", .integer(-4)),
    ("- 5", .integer(-5)),
    ("population - 1", .integer(2_147_999)),
    ("population / 1000", .double(2148)),
    ("6 / 4", .double(1.5)),
    ("4 / 2", .double(2)),
    ("area * 2", .double(211)),
    ("width * 2", .double(5)),
    ("padded * 2", .integer(24)),
    ("\"stroke-width\" * 2", .integer(4)),
    ("9223372036854775807 + 1", .double(9_223_372_036_854_775_808)),
    ("-9223372036854775807 - 2", .double(-9_223_372_036_854_775_808)),
    ("rank / 0", .null),
    ("rank / 0.0", .null),
    ("1e308 * 10", .null),
    ("name * 2", .null),
    ("'a' + 'b'", .null),
    ("missing + 1", .null),
    ("note + 1", .null),
    ("capital + 1", .null),
    ("-name", .null),
    ("rank > 2", .bool(true)),
    ("rank > 2 and not capital", .bool(false)),
    ("note is null", .bool(true)),
    ("name", .string("Paris")),
    ("missing", .null),
    ("'text'", .string("text")),
    ("null", .null),
  ])
  func computesValues(expression: String, expected: JSONValue) throws {
    let value = try Expression.parseValue(expression).evaluate(place)
    #expect(value == expected, "\(expression) gave \(value)")
  }

  @Test(arguments: [
    ("population / 1000 > 2000", true),
    ("rank * 2 = 6", true),
    ("rank - 1 in (1 + 1, 5)", true),
    ("(rank + 1) * 2 >= 8 and capital", true),
    ("-rank < -2", true),
    ("missing + 1 is null", true),
    ("(rank = 3) = true", true),
    ("rank > -5", true),
  ])
  func arithmeticWorksInConditions(expression: String, expected: Bool) throws {
    #expect(try Expression.parse(expression).matches(place) == expected)
  }

  @Test(arguments: [
    ("rank + 1", "column 9: expected a comparison operator, found end of expression"),
    ("rank + 1 and capital", "column 10: expected a comparison operator, found 'and'"),
    ("not rank * 2", "column 13: expected a comparison operator"),
    ("true", "column 5: expected a comparison operator"),
    ("marker-color = 'x'", "double quotes (\"marker-color\")"),
  ])
  func conditionsMustBeConditions(expression: String, message: String) {
    do {
      _ = try Expression.parse(expression)
      Issue.record("\(expression) parsed")
    } catch {
      #expect("\(error)".contains(message), "\(error)")
    }
  }

  @Test(arguments: [
    ("a +", 3, "expected a property or a value, found end of expression"),
    ("+a", 0, "expected a property or a value, found '+'"),
    ("a * * b", 4, "expected a property or a value, found '*'"),
    // The combining accent is a second Unicode scalar but not a second character.
    ("'e\u{301}' + )", 6, "expected a property or a value, found ')'"),
    ("a + 1 or b", 6, "expected a comparison operator, found 'or'"),
  ])
  func valueErrorsGiveTheCharacterOffset(expression: String, offset: Int, message: String) {
    do {
      _ = try Expression.parseValue(expression)
      Issue.record("\(expression) parsed")
    } catch {
      #expect(error.offset == offset)
      #expect(error.message == message)
    }
  }
}
