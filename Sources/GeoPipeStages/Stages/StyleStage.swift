import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// `style`: sets simplestyle-spec properties, as MapKit annotations have a title, a colour and a
/// display priority.
final class StyleStage: Stage {
  static let definition = StageDefinition(
    name: "style",
    abstract: "Set simplestyle-spec properties from constants, templates or match/steps rules.",
    discussion: """
      Writes the simplestyle-spec 1.1.0 keys given as options, in the order listed below,
      replacing a property in place or appending it; --priority writes geopipe:priority.
      Each value is one of:
        a constant     --marker-color '#d33'   --stroke-width 2   --marker-size large
        a template     --title '{name}, {admin1}'   --description 'pop. {population:,}'
        a match rule   --marker-color 'match(kind, city: #d33, town: #36c, else: #999)'
        a steps rule   --marker-size 'steps(population, small, 100000: medium, 1e6: large)'
        a case         --marker-color "case when population > 1e6 and capital then '#d33'
                                       when name like 'San%' then '#36c' else '#999' end"
      Templates name properties in braces, bare or double-quoted ({"geopipe:rank"}), with
      an optional number format: {x:,} groups thousands, {x:.1f} fixes the decimals,
      {x:.0%} shows a percentage; {{ and }} are literal braces.
      match(PROP, VALUE: OUT, ..., else: OUT) compares the property's text with each VALUE
      (1 matches the number 1 and the string "1"); a missing or null property, or a value
      without an entry, gets else, or nothing without else.
      steps(PROP, OUT0, STOP1: OUT1, STOP2: OUT2, ...) gives OUT0 below STOP1 and OUTk from
      STOPk up; stops increase. Strings holding numbers count as numbers; a missing or
      non-numeric property gets nothing.
      In rules, bare words end at ',', ':' or ')'; quote other text in 'single' or "double"
      quotes (double the quote inside). PROP is bare or double-quoted; each OUT is a constant
      or a template. A value starting with match( or steps( is a rule.
      A value starting with the word case is an expression in the language of filter
      --where (see docs/pipelines.md, "Expressions"): its value, as text, is set; null (no
      branch holds and no else) sets nothing. Its constant outputs are checked before the
      run; a computed one not valid for its key is not set and counted in the warning. Rules and templates
      read the properties as they were before this stage. Pipeline files take the same text
      (in YAML, quote it: '#' after a space starts a comment).
      Colours are #rgb or #rrggbb; marker-size is small, medium or large; opacities are
      numbers from 0 to 1 and stroke-width a number, 0 or more, both written as JSON
      numbers; priority is required, high or low. Constants, rule outputs included, are
      checked before the run (exit 64). A template whose property a feature lacks renders
      empty; a value from a template that is not valid for its key is not set. Both are
      counted in a warning at the end; with --strict the first such feature is an error
      (exit 65). A property that a template or rule names and no feature has (a misspelt
      name) gets a warning of its own, with the closest name the features had; with --strict
      it is an error too.
      """,
    examples: [
      "geopipe read places.csv | geopipe style --title '{name}' --description 'Population {population:,}'",
      "geopipe read places.csv | geopipe style --marker-color 'match(country, FR: #00f, BE: #fc0, else: #999)'",
      "geopipe read places.csv | geopipe style --marker-size 'steps(population, small, 1000000: medium, 5000000: large)'",
      "geopipe read parks.geojson | geopipe style --fill '#3a3' --fill-opacity 0.4 --stroke '#060' --stroke-width 1.5",
      "geopipe read places.csv | geopipe style --priority 'steps(population, low, 2000000: high)' --strict",
      "geopipe read places.csv | geopipe style --marker-color \"case when lower(country) in ('fr', 'be') then '#00f' else '#999' end\"",
    ],
    options: StyleKey.all.map { key in
      OptionSpec(
        key.option, .string, templates: true,
        validate: { text in
          do throws(ValueProblem) {
            _ = try StyleValue(text, check: key.problem(with:))
            return nil
          } catch {
            return error
          }
        }, help: key.help)
    } + [
      OptionSpec(
        "strict", .flag,
        help: "Fail on a feature that lacks a property a template names, or whose template "
          + "value is not valid for its key, or when a property a rule names is on no feature "
          + "(exit 65).")
    ],
    role: .transform,
    make: { values, context in .stage(try StyleStage(values, context: context)) })

  private struct Setting {
    var key: StyleKey
    var value: StyleValue
  }

  private let settings: [Setting]
  private let strict: Bool
  private let report: @Sendable (ReadDiagnostic) -> Void
  /// The index of the next feature, counting from 0.
  private var index = 0
  /// Features with a template field whose property was missing, and the first few
  /// `key: property` pairs.
  private var lacking = 0
  private var lackingExamples: [(option: String, property: String)] = []
  /// Features with a template value not valid for its key, and the first problem.
  private var invalid = 0
  private var invalidExample: String?
  private var usage: PropertyUsage

