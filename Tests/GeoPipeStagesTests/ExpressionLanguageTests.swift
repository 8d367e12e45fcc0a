import GeoPipeCore
import Testing

@testable import GeoPipeStageKit

/// The SQL of expressions: three-valued logic, tests, functions and their errors.
@Suite struct ExpressionLanguageTests {
  private static let place = Feature(
    geometry: .point(Position(x: 2.35, y: 48.85)),
    properties: [
      "name": .string("San José"), "population": .string("2148000"), "rank": .integer(3),
      "area": .double(105.4), "capital": .bool(true), "note": .null, "code": .string("A_1%"),
      "Name": .string("upper"), "zero": .integer(0), "pattern": .string("San%"),
      "tags": .array([.string("a")]),
    ])

  /// A condition's truth: true, false or unknown (nil).
  @Test(
    arguments: [
      // Three-valued logic, as SQL.
      ("note > 1", nil),
      ("missing = 1", nil),
      ("not (missing = 1)", nil),
      ("missing = 1 and rank = 3", nil),
      ("missing = 1 and rank = 4", false),
      ("missing = 1 or rank = 3", true),
      ("missing = 1 or rank = 4", nil),
      ("not (missing = 1 or rank = 4)", nil),
      ("missing is null", true),
      ("note is not null", false),
      ("rank in (1, null)", nil),
      ("rank in (3, null)", true),
      ("rank not in (1, null)", nil),
      ("rank not in (1, 2)", true),
      ("missing in (1, 2)", nil),
      ("name > 5", false),
      ("name != 5", true),
      ("not (name > 5)", true),
      ("capital", true),
      ("zero = 0 and not capital", false),
      // like and ilike: % any run, _ one character, case as written.
      ("name like 'San%'", true),
      ("name like 'san%'", false),
      ("name ilike 'san%'", true),
      ("name ilike 'SAN JOSÉ'", true),
      ("name like 'San Jos_'", true),
      ("name like '%José'", true),
      ("name like '%os%'", true),
      ("name like 'San'", false),
      ("name like '%'", true),
      ("name like '_an%_'", true),
      ("name like '_________'", false),
      ("name not like 'San%'", false),
      ("name not ilike 'x%'", true),
      ("code like 'A!_1!%' escape '!'", true),
      ("code like 'A!_2%' escape '!'", false),
      ("code like 'A_1%'", true),
      ("rank like '3'", true),
      ("note like '%'", nil),
      ("name like pattern", true),
      ("name like null", nil),
      // between
      ("rank between 1 and 3", true),
      ("rank between 4 and 5", false),
      ("rank not between 4 and 5", true),
      ("population between 2000000 and 3000000", true),
      ("rank between missing and 5", nil),
      ("rank between missing and 2", false),
      ("name between 'A' and 'T'", true),
      ("rank between 1 and 3 and capital", true),
      // Regular expressions.
      ("name ~ '^San'", true),
      ("name ~ '^san'", false),
      ("name ~* '^san'", true),
      ("name !~ '^San'", false),
      ("name !~* '^x'", true),
      ("code ~ '[0-9]%$'", true),
      ("rank ~ '^[0-9]+$'", true),
      ("note ~ 'x'", nil),
      // Functions in conditions.
      ("lower(name) = 'san josé'", true),
      ("upper(name) = 'SAN JOSÉ'", true),
      ("length(name) = 8", true),
      ("length(name) > 5 and name like 'San%'", true),
      ("coalesce(missing, rank) = 3", true),
      ("coalesce(missing, note) is null", true),
      ("nullif(rank, 3) is null", true),
      ("name || '!' = 'San José!'", true),
      ("case when rank > 2 then true else false end", true),
      ("case when missing > 2 then true end", nil),
      ("geometry_type() = 'Point'", true),
      ("x() between 2 and 3 and y() > 48", true),
      // Property names are case-sensitive.
      ("Name = 'upper'", true),
      ("name = 'upper'", false),
    ] as [(String, Bool?)])
  func conditionTruth(expression: String, expected: Bool?) throws {
    let parsed = try Expression.parseCondition(expression)
    #expect(parsed.truth(in: Self.place) == expected, "\(expression)")
    #expect(parsed.matches(Self.place) == (expected == true))
  }

