import GeoPipeCore
import GeoPipeIO
import Synchronization
import Testing

@testable import GeoPipeStageKit
@testable import GeoPipeStages

@Suite struct StyleValueTests {
  private func key(_ name: String) throws -> StyleKey {
    try #require(StyleKey.all.first { $0.option == name })
  }

  private func problem(_ text: String, for option: String) throws -> ValueProblem? {
    let validate = try #require(StyleStage.definition.option(option)?.validate)
    return validate(text)
  }

  @Test func readsConstantsAndTemplates() throws {
    #expect(try StyleValue("#d33") == .constant("#d33"))
    #expect(try StyleValue("{{literal}}") == .constant("{literal}"))
    #expect(try StyleValue("{name}, {admin1}") == .template(Template("{name}, {admin1}")))
    #expect(try StyleValue("matches(x)") == .constant("matches(x)"))
  }

  @Test func readsMatchRules() throws {
    let value = try StyleValue("match(kind, city: #d33, 'big town': '#36c', else: #999)")
    guard case .match(let rule) = value else {
      Issue.record("not a match rule: \(value)")
      return
    }
    #expect(rule.property == "kind")
    #expect(rule.cases.map(\.value) == ["city", "big town"])
    #expect(rule.cases.map(\.output) == [try Template("#d33"), try Template("#36c")])
    #expect(rule.otherwise == (try Template("#999")))
  }

  @Test func readsStepsRules() throws {
    let value = try StyleValue("steps(\"pop total\", small, 100000: medium, 1e6: large)")
    guard case .steps(let rule) = value else {
      Issue.record("not a steps rule: \(value)")
      return
    }
    #expect(rule.property == "pop total")
    #expect(rule.base == (try Template("small")))
    #expect(rule.stops.map(\.threshold) == [100_000, 1_000_000])
    #expect(rule.stops.map(\.output) == [try Template("medium"), try Template("large")])
  }

