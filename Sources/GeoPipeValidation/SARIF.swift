import GeoPipeCore
import GeoPipeIO

/// SARIF 2.1.0 (OASIS): one run of the `geopipe` tool with the rule table, and a result per
/// finding.
enum SARIF {
  static func header() -> String {
    var rules: [JSONValue] = []
    for rule in Rule.all {
      var object = JSONObject()
      object.appendUnchecked("id", .string(rule.code))
      object.appendUnchecked("name", .string(rule.name))
      object.appendUnchecked("shortDescription", .object(["text": .string(rule.summary)]))
      object.appendUnchecked(
        "defaultConfiguration", .object(["level": .string(rule.severity.rawValue)]))
      rules.append(.object(object))
    }
    var driver = JSONObject()
    driver.appendUnchecked("name", .string("geopipe"))
    driver.appendUnchecked("rules", .array(rules))
    var writer = JSONTextWriter()
    writer.writeObject(driver)
    return "{\"version\":\"2.1.0\",\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\","
      + "\"runs\":[{\"tool\":{\"driver\":" + String(decoding: writer.bytes, as: UTF8.self)
      + "},\"results\":["
  }

  static func result(_ finding: Finding) -> String {
    var region = JSONObject()
    region.appendUnchecked("startLine", .integer(Int64(max(1, finding.location.line))))
    region.appendUnchecked("startColumn", .integer(Int64(max(1, finding.location.column))))
    var physical = JSONObject()
    physical.appendUnchecked("artifactLocation", .object(["uri": .string(finding.location.file)]))
    physical.appendUnchecked("region", .object(region))
    var object = JSONObject()
    object.appendUnchecked("ruleId", .string(finding.rule.code))
    object.appendUnchecked(
      "ruleIndex", .integer(Int64(Rule.all.firstIndex(of: finding.rule) ?? 0)))
    object.appendUnchecked("level", .string(finding.severity.rawValue))
    object.appendUnchecked("message", .object(["text": .string(finding.message)]))
    object.appendUnchecked(
      "locations", .array([.object(["physicalLocation": .object(physical)])]))
    if let feature = finding.feature {
      object.appendUnchecked("properties", .object(["feature": .integer(Int64(feature))]))
    }
    var writer = JSONTextWriter()
    writer.writeObject(object)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  static func footer(hasResults: Bool) -> String {
    (hasResults ? "\n" : "") + "]}]}\n"
  }
}