  @Test(arguments: [
    // Text functions; a null argument gives null.
    ("lower('ÀB')", JSONValue.string("àb")),
    ("upper(name)", .string("SAN JOSÉ")),
    ("lower(note)", .null),
    ("length(name)", .integer(8)),
    ("length('')", .integer(0)),
    ("length(rank)", .integer(1)),
    ("length(area)", .integer(5)),
    ("substr(name, 5)", .string("José")),
    ("substr(name, 1, 3)", .string("San")),
    ("substr(name, -4)", .string("José")),
    ("substr(name, -4, 2)", .string("Jo")),
    ("substr(name, 0, 3)", .string("Sa")),
    ("substr(name, 5, -2)", .string("n ")),
    ("substr(name, 20)", .string("")),
    ("substr(name, 2.9, 2)", .string("an")),
    ("substr(name, note)", .null),
    ("trim('  a b  ')", .string("a b")),
    ("trim('xxaxx', 'x')", .string("a")),
    ("trim(note)", .null),
    ("replace(name, 'San', 'St')", .string("St José")),
    ("replace('aaa', 'a', 'bb')", .string("bbbbbb")),
    ("replace('abc', '', 'x')", .string("abc")),
    ("name || ', ' || rank", .string("San José, 3")),
    ("name || note", .null),
    ("'x' || 1.5 || true", .string("x1.5true")),
    ("to_text(rank)", .string("3")),
    ("to_text(area)", .string("105.4")),
    ("to_text(tags)", .string("[\"a\"]")),
    ("to_text(note)", .null),
    ("to_number(population)", .integer(2_148_000)),
    ("to_number(' 2.5 ')", .double(2.5)),
    ("to_number(name)", .null),
    ("to_number(capital)", .null),
    // Null functions.
    ("coalesce(missing, note, 'x')", .string("x")),
    ("coalesce(missing)", .null),
    ("nullif(rank, 4)", .integer(3)),
    ("nullif(name, 'San José')", .null),
    // Numbers: integers stay integers where SQL keeps them.
    ("abs(-3)", .integer(3)),
    ("abs(-2.5)", .double(2.5)),
    ("abs(name)", .null),
    ("round(2.675, 2)", .double(2.68)),
    ("round(1.005, 2)", .double(1.01)),
    ("round(2.5)", .double(3)),
    ("round(-2.5)", .double(-3)),
    ("round(1234.5678, 1)", .double(1234.6)),
    ("round(1234.5, -2)", .double(1200)),
    ("round(0.0004, 2)", .double(0)),
    ("round(9.99, 1)", .double(10)),
    ("round(1e-5, 6)", .double(0.00001)),
    ("round(rank)", .integer(3)),
    ("round(1250, -2)", .integer(1300)),
    ("round(-1250, -2)", .integer(-1300)),
    ("round(1249, -2)", .integer(1200)),
    ("round(area, note)", .null),
    ("floor(2.5)", .double(2)),
    ("floor(-2.5)", .double(-3)),
    ("ceil(2.1)", .double(3)),
    ("ceil(rank)", .integer(3)),
    ("floor(population)", .integer(2_148_000)),
    ("min(3, 1.5, 2)", .double(1.5)),
    ("max(3, 1.5, 2)", .integer(3)),
    ("min(rank, population)", .integer(3)),
    ("max('b', 'a')", .string("b")),
    ("min(1, 'a')", .integer(1)),
    ("max(1, 'a')", .string("a")),
    ("min(rank, note)", .null),
    ("max(rank, capital)", .null),
    ("rank / 2", .double(1.5)),
    ("rank * 2", .integer(6)),
    // case
    ("case when rank > 5 then 'big' when rank > 2 then 'mid' else 'small' end", .string("mid")),
    ("case when rank > 5 then 'big' end", .null),
    ("case rank when 1 then 'one' when 3 then 'three' end", .string("three")),
    ("case note when null then 'null' else 'other' end", .string("other")),
    ("case when missing > 1 then 1 else 2 end", .integer(2)),
    ("CASE WHEN rank = 3 THEN upper(name) END", .string("SAN JOSÉ")),
    // Conditions as values.
    ("rank between 1 and 2", .bool(false)),
    ("missing like 'x'", .null),
    ("not (missing = 1)", .null),
    // Geometry.
    ("geometry_type()", .string("Point")),
    ("x()", .double(2.35)),
    ("y()", .double(48.85)),
    ("num_points()", .integer(1)),
    ("area_m2()", .double(0)),
    ("length_m()", .double(0)),
  ])
  func computesValues(expression: String, expected: JSONValue) throws {
    let value = try Expression.parseValue(expression).evaluate(Self.place)
    #expect(value == expected, "\(expression) gave \(value)")
  }

  @Test func measuresGeometriesOnTheEllipsoid() throws {
    let square = CoordinateArray([
      Position(x: 0, y: 0), Position(x: 1, y: 0), Position(x: 1, y: 1), Position(x: 0, y: 1),
      Position(x: 0, y: 0),
    ])
    let hole = CoordinateArray([
      Position(x: 0.25, y: 0.25), Position(x: 0.25, y: 0.75), Position(x: 0.75, y: 0.75),
      Position(x: 0.75, y: 0.25), Position(x: 0.25, y: 0.25),
    ])
    func value(_ text: String, _ geometry: Geometry?) throws -> Double? {
      try Expression.parseValue(text).evaluate(Feature(geometry: geometry)).numberValue
    }
    // GeographicLib: a 1° square on the equator is 12,308,778,361.47 m²; 1° of the equator
    // is 111,319.49 m.
    let area = try #require(try value("area_m2()", .polygon([square])))
    #expect(Swift.abs(area - 12_308_778_361.47) < 1)
    let holed = try #require(try value("area_m2()", .multiPolygon([[square, hole]])))
    #expect(holed < area * 0.76 && holed > area * 0.74)
    let line = CoordinateArray([Position(x: 0, y: 0), Position(x: 1, y: 0), Position(x: 2, y: 0)])
    let length = try #require(try value("length_m()", .lineString(line)))
    #expect(Swift.abs(length - 2 * 111_319.490_793) < 0.01)
    #expect(try value("length_m()", .polygon([square])) == 0)
    #expect(try value("num_points()", .polygon([square, hole])) == 10)
    #expect(try value("x()", .lineString(line)) == nil)
    #expect(try Expression.parseValue("area_m2()").evaluate(Feature()) == .null)
    #expect(try Expression.parseValue("geometry_type()").evaluate(Feature()) == .null)
  }