  @Test func quotedTokensHoldDelimitersAndDoubledQuotes() throws {
    let value = try StyleValue(#"match(name, 'Washington, D.C.': 'it''s: "DC"', else: "{name}")"#)
    guard case .match(let rule) = value else {
      Issue.record("not a match rule: \(value)")
      return
    }
    #expect(rule.cases.map(\.value) == ["Washington, D.C."])
    #expect(rule.cases.first?.output.constantText == #"it's: "DC""#)
    #expect(rule.otherwise == (try Template("{name}")))
  }

  @Test func matchComparesThePropertysText() throws {
    let value = try StyleValue("match(code, 1: one, true: yes, '': empty, else: other)")
    guard case .match(let rule) = value else {
      Issue.record("not a match rule: \(value)")
      return
    }
    func pick(_ code: JSONValue?) -> String? {
      var properties = JSONObject()
      properties["code"] = code
      return rule.output(for: properties)?.constantText
    }
    #expect(pick(.integer(1)) == "one")
    #expect(pick(.string("1")) == "one")
    #expect(pick(.double(1.0)) == "one")
    #expect(pick(.bool(true)) == "yes")
    #expect(pick(.string("")) == "empty")
    #expect(pick(.string("2")) == "other")
    #expect(pick(.null) == "other")
    #expect(pick(nil) == "other")
    let noElse = try StyleValue("match(code, 1: one)")
    guard case .match(let strict) = noElse else { return }
    #expect(strict.output(for: ["code": .integer(2)]) == nil)
    #expect(strict.output(for: nil) == nil)
  }

  @Test func stepsPickTheIntervalAndSkipNonNumbers() throws {
    let value = try StyleValue("steps(population, small, 100000: medium, 1000000: large)")
    guard case .steps(let rule) = value else {
      Issue.record("not a steps rule: \(value)")
      return
    }
    func pick(_ population: JSONValue?) -> String? {
      var properties = JSONObject()
      properties["population"] = population
      return rule.output(for: properties)?.constantText
    }
    #expect(pick(.integer(99_999)) == "small")
    #expect(pick(.integer(100_000)) == "medium")
    #expect(pick(.double(999_999.5)) == "medium")
    #expect(pick(.integer(1_000_000)) == "large")
    #expect(pick(.string("2587183")) == "large")
    #expect(pick(.string(" 5000 ")) == "small")
    #expect(pick(.integer(-5)) == "small")
    #expect(pick(.string("many")) == nil)
    #expect(pick(.bool(true)) == nil)
    #expect(pick(.null) == nil)
    #expect(pick(nil) == nil)
  }

  @Test(arguments: [
    ("match(kind)", "expected ',' after the property: match(PROP, VALUE: OUT, ..., else: OUT)", 10),
    ("match(kind, city)", "expected ':' after 'city': each entry is VALUE: OUT", 16),
    ("match(kind, city: a, city: b)", "'city' is matched twice", 21),
    ("match(kind, else: a, city: b)", "'else' must be the last entry of match(...)", 19),
    ("match(kind, else: a)", "match(...) needs at least one VALUE: OUT before else", 6),
    ("match(kind, city: a", "unclosed '(': add ')' at the end", 5),
    ("match(kind, city: a) x", "unexpected text after the closing ')'", 21),
    ("match(kind, city: 'a", "unterminated 'quoted' text: add the closing '", 18),
    ("match(kind, city: 'a' b)", "expected ',' or ')'", 22),
    ("match('kind', a: b)", "a property name is bare or in double quotes (\"kind\")", 6),
    ("match(, a: b)", "expected a property name", 6),
    ("match(kind, : b)", "expected a value to match", 12),
    ("match(kind, a:", "expected an output, found the end of the value", 14),
    (
      "steps(pop, 0: small)",
      "steps(...) starts with the output below the first stop: steps(PROP, OUT0, STOP1: OUT1, ...)",
      11
    ),
    (
      "steps(pop, small)",
      "expected ',' after the output below the first stop: steps(PROP, OUT0, STOP1: OUT1, ...)", 16
    ),
    ("steps(pop, small, many: large)", "'many' is not a number: a stop is a number", 18),
    ("steps(pop, a, 10: b, 10: c)", "the stops must increase: 10 is not above 10", 21),
    ("steps(pop, a, 10: b, 5: c)", "the stops must increase: 5 is not above 10", 21),
    (
      "match(kind, a: {name:,})",
      "unclosed '{' (close the field with '}', or write '{{' for a literal brace); quote an output that holds ',', ':' or ')'",
      15
    ),
    (
      "match(kind, a: '{x:?}')", "unknown number format '?' (use ',', '.2f', ',.1f', '.0%' or 'd')",
      19
    ),
    ("{x", "unclosed '{' (close the field with '}', or write '{{' for a literal brace)", 0),
  ])
  func reportsRuleErrorsWithTheirOffset(text: String, message: String, offset: Int) {
    #expect(throws: ValueProblem(message, offset: offset)) { try StyleValue(text) }
  }

  @Test(arguments: [
    ("marker-color", "#d33", nil as String?, nil as Int?),
    ("marker-color", "#DD3322", nil, nil),
    ("marker-color", "#ggg", "'#ggg' is not a colour: use #rgb or #rrggbb", 1),
    ("marker-color", "#d3", "'#d3' is not a colour: use #rgb or #rrggbb (3 or 6 digits)", 0),
    ("marker-color", "red", "'red' is not a colour: use #rgb or #rrggbb", 0),
    ("stroke", "#12345", "'#12345' is not a colour: use #rgb or #rrggbb (3 or 6 digits)", 0),
    ("fill", "#0a0b0z", "'#0a0b0z' is not a colour: use #rgb or #rrggbb", 6),
    ("marker-size", "large", nil, nil),
    ("marker-size", "huge", "'huge' is not a marker size: use small, medium or large", 0),
    ("stroke-width", "0", nil, nil),
    ("stroke-width", "2.5", nil, nil),
    ("stroke-width", "-1", "'-1' is not a valid stroke-width: use a number 0 or more", 0),
    ("stroke-width", "2px", "'2px' is not a valid stroke-width: use a number 0 or more", 0),
    ("stroke-opacity", "1", nil, nil),
    ("stroke-opacity", "1.5", "'1.5' is not a valid stroke-opacity: use a number from 0 to 1", 0),
    ("fill-opacity", "0x1", "'0x1' is not a valid fill-opacity: use a number from 0 to 1", 0),
    ("fill-opacity", "nan", "'nan' is not a valid fill-opacity: use a number from 0 to 1", 0),
    ("priority", "high", nil, nil),
    ("priority", "urgent", "'urgent' is not a priority: use required, high or low", 0),
    ("title", "anything at all: 1, 2", nil, nil),
    ("marker-symbol", "rail", nil, nil),
  ])
  func validatesConstants(option: String, text: String, message: String?, offset: Int?) throws {
    #expect(try problem(text, for: option) == message.map { ValueProblem($0, offset: offset ?? 0) })
  }

  @Test func validatesRuleOutputsWhereTheyAre() throws {
    #expect(
      try problem("match(kind, city: #d33, town: #ggg)", for: "marker-color")
        == ValueProblem("'#ggg' is not a colour: use #rgb or #rrggbb", offset: 31))
    #expect(
      try problem("match(kind, city: '#d33', else: '#xyz')", for: "fill")
        == ValueProblem("'#xyz' is not a colour: use #rgb or #rrggbb", offset: 34))
    #expect(
      try problem("steps(population, small, 100000: big)", for: "marker-size")
        == ValueProblem("'big' is not a marker size: use small, medium or large", offset: 33))
    #expect(
      try problem("steps(area, 0.2, 10: 2)", for: "fill-opacity")
        == ValueProblem("'2' is not a valid fill-opacity: use a number from 0 to 1", offset: 21))
    // Templates are checked per feature, not before the run.
    #expect(try problem("match(kind, city: '{colour}')", for: "marker-color") == nil)
    #expect(try problem("{colour}", for: "marker-color") == nil)
  }

  @Test func numericKeysWriteJSONNumbers() throws {
    #expect(try key("stroke-width").value(of: "2") == .integer(2))
    #expect(try key("stroke-width").value(of: "2.0") == .double(2))
    #expect(try key("fill-opacity").value(of: "0.25") == .double(0.25))
    #expect(try key("marker-symbol").value(of: "1") == .string("1"))
    #expect(try key("priority").property == "geopipe:priority")
  }

  @Test func optionsFollowTheSimplestyleOrder() {
    #expect(
      StyleStage.definition.options.map(\.name) == [
        "title", "description", "marker-color", "marker-size", "marker-symbol", "stroke",
        "stroke-width", "stroke-opacity", "fill", "fill-opacity", "priority", "strict",
      ])
    #expect(StyleStage.definition.options.filter(\.acceptsTemplates).count == 11)
  }
}

