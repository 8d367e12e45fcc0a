import GeoPipeCore
import GeoPipeIO
import Testing

@testable import GeoPipeValidation

@Suite struct SchemaTests {
  private func schema(_ json: String) throws -> PropertySchema {
    try PropertySchema(JSONText.parse(Array(json.utf8), name: "s.json"), file: "s.json")
  }

  private let places = """
    {"type": "object", "required": ["name", "kind"],
     "properties": {
       "name": {"type": "string", "pattern": "^[A-Z]"},
       "kind": {"enum": ["city", "town"]},
       "population": {"type": "integer", "minimum": 0, "maximum": 50000000},
       "code": {"type": ["string", "null"], "x-unique": true}
     }}
    """

  @Test func acceptsPropertiesThatFollowTheRules() throws {
    let s = try schema(places)
    #expect(
      s.problems(in: [
        "name": .string("Oslo"), "kind": .string("city"), "population": .double(709000.0),
      ]).isEmpty)
    #expect(s.uniqueKeys == ["code"])
  }

  @Test func reportsEachBrokenRule() throws {
    let s = try schema(places)
    #expect(
      s.problems(in: ["name": .string("oslo"), "population": .integer(-1), "code": .integer(3)])
        == [
          #"required property "kind" is missing"#,
          #"property "name" is "oslo", which does not match "^[A-Z]""#,
          #"property "population" is -1, below the minimum 0"#,
          #"property "code" is an integer, expected string or null"#,
        ])
    #expect(
      s.problems(in: [
        "name": .string("Oslo"), "kind": .string("village"), "population": .double(1.5),
      ]) == [
        #"property "kind" is "village", not one of "city", "town""#,
        #"property "population" is a number, expected integer"#,
      ])
    #expect(
      s.problems(in: nil) == [
        #"required property "name" is missing"#, #"required property "kind" is missing"#,
      ])
  }

  @Test func refusesKeywordsItDoesNotSupport() throws {
    #expect(throws: GeoPipeError.self) { try schema(#"{"properties": {"a": {"minLength": 2}}}"#) }
    #expect(throws: GeoPipeError.self) { try schema(#"{"type": "text"}"#) }
    #expect(throws: GeoPipeError.self) { try schema(#"{"pattern": "("}"#) }
  }

  @Test func uniqueValuesAreCheckedAcrossTheFile() throws {
    let text = """
      {"type":"Feature","geometry":null,"properties":{"name":"A","kind":"city","code":"x"}}
      {"type":"Feature","geometry":null,"properties":{"name":"B","kind":"city","code":"y"}}
      {"type":"Feature","geometry":null,"properties":{"name":"C","kind":"town","code":"x"}}
      """
    let s = try schema(places)
    let (found, _) = try findings(in: text, named: "u.geojsonl") { $0.schema = s }
    #expect(found.map(\.rule.code) == ["GP030"])
    #expect(
      found.first?.message
        == #"property "code" is "x", already used by feature 0 (line 1); it must be unique (x-unique)"#
    )
  }
}
