import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// `select`: keeps, drops, renames and sets properties.
final class SelectStage: Stage {
  static let definition = StageDefinition(
    name: "select",
    abstract: "Keep, drop, rename or set properties.",
    discussion: """
      Changes each feature's properties, in this order:
        1. --set and --compute values are worked out from the feature's properties as
           they came in, so a label can be built from properties that are then dropped;
        2. --keep keeps only the properties it names, in its order (a name the feature
           lacks is skipped), and --drop removes properties;
        3. --rename renames properties, all at once (--rename a=b --rename b=a swaps two);
           a property renamed onto an existing name replaces it;
        4. the --set and --compute results are stored, --set first, each in the order
           given: a property that exists keeps its place, a new one goes at the end.

      --set takes a template: {name} is a property's value, {population:,} groups
      thousands, {area:.1f} fixes the decimals, {share:.0%} shows a percentage, {{ and }}
      are braces, and a name with ':' or braces goes in double quotes ({"geopipe:id"}).
      The result is always text; a property that is missing or null shows as nothing, and a
      warning at the end counts the features where that happened.

      --compute takes an expression, the language of --where in filter (see filter --help
      and docs/pipelines.md, "Expressions"): arithmetic + - * /, a leading -, parentheses,
      || to join text, case when ... then ... else ... end, and functions such as
      lower(name), round(area, 1), coalesce(name, 'unknown') and area_m2(); a name with
      '-' goes in double quotes ("stroke-width" * 2), and a - b subtracts. A string that
      holds a number counts as that number, so "population / 1000" works on CSV input.
      Integers stay integers while the result is exact (+ - * without overflow); / always
      gives a fraction. A missing or null property, a word or a boolean in arithmetic, or a
      division by zero gives null; + does not join text (|| does). A comparison, and, or,
      not give true or false, or null when unknown (a comparison with null).

      --keep, --drop and --rename take property names; features without properties
      ("properties": null) get them only from --set and --compute.

      A property that an option names and no feature has (a misspelt name) is a warning at
      the end, with the closest name the features had; with --strict it is an error
      (exit 65).
      """,
    examples: [
      "geopipe read places.csv | geopipe select --keep name,population,country",
      "geopipe read places.csv | geopipe select --set 'label={name}, {admin1}' --drop admin1",
      "geopipe read places.csv | geopipe select --compute 'thousands=population / 1000' "
        + "--compute 'big=population > 1000000'",
      "geopipe read world.geojson | geopipe select --drop marker-color --rename kind=type",
      "geopipe read places.csv | geopipe select --compute \"label=upper(name) || ' (' || country || ')'\"",
      "geopipe read world.geojson | geopipe select --compute 'km2=round(area_m2() / 1e6, 1)' "
        + "--compute \"size=case when area_m2() > 1e12 then 'large' else 'small' end\"",
    ],
    options: [
      OptionSpec(
        "keep", .list,
        help: "Keep only these properties, in this order; names the feature lacks are skipped."),
      OptionSpec("drop", .list, help: "Remove these properties."),
      OptionSpec(
        "rename", .pairs, validate: validateNewName,
        help: "Rename a property: OLD=NEW (repeatable; applied after --keep and --drop)."),
      OptionSpec(
        "set", .pairs, templates: true, validate: validateTemplate,
        help: "Set a property to text from a template: KEY='{name}, {admin1}' (repeatable)."),
      OptionSpec(
        "compute", .pairs, expression: true, validate: validateExpression,
        help: "Set a property to an expression's value: KEY='population / 1000' (repeatable)."),
      PropertyUsage.strictOption,
    ],
    role: .transform,
    make: { values, context in .stage(try SelectStage(values, context: context)) })

  /// A property to store after the others are kept, dropped and renamed.
  private enum Assignment {
    case template(String, Template)
    case expression(String, Expression)

    var key: String {
      switch self {
      case .template(let key, _), .expression(let key, _): key
      }
    }
  }

  private let keep: [String]?
  private let drop: Set<String>
  private let renames: [String: String]
  private let assignments: [Assignment]
  private let context: StageContext?
  /// Per assignment, how many features lacked a property its template names.
  private var missingCounts: [Int]
  /// Per assignment, the first property found missing, to name in the warning.
  private var firstMissing: [String?]
  private var usage: PropertyUsage