@Suite struct StyleStageTests {
  /// Collects the warnings a stage reports.
  final class Warnings: Sendable {
    let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
  }

  private func run(
    _ options: [String: String], strict: Bool = false, on features: [Feature]
  ) throws -> (features: [Feature], warnings: [String]) {
    var values = OptionValues()
    for (name, text) in options { values.set(name, .string(text)) }
    values.set("strict", .flag(strict))
    let warnings = Warnings()
    let context = StageContext(
      diagnostics: { diagnostic in warnings.lines.withLock { $0.append(diagnostic.description) } },
      standardOutput: { _ in })
    let stage = try StyleStage(values, context: context)
    var out: [Feature] = []
    for feature in features { try stage.process(feature) { out.append($0) } }
    try stage.finish { out.append($0) }
    return (out, warnings.all)
  }

  private let places = [
    Feature(properties: [
      "name": .string("Paris"), "kind": .string("city"), "pop": .string("2148000"),
    ]),
    Feature(properties: [
      "name": .string("Vannes"), "kind": .string("town"), "pop": .integer(53_000),
    ]),
    Feature(properties: ["kind": .string("village"), "marker-color": .string("#000")]),
    Feature(properties: nil),
  ]

  @Test func setsKeysInTableOrderReplacingInPlace() throws {
    let (out, warnings) = try run(
      [
        "priority": "steps(pop, low, 1000000: high)",
        "marker-color": "match(kind, city: #d33, else: #999)",
        "title": "{name}", "stroke-width": "2", "fill-opacity": "0.5",
      ], on: places)
    #expect(out.count == 4)
    #expect(
      out[0].properties?.keys == [
        "name", "kind", "pop", "title", "marker-color", "stroke-width", "fill-opacity",
        "geopipe:priority",
      ])
    #expect(out[0].properties?["geopipe:priority"] == .string("high"))
    #expect(out[0].properties?["stroke-width"] == .integer(2))
    #expect(out[0].properties?["fill-opacity"] == .double(0.5))
    #expect(out[1].properties?["marker-color"] == .string("#999"))
    #expect(out[1].properties?["geopipe:priority"] == .string("low"))
    // An existing property is replaced where it stands; no pop, so no priority.
    #expect(
      out[2].properties?.keys == ["kind", "marker-color", "title", "stroke-width", "fill-opacity"])
    #expect(out[2].properties?["marker-color"] == .string("#999"))
    #expect(out[2].properties?["title"] == .string(""))
    #expect(out[3].properties?["title"] == .string(""))
    #expect(
      warnings == ["warning: style: 2 features lack a property named in a template (title: name)"])
  }

  @Test func strictFailsOnTheFirstFeatureLackingAProperty() throws {
    #expect {
      try run(["title": "{name}", "description": "{kind}"], strict: true, on: places)
    } throws: { error in
      guard let error = error as? GeoPipeError else { return false }
      return error.status == .dataError
        && error.message
          == "style: the template of title names 'name', which the feature lacks (feature 2)"
    }
  }

  @Test func invalidTemplateValuesAreLeftUnsetAndCounted() throws {
    let features = [
      Feature(properties: ["colour": .string("#123"), "w": .double(1.5)]),
      Feature(properties: ["colour": .string("blue"), "w": .string("-2")]),
      Feature(properties: ["colour": .string("#abcdef"), "w": .string("3")]),
    ]
    let (out, warnings) = try run(
      ["marker-color": "{colour}", "stroke-width": "{w}"], on: features)
    #expect(out[0].properties?["marker-color"] == .string("#123"))
    #expect(out[0].properties?["stroke-width"] == .double(1.5))
    #expect(out[1].properties?["marker-color"] == nil)
    #expect(out[1].properties?["stroke-width"] == nil)
    #expect(out[2].properties?["stroke-width"] == .integer(3))
    #expect(
      warnings == [
        "warning: style: 1 feature has a template value not valid for its key, left unset "
          + "(marker-color: 'blue' is not a colour: use #rgb or #rrggbb)"
      ])
    #expect {
      try run(["marker-color": "{colour}"], strict: true, on: features)
    } throws: { error in
      (error as? GeoPipeError)?.message
        == "style: marker-color from a template: 'blue' is not a colour: use #rgb or #rrggbb (feature 1)"
    }
  }

  @Test func rulesReadThePropertiesFromBeforeTheStage() throws {
    let feature = Feature(properties: ["title": .string("old"), "name": .string("new")])
    let (out, _) = try run(
      ["title": "{name}", "description": "match(title, old: was old, else: changed)"], on: [feature]
    )
    #expect(out[0].properties?["description"] == .string("was old"))
  }

  @Test func badValuesAreUsageErrorsWhenBuiltDirectly() throws {
    #expect {
      try run(["fill": "#12"], on: [])
    } throws: { error in
      guard let error = error as? GeoPipeError else { return false }
      return error.status == .usage
        && error.message
          == "invalid value '#12' for --fill: '#12' is not a colour: use #rgb or #rrggbb (3 or 6 digits)"
    }
  }
}