  init(_ values: OptionValues, context: StageContext) throws {
    var settings: [Setting] = []
    for key in StyleKey.all {
      guard let text = values.string(key.option) else { continue }
      do {
        settings.append(Setting(key: key, value: try StyleValue(text, check: key.problem(with:))))
      } catch {
        throw GeoPipeError.usage("invalid value '\(text)' for --\(key.option): \(error.message)")
      }
    }
    self.settings = settings
    strict = values.flag("strict")
    report = context.diagnostics
    usage = PropertyUsage(
      stage: "style", names: settings.flatMap(\.value.propertyNames), strict: strict)
  }

  func process(_ feature: Feature, emit: Emit) throws {
    // Rules and templates read the properties as they came in; `styled` is copied once, on
    // the first key set.
    let properties = feature.properties
    usage.observe(properties)
    var styled = properties ?? JSONObject()
    var changed = false
    var lacks = false
    var isInvalid = false
    for setting in settings {
      let key = setting.key
      let template: Template
      switch setting.value {
      case .constant(let text):
        styled[key.property] = key.value(of: text)
        changed = true
        continue
      case .template(let given): template = given
      case .match(let rule):
        guard let output = rule.output(for: properties) else { continue }
        template = output
      case .steps(let rule):
        guard let output = rule.output(for: properties) else { continue }
        template = output
      case .expression(let expression):
        guard let text = expression.evaluate(feature).expressionText else { continue }
        if let problem = key.problem(with: text) {
          if strict { throw failure("\(key.option) from a case expression: \(problem.message)") }
          isInvalid = true
          if invalidExample == nil { invalidExample = "\(key.option): \(problem.message)" }
          continue
        }
        styled[key.property] = key.value(of: text)
        changed = true
        continue
      }
      var missing = 0
      let text = template.render(properties, missing: &missing)
      if missing > 0, let name = template.firstMissingProperty(in: properties) {
        if strict {
          throw failure("the template of \(key.option) names '\(name)', which the feature lacks")
        }
        lacks = true
        if lackingExamples.count < 3
          && !lackingExamples.contains(where: { $0 == (key.option, name) })
        {
          lackingExamples.append((key.option, name))
        }
      }
      if !template.isConstant, let problem = key.problem(with: text) {
        if strict { throw failure("\(key.option) from a template: \(problem.message)") }
        isInvalid = true
        if invalidExample == nil { invalidExample = "\(key.option): \(problem.message)" }
        continue
      }
      styled[key.property] = key.value(of: text)
      changed = true
    }
    if lacks { lacking += 1 }
    if isInvalid { invalid += 1 }
    index += 1
    guard changed else { return try emit(feature) }
    var feature = feature
    feature.properties = styled
    try emit(feature)
  }

  func finish(emit: Emit) throws {
    try usage.finish(report: report)
    // Properties on no feature have had their own warning; this one counts the others.
    let lackingExamples = lackingExamples.filter { !usage.isUnseen($0.property) }.map {
      "\($0.option): \($0.property)"
    }
    if lacking > 0 && !lackingExamples.isEmpty {
      warn(
        "\(Self.features(lacking, "lacks", "lack")) a property named in a template "
          + "(\(lackingExamples.joined(separator: "; ")))")
    }
    if invalid > 0, let invalidExample {
      warn(
        "\(Self.features(invalid, "has", "have")) a template value not valid for its key, "
          + "left unset (\(invalidExample))")
    }
  }

  private func failure(_ message: String) -> GeoPipeError {
    GeoPipeError("style: \(message) (feature \(index))", status: .dataError)
  }

  private func warn(_ message: String) {
    report(ReadDiagnostic(severity: .warning, message: "style: \(message)"))
  }

  /// `1 feature lacks` or `12 features lack`.
  private static func features(_ n: Int, _ one: String, _ many: String) -> String {
    n == 1 ? "1 feature \(one)" : "\(n) features \(many)"
  }
}

extension StyleValue {
  /// The properties the value reads: a template's fields, a rule's property and its outputs'
  /// fields.
  fileprivate var propertyNames: [String] {
    switch self {
    case .constant: []
    case .template(let template): template.propertyNames
    case .match(let rule):
      [rule.property] + rule.cases.flatMap(\.output.propertyNames)
        + (rule.otherwise?.propertyNames ?? [])
    case .steps(let rule):
      [rule.property] + rule.base.propertyNames + rule.stops.flatMap(\.output.propertyNames)
    case .expression(let expression): expression.propertyNames
    }
  }
}
