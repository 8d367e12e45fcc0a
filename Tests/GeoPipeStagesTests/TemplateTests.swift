import GeoPipeCore
import Testing

@testable import GeoPipeStageKit
@testable import GeoPipeStages

@Suite struct TemplateTests {
  private let place: JSONObject = [
    "name": .string("Mogadishu"), "admin1": .string("02"), "population": .integer(2_587_183),
    "text population": .string("2587183"), "area": .double(1657.25), "share": .double(0.07),
    "negative": .integer(-1_234_567), "big": .bigInteger("123456789012345678901234"),
    "geopipe:priority": .string("high"), "capital": .bool(true), "note": .null,
    "hex": .string("0x1A"), "padded": .string(" 1500 "), "word": .string("many"),
    "fraction text": .string("0.255"),
  ]

  private func render(_ text: String) throws -> String {
    var missing = 0
    return try Template(text).render(place, missing: &missing)
  }

  @Test(arguments: [
    ("{name}, {admin1}", "Mogadishu, 02"),
    ("{ name }", "Mogadishu"),
    ("{population}", "2587183"),
    ("{population:,}", "2,587,183"),
    ("{\"text population\":,}", "2,587,183"),
    ("{negative:,}", "-1,234,567"),
    ("{big:,}", "123,456,789,012,345,678,901,234"),
    ("{area}", "1657.25"),
    ("{area:,}", "1,657.25"),
    ("{area:.1f}", "1657.2"),
    ("{area:,.1f}", "1,657.2"),
    ("{population:.2}", "2587183.00"),
    ("{area:d}", "1657"),
    ("{share:%}", "7%"),
    ("{share:.1%}", "7.0%"),
    ("{\"fraction text\":%}", "25.5%"),
    ("{\"fraction text\":.0%}", "26%"),
    ("{padded:,}", "1,500"),
    ("{word:,}", "many"),
    ("{hex:,}", "0x1A"),
    ("{capital}", "true"),
    ("{\"geopipe:priority\"}", "high"),
    ("{{name}} is {name}", "{name} is Mogadishu"),
    ("}}{{", "}{"),
    ("{note}|{absent}", "|"),
  ])
  func rendersFields(template: String, expected: String) throws {
    #expect(try render(template) == expected)
  }

  @Test func countsFieldsWhosePropertyIsMissingOrNull() throws {
    let template = try Template("{name} {note} {absent}")
    var missing = 0
    #expect(template.render(place, missing: &missing) == "Mogadishu  ")
    #expect(missing == 2)
    #expect(template.firstMissingProperty(in: place) == "note")
    #expect(try Template("{name}").firstMissingProperty(in: place) == nil)
    #expect(try Template("{name}").firstMissingProperty(in: nil) == "name")
  }

  @Test func quotedNamesHoldColonsBracesAndDoubledQuotes() throws {
    let template = try Template(#"{"a:b{c}"} {"say ""hi"""}"#)
    #expect(template.propertyNames == ["a:b{c}", #"say "hi""#])
  }

  @Test func constantTemplatesUnescapeBraces() throws {
    #expect(try Template("#d33").constantText == "#d33")
    #expect(try Template("{{x}}").constantText == "{x}")
    #expect(try Template("{x}").constantText == nil)
    #expect(Template.containsField("{x}"))
    #expect(!Template.containsField("{{x}}"))
    #expect(Template.containsField("{x"))
  }

  @Test(arguments: [
    ("{name", "unclosed '{' (close the field with '}', or write '{{' for a literal brace)", 0),
    ("ab}", "unmatched '}' (write '}}' for a literal brace)", 2),
    ("a {}", "empty template field: name a property, as in {name}", 2),
    ("a {  }", "empty template field: name a property, as in {name}", 2),
    ("{x:?}", "unknown number format '?' (use ',', '.2f', ',.1f', '.0%' or 'd')", 3),
    ("{x:.f}", "unknown number format '.f' (use ',', '.2f', ',.1f', '.0%' or 'd')", 3),
    ("{a{b}", "'{' inside a field (close the field with '}' first)", 2),
    (#"x {"name"#, "unclosed '\"' in a template field", 3),
    (#"{"name" x}"#, "expected '}' or ':' after the quoted property name", 8),
    ("{x:,", "unclosed '{' (close the field with '}', or write '{{' for a literal brace)", 0),
  ])
  func reportsErrorsWithTheirOffset(template: String, message: String, offset: Int) {
    #expect(throws: TemplateError(message: message, offset: offset)) { try Template(template) }
  }

  @Test(arguments: [
    (",", true, nil as Int?, false),
    (".2f", false, 2, false),
    (".2", false, 2, false),
    (",.1f", true, 1, false),
    (".0%", false, 0, true),
    ("%", false, nil, true),
    ("d", false, 0, false),
  ])
  func parsesNumberFormats(text: String, grouping: Bool, decimals: Int?, percent: Bool) throws {
    let format = try #require(NumberFormat(text))
    #expect(format.grouping == grouping)
    #expect(format.decimals == decimals)
    #expect(format.percent == percent)
  }

  @Test(arguments: ["", "x", ".", ",,", ".2x", "%%", ".123f"])
  func rejectsUnknownNumberFormats(text: String) {
    #expect(NumberFormat(text) == nil)
  }

  @Test func percentagesMoveTheDecimalPointInsteadOfMultiplying() throws {
    let percent = try #require(NumberFormat("%"))
    #expect(percent.format(0.07) == "7%")
    #expect(percent.format(0.0001) == "0.01%")
    #expect(percent.format(1e-5) == "0.001%")
    #expect(percent.format(-0.5) == "-50%")
    #expect(percent.format(12) == "1200%")
    #expect(percent.format(0) == "0%")
  }

  @Test func integersKeepAllTheirDigitsWhenGrouped() throws {
    let grouping = try #require(NumberFormat(","))
    #expect(
      grouping.format(9.007199254740993e15, integer: 9_007_199_254_740_993)
        == "9,007,199,254,740,993")
    #expect(grouping.format(999) == "999")
    #expect(grouping.format(1000.5) == "1,000.5")
  }
}
