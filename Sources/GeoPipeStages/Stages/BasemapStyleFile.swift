import GeoPipeCore
import GeoPipeRender
import GeoPipeStageKit

/// A vector basemap style read from a YAML (or JSON) file (`render --basemap-style`).
///
/// For example:
///
/// ```yaml
/// fallback: built-in        # features no rule takes: built-in (the default) or none
/// layers:
///   - layer: water          # a layer name, a list of names, or "*"
///     fill: "#aad3df"
///   - layer: [transportation, roads]
///     where: "class in ('motorway', 'trunk', 'primary')"
///     stroke: "#f0a35e"
///     stroke-width: "match(class, motorway: 2.5, else: 1.5)"
///   - layer: place
///     label: "{name}"
///     label-size: "steps(rank, 13, 4: 11, 8: 9)"
/// ```
///
/// The first rule whose layer and `where` (the `--where` language) hold draws the feature;
/// values are those of the `style` stage (constants, `{property}` templates, `match`, `steps`
/// and `case` rules), read from each feature's properties. `role` (area, line, boundary or
/// label) says what `hybrid` keeps: boundaries and labels; by default a rule with a label is a
/// label, else polygons are areas and lines lines. A rule with none of fill, stroke and label
/// hides what it takes.
struct BasemapStyleFile {
  struct Rule: Sendable {
    var layers: Set<String>
    var condition: Expression?
    var role: BasemapRole?
    var values: [String: StyleValue]
  }

  static let keys: [String: StyleKey.Kind] = [
    "fill": .colour, "stroke": .colour, "stroke-width": .number(minimum: 0, maximum: nil),
    "fill-opacity": .number(minimum: 0, maximum: 1),
    "stroke-opacity": .number(minimum: 0, maximum: 1), "label": .text,
    "label-size": .number(minimum: 1, maximum: 100),
  ]

  let rules: [Rule]
  let fallback: Bool

  /// Reads and checks the file; its mistakes are errors at their line and column (exit 78).
  init(path: String) throws {
    let root = try SettingsFile.read(path: path)
    guard case .mapping(let entries) = root.content else {
      throw root.error("a basemap style is a mapping with 'layers' (and 'fallback')")
    }
    var rules: [Rule] = []
    var fallback = true
    var sawLayers = false
    for (key, value) in entries {
      switch key.text {
      case "fallback":
        guard let text = value.text, ["built-in", "none"].contains(text) else {
          throw value.error("fallback is built-in or none")
        }
        fallback = text == "built-in"
      case "layers":
        guard case .sequence(let items) = value.content else {
          throw value.error("layers is a list of rules, each a mapping with 'layer'")
        }
        rules = try items.map(Self.rule)
        sawLayers = true
      default:
        throw key.error("unknown key '\(key.text ?? "")' (expected layers or fallback)")
      }
    }
    guard sawLayers else { throw root.error("the style has no 'layers'") }
    self.rules = rules
    self.fallback = fallback
  }

  private static func rule(_ node: SettingsNode) throws -> Rule {
    guard case .mapping(let entries) = node.content else {
      throw node.error("a rule is a mapping with 'layer' and what to draw")
    }
    var rule = Rule(layers: [], condition: nil, role: nil, values: [:])
    for (key, value) in entries {
      let name = key.text ?? ""
      switch name {
      case "layer":
        switch value.content {
        case .scalar(let text): rule.layers = [text]
        case .sequence(let items):
          rule.layers = Set(
            try items.map { item in
              guard let text = item.text else { throw item.error("a layer name") }
              return text
            })
        case .mapping: throw value.error("layer is a name or a list of names")
        }
      case "where":
        guard let text = value.text else { throw value.error("where is an expression") }
        do {
          rule.condition = try Expression.parseCondition(text)
        } catch {
          throw value.error("invalid where: \(error.message)")
        }
      case "role":
        let roles: [String: BasemapRole] = [
          "area": .area, "line": .line, "boundary": .boundary, "label": .label,
        ]
        guard let text = value.text, let role = roles[text] else {
          throw value.error("role is area, line, boundary or label")
        }
        rule.role = role
      default:
        guard let kind = keys[name] else {
          throw key.error(
            "unknown key '\(name)' (expected layer, where, role, "
              + keys.keys.sorted().joined(separator: ", ") + ")")
        }
        guard let text = value.text else { throw value.error("\(name) is a value or a rule") }
        let check = StyleKey(option: name, kind: kind, help: "")
        do {
          rule.values[name] = try StyleValue(text, check: check.problem(with:))
        } catch {
          throw value.error("invalid \(name) '\(text)': \(error.message)")
        }
      }
    }
    guard !rule.layers.isEmpty else { throw node.error("the rule has no 'layer'") }
    return rule
  }

  /// The style: the first rule that takes a feature, else the built-in style or nothing.
  var style: BasemapStyle {
    let rules = rules
    let fallback = fallback
    return { layer, feature in
      for rule in rules
      where rule.layers.contains(layer) || rule.layers.contains("*") {
        if let condition = rule.condition, !condition.matches(feature) { continue }
        return Self.paint(rule, feature)
      }
      return fallback ? BuiltInBasemapStyle.style(layer, feature) : nil
    }
  }

  private static func paint(_ rule: Rule, _ feature: Feature) -> (
    role: BasemapRole, paint: BasemapPaint
  )? {
    func text(_ key: String) -> String? {
      guard let value = rule.values[key] else { return nil }
      var missing = 0
      switch value {
      case .constant(let text): return text
      case .template(let template): return template.render(feature.properties, missing: &missing)
      case .match(let match):
        return match.output(for: feature.properties)?.render(feature.properties, missing: &missing)
      case .steps(let steps):
        return steps.output(for: feature.properties)?.render(feature.properties, missing: &missing)
      case .expression(let expression): return expression.evaluate(feature).expressionText
      }
    }
    func number(_ key: String) -> Double? { text(key).flatMap { Double($0) } }
    let label = text("label").flatMap { $0.isEmpty ? nil : $0 }
    let paint = BasemapPaint(
      fill: text("fill"), fillOpacity: number("fill-opacity") ?? 1, stroke: text("stroke"),
      strokeWidth: number("stroke-width") ?? 1, strokeOpacity: number("stroke-opacity") ?? 1,
      label: label, labelSize: number("label-size") ?? 11)
    guard paint.fill != nil || paint.stroke != nil || label != nil else { return nil }
    let role: BasemapRole
    if let given = rule.role {
      role = given
    } else if label != nil {
      role = .label
    } else {
      switch feature.geometry {
      case .lineString?, .multiLineString?: role = .line
      default: role = .area
      }
    }
    return (role: role, paint: paint)
  }
}