  init(_ values: OptionValues, context: StageContext? = nil) throws {
    var seen = Set<String>()
    keep = values.list("keep")?.filter { seen.insert($0).inserted }
    drop = Set(values.list("drop") ?? [])
    var renames: [String: String] = [:]
    var targets: [String: String] = [:]
    for pair in values.pairs("rename") {
      guard renames[pair.key] == nil else {
        throw GeoPipeError.usage("--rename: '\(pair.key)' is renamed twice")
      }
      if let other = targets[pair.value] {
        throw GeoPipeError.usage(
          "--rename: both '\(other)' and '\(pair.key)' are renamed to '\(pair.value)'")
      }
      renames[pair.key] = pair.value
      targets[pair.value] = pair.key
    }
    self.renames = renames
    var assignments: [Assignment] = []
    for pair in values.pairs("set") {
      do {
        assignments.append(.template(pair.key, try Template(pair.value)))
      } catch {
        throw GeoPipeError.usage("invalid value '\(pair.value)' for --set: \(error.message)")
      }
    }
    for pair in values.pairs("compute") {
      do {
        assignments.append(.expression(pair.key, try Expression.parseValue(pair.value)))
      } catch {
        throw GeoPipeError.usage("invalid value '\(pair.value)' for --compute: \(error)")
      }
    }
    self.assignments = assignments
    missingCounts = Array(repeating: 0, count: assignments.count)
    firstMissing = Array(repeating: nil, count: assignments.count)
    self.context = context
    var named = (keep ?? []) + drop.sorted() + values.pairs("rename").map(\.key)
    for assignment in assignments {
      switch assignment {
      case .template(_, let template): named += template.propertyNames
      case .expression(_, let expression): named += expression.propertyNames
      }
    }
    usage = PropertyUsage(stage: "select", names: named, strict: values.flag("strict"))
    if keep == nil && drop.isEmpty && renames.isEmpty && assignments.isEmpty {
      throw GeoPipeError.usage(
        "select needs at least one of --keep, --drop, --rename, --set or --compute")
    }
  }

  func process(_ feature: Feature, emit: Emit) throws {
    usage.observe(feature.properties)
    var feature = feature
    var results: [JSONValue] = []
    results.reserveCapacity(assignments.count)
    for (k, assignment) in assignments.enumerated() {
      switch assignment {
      case .template(_, let template):
        var absent = 0
        results.append(.string(template.render(feature.properties, missing: &absent)))
        if absent > 0 {
          missingCounts[k] += 1
          if firstMissing[k] == nil {
            firstMissing[k] = template.propertyNames.first {
              feature.properties?[$0]?.isNull ?? true
            }
          }
        }
      case .expression(_, let expression):
        results.append(expression.evaluate(feature))
      }
    }
    if let properties = feature.properties {
      feature.properties = reshape(properties)
    }
    if !assignments.isEmpty {
      var properties = feature.properties ?? JSONObject()
      for (assignment, value) in zip(assignments, results) {
        properties[assignment.key] = value
      }
      feature.properties = properties
    }
    try emit(feature)
  }

  func finish(emit: Emit) throws {
    try usage.finish(report: { context?.diagnostics($0) })
    guard let context else { return }
    for (k, assignment) in assignments.enumerated() {
      // Properties on no feature have had their own warning; this one counts the others.
      guard case .template(let key, let template) = assignment, missingCounts[k] > 0,
        let name = firstMissing[k], !template.propertyNames.allSatisfy(usage.isUnseen)
      else { continue }
      let features = missingCounts[k] == 1 ? "1 feature" : "\(missingCounts[k]) features"
      let others = Set(template.propertyNames).count > 1 ? " (or another that it names)" : ""
      context.diagnostics(
        ReadDiagnostic(
          severity: .warning,
          message: "select --set \(key): the template's property '\(name)'\(others) is missing "
            + "or null in \(features); it was left empty"))
    }
  }

  /// Applies --keep, --drop and --rename.
  private func reshape(_ properties: JSONObject) -> JSONObject {
    var members: [JSONMember]
    if let keep {
      members = keep.compactMap { name in properties[name].map { JSONMember(name, $0) } }
    } else {
      members = properties.members
    }
    if !drop.isEmpty { members.removeAll { drop.contains($0.key) } }
    if !renames.isEmpty {
      let renamed = Set(members.compactMap { renames[$0.key] })
      // A renamed property replaces one already called by its new name.
      members.removeAll { renames[$0.key] == nil && renamed.contains($0.key) }
      for k in members.indices {
        if let name = renames[members[k].key] { members[k].key = name }
      }
    }
    return JSONObject(members: members)
  }

  private static func validateNewName(_ name: String) -> ValueProblem? {
    name.isEmpty ? ValueProblem("the new name is empty; write OLD=NEW") : nil
  }

  private static func validateTemplate(_ text: String) -> ValueProblem? {
    do {
      _ = try Template(text)
      return nil
    } catch {
      return ValueProblem(error.message, offset: error.offset)
    }
  }

  private static func validateExpression(_ text: String) -> ValueProblem? {
    do {
      _ = try Expression.parseValue(text)
      return nil
    } catch {
      return ValueProblem(error.message, offset: error.offset)
    }
  }
}