  @Test(arguments: [
    ("lowr(name) = 'x'", 0, "unknown function 'lowr'; did you mean 'lower'?"),
    ("a = frobnicate(1)", 4, "unknown function 'frobnicate'; the functions are lower, upper"),
    ("length(a, b) > 1", 0, "length takes 1 argument (length(text)), found 2"),
    ("substr(a) = 'x'", 0, "substr takes 2 to 3 arguments (substr(text, start[, count])), found 1"),
    ("x(1) = 1", 0, "x takes no arguments (x()), found 1"),
    ("min(a) = 1", 0, "min takes at least 2 arguments"),
    ("a like 'x!' escape '!'", 7, "the like pattern ends with its escape character"),
    ("a like 'x' escape 'ab'", 18, "the escape must be one character"),
    ("a ~ '(' ", 4, "invalid regular expression"),
    ("a between 1 or 2", 12, "expected 'and' in 'between … and …', found 'or'"),
    ("case rank then 1 end = 1", 10, "expected 'when' in 'case', found 'then'"),
    ("case when a = 1 then 2 = 2", 26, "expected 'end' to close 'case', found end of expression"),
    ("a not = 1", 6, "expected 'in', 'like', 'ilike' or 'between' after 'not'"),
    ("a | b = 'x'", 2, "expected '||' (concatenation)"),
    ("end = 1", 0, "a property called 'end' goes in double quotes: \"end\""),
    ("lower(a b) = 'x'", 8, "expected ',' or ')' after an argument"),
    ("a || 'x'", 8, "expected a comparison operator, found end of expression"),
  ])
  func rejectsWithTheOffendingCharacter(expression: String, offset: Int, message: String) {
    do {
      _ = try Expression.parseCondition(expression)
      Issue.record("\(expression) parsed")
    } catch {
      #expect(error.offset == offset, "\(expression): \(error)")
      #expect(error.message.contains(message), "\(expression): \(error)")
    }
  }

  /// Deep nesting and very long expressions are errors, not a stack overflow.
  @Test func limitsNestingAndLength() throws {
    let deep =
      String(repeating: "(", count: 100_000) + "a = 1" + String(repeating: ")", count: 100_000)
    #expect(throws: ExpressionError.self) { try Expression.parseCondition(deep) }
    let negations = String(repeating: "not ", count: 100_000) + "a = 1"
    #expect(throws: ExpressionError.self) { try Expression.parseCondition(negations) }
    let long = Array(repeating: "a = 1", count: 100_000).joined(separator: " or ")
    do {
      _ = try Expression.parseCondition(long)
      Issue.record("a 100,000-term expression parsed")
    } catch {
      #expect(error.message.contains("too long"), "\(error)")
    }
    // Within the limits, a long chain and deep parentheses parse and evaluate.
    let chain = Array(repeating: "rank = 1", count: 1000).joined(separator: " or ") + " or rank = 3"
    #expect(try Expression.parseCondition(chain).matches(Self.place))
    let nested =
      String(repeating: "(", count: 200) + "rank = 3" + String(repeating: ")", count: 200)
    #expect(try Expression.parseCondition(nested).matches(Self.place))
  }

  @Test func quotedKeywordsAreProperties() throws {
    let feature = Feature(properties: ["end": .integer(1), "like": .string("x")])
    #expect(try Expression.parseCondition("\"end\" = 1 and \"like\" like 'x'").matches(feature))
  }

  @Test func listsThePropertiesItReads() throws {
    let expression = try Expression.parseValue(
      "case when a like b escape c then lower(d) else e || f end")
    #expect(expression.propertyNames == ["a", "b", "c", "d", "e", "f"])
  }

  @Test func compilesLiteralPatternsOnce() throws {
    guard case .like(_, let like) = try Expression.parseCondition("a like 'x%'") else {
      Issue.record("not a like test")
      return
    }
    #expect(like.compiled != nil)
    guard case .regex(_, let regex) = try Expression.parseCondition("a ~ 'x+'") else {
      Issue.record("not a regular expression test")
      return
    }
    #expect(regex.compiled != nil)
  }
}
