import GeoPipeStageKit
import GeoPipeStages

/// Turns a parsed pipeline file into a plan, collecting every problem instead of stopping at
/// the first.
struct PipelineChecker {
  private(set) var problems: [DocumentProblem] = []
  private(set) var warnings: [DocumentProblem] = []
  private var variables: Variables
  private let overrides: [String: String]
  /// The names under `vars:`, in file order.
  private var declaredVariables: [String] = []
  /// The names the file refers to as `${name}`.
  private var usedVariables = Set<String>()
  /// `strict: true` at the top level: every stage with a `strict` option gets it.
  private var strict = false

  /// Keys a pipeline file may have at its top level.
  static let topLevelKeys = ["version", "vars", "stages", "name", "description", "strict"]

  init(variables: Variables, overrides: [String: String]) {
    self.variables = variables
    self.overrides = overrides
  }

  /// Checks the document; the plan is nil when there are problems.
  mutating func check(_ root: DocumentNode?) -> PipelinePlan? {
    guard let root else {
      error("the file is empty; a pipeline file needs 'version: 1' and 'stages:'", at: start)
      return nil
    }
    guard let entries = root.entries else {
      error(
        "a pipeline file is a mapping with 'version', 'vars' and 'stages', not "
          + root.kindDescription, at: root.position)
      return nil
    }
    var stagesNode: DocumentNode?
    for entry in entries {
      switch entry.name {
      case "version":
        if entry.value.scalarText != "1" {
          error(
            "unsupported version '\(entry.value.scalarText ?? entry.value.kindDescription)'; "
              + "this geopipe reads version 1", at: entry.value.position)
        }
      case "vars": readVariables(entry.value)
      case "strict":
        // The same words as a stage's flag: true, yes, 1, on and false, no, 0, off.
        if let text = entry.value.scalarText,
          case .flag(let on)? = try? OptionSpec("strict", .flag, help: "").value(from: text)
        {
          strict = on
        } else {
          let given = entry.value.scalarText.map { "'\($0)'" } ?? entry.value.kindDescription
          error("'strict' is true or false, not \(given)", at: entry.value.position)
        }
      case "stages": stagesNode = entry.value
      case "name", "description":
        if entry.value.scalarText == nil {
          error(
            "'\(entry.name)' is a text, not \(entry.value.kindDescription)",
            at: entry.value.position)
        }
      default:
        error(
          "unknown key '\(entry.name)'\(hint(entry.name, Self.topLevelKeys)); a pipeline file has "
            + "version, vars and stages", at: entry.key.position)
      }
    }
    for (name, value) in overrides { variables.values[name] = value }
    guard let stagesNode else {
      error("missing 'stages:', the list of stages", at: root.position)
      return nil
    }
    guard case .sequence(let items) = stagesNode.content else {
      error(
        "'stages' is a list of stages ('- read: ...'), not \(stagesNode.kindDescription)",
        at: stagesNode.position)
      return nil
    }
    if items.isEmpty { error("'stages' is empty", at: stagesNode.position) }
    return plan(items)
  }

  private var start: TextPosition { TextPosition(line: 1, column: 1) }

  /// The `--var` names the file neither declares under `vars:` nor refers to, each with the
  /// closest name it has: setting them would change nothing.
  func unknownOverrides() -> [(name: String, suggestion: String?)] {
    let known = knownVariables
    let names = Set(known)
    return overrides.keys.sorted().filter { !names.contains($0) }.map {
      ($0, Suggestions.closest(to: $0, among: known))
    }
  }

  /// The variables a file has: those it declares, then others it refers to.
  var knownVariables: [String] {
    declaredVariables + usedVariables.subtracting(declaredVariables).sorted()
  }

  private mutating func error(_ message: String, at position: TextPosition) {
    problems.append(DocumentProblem(message, at: position))
  }

  private func hint(_ word: String, _ candidates: [String]) -> String {
    Suggestions.closest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
  }

  // MARK: Variables

  private mutating func readVariables(_ node: DocumentNode) {
    if node.isNull { return }
    guard let entries = node.entries else {
      error(
        "'vars' is a mapping of names to values, not \(node.kindDescription)", at: node.position)
      return
    }
    for entry in entries {
      let name = entry.name
      guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
      else {
        error(
          "invalid variable name '\(name)' (use letters, digits, '_' and '-')",
          at: entry.key.position)
        continue
      }
      declaredVariables.append(name)
      if overrides[name] != nil {
        if let text = entry.value.scalarText {
          usedVariables.formUnion(variables.substitute(text).names)
        }
        continue
      }
      guard let text = entry.value.scalarText else {
        error(
          "variable '\(name)' must be a single value, not \(entry.value.kindDescription)",
          at: entry.value.position)
        continue
      }
      variables.values[name] = substitute(text, in: entry.value)
    }
  }

  /// Substitutes variables into a scalar's text, reporting problems at their place.
  private mutating func substitute(_ text: String, in node: DocumentNode) -> String {
    let result = variables.substitute(text)
    usedVariables.formUnion(result.names)
    for problem in result.problems {
      error(problem.message, at: place(offset: problem.offset, in: node, text: text))
    }
    return result.text
  }

  /// Where character `offset` of a scalar's text is in the file: exact for a scalar on one
  /// line, else the scalar's start.
  private func place(offset: Int, in node: DocumentNode, text: String) -> TextPosition {
    guard !text.prefix(offset).contains("\n"), !node.isBlockScalar else { return node.position }
    return node.textPosition.advanced(by: offset)
  }

  // MARK: Stages

  private struct Item {
    var id: String?
    var definition: StageDefinition?
    var values = OptionValues()
    var inputNames: [DocumentNode]?
    var inputEntry: DocumentEntry?
    var position: TextPosition
    /// Where each option given in the file has its value.
    var optionPositions: [String: TextPosition] = [:]
  }

  private mutating func plan(_ nodes: [DocumentNode]) -> PipelinePlan? {
    let stageNames = StageRegistry.all.map(\.name)
    var items: [Item] = []
    // The item each id first names, so that finding an input is a look-up, not a scan.
    var idIndices: [String: Int] = [:]
    for node in nodes {
      var item = Item(position: node.position)
      if let name = node.scalarText, let definition = StageRegistry.definition(named: name) {
        // `- info` is a stage without options.
        item.definition = definition
        (item.values, item.optionPositions) = options(
          of: definition,
          in: DocumentEntry(
            key: node, value: DocumentNode(.scalar("", quoted: false), at: node.position)))
        items.append(item)
        continue
      }
      guard let entries = node.entries else {
        error(
          "a stage is a mapping such as '- filter: {where: ...}', not \(node.kindDescription)",
          at: node.position)
        items.append(item)
        continue
      }
      var stageEntry: DocumentEntry?
      for entry in entries {
        switch entry.name {
        case "id":
          guard let text = entry.value.scalarText, !text.isEmpty,
            text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
          else {
            error("an id is a name of letters, digits, '_' and '-'", at: entry.value.position)
            continue
          }
          if let other = idIndices[text] {
            error(
              "duplicate id '\(text)' (first at \(idPosition(nodes[other]) ?? items[other].position))",
              at: entry.value.position)
          }
          item.id = text
          if idIndices[text] == nil { idIndices[text] = items.count }
        case "input":
          item.inputEntry = entry
          switch entry.value.content {
          case .scalar: item.inputNames = [entry.value]
          case .sequence(let list): item.inputNames = list
          case .mapping:
            error(
              "'input' names a stage id or a list of ids, not a mapping", at: entry.value.position)
          }
        case let name where stageNames.contains(name):
          if let first = stageEntry {
            if first.name != name {
              error(
                "a stage item holds one stage, and '\(first.name)' is already given at "
                  + "\(first.key.position); start another item with '-'", at: entry.key.position)
            }
            continue
          }
          stageEntry = entry
        case "convert":
          error(
            "'convert' is a command-line shortcut; in a pipeline file use a read stage and a "
              + "write stage", at: entry.key.position)
        default:
          error(
            unknownKeyMessage(entry.name, stageNames: stageNames, siblings: entries),
            at: entry.key.position)
        }
      }
      if let stageEntry, let definition = StageRegistry.definition(named: stageEntry.name) {
        item.definition = definition
        item.position = stageEntry.key.position
        (item.values, item.optionPositions) = options(of: definition, in: stageEntry)
      } else if stageEntry == nil
        && !entries.contains(where: { !["id", "input"].contains($0.name) })
      {
        error(
          "this stage item names no stage; use one of " + stageNames.joined(separator: ", "),
          at: node.position)
      }
      items.append(item)
    }
    let inputs = wire(items, idIndices: idIndices)
    guard problems.isEmpty else { return nil }
    var steps: [PipelinePlan.Step] = []
    for (k, var item) in items.enumerated() {
      guard let definition = item.definition else { return nil }
      if strict, definition.option("strict")?.kind == .flag {
        item.values.set("strict", .flag(true))
      }
      steps.append(
        PipelinePlan.Step(
          id: item.id, definition: definition, values: item.values, inputs: inputs[k],
          position: item.position))
    }
    var plan = PipelinePlan(steps: steps)
    let stagePlan = plan.stagePlan
    checkValues(stagePlan.passingCRSOn(), items: items)
    guard problems.isEmpty else { return nil }
    let consumers = stagePlan.consumers()
    for (k, step) in steps.enumerated() where step.definition.role != .sink {
      guard consumers[k].isEmpty else { continue }
      if k == steps.count - 1 {
        plan.standardOutput = k
      } else {
        warnings.append(
          DocumentProblem(
            "the features of '\(step.definition.name)' go nowhere: no later stage reads them",
            at: step.position))
      }
    }
    return plan
  }

  /// Reports what building each stage would refuse from its option values alone, with the
  /// CRS each stage receives filled in as the run fills it in.
  private mutating func checkValues(_ steps: [StagePlan.Step], items: [Item]) {
    for (step, item) in zip(steps, items) {
      guard let check = step.definition.checkValues, let problem = check(step.values) else {
        continue
      }
      var message = "'\(step.definition.name)': \(problem.message)"
      if item.optionPositions[problem.option] == nil,
        step.definition.inputCRSOption == problem.option,
        let input = step.inputs.first
      {
        message += "; the CRS comes from the stage on line \(items[input].position.line)"
      }
      error(message, at: item.optionPositions[problem.option] ?? item.position)
    }
  }

  private func idPosition(_ node: DocumentNode) -> TextPosition? {
    node.entries?.first { $0.name == "id" }?.value.position
  }

  private func unknownKeyMessage(
    _ name: String, stageNames: [String], siblings: [DocumentEntry]
  ) -> String {
    for sibling in siblings {
      if let definition = StageRegistry.definition(named: sibling.name),
        definition.option(name) != nil
      {
        return "'\(name)' is an option of '\(sibling.name)': indent it under '\(sibling.name):'"
      }
    }
    return "unknown stage '\(name)'\(hint(name, stageNames + ["id", "input"]))"
  }

  /// Resolves each item's inputs to earlier items, reporting what cannot be resolved.
  private mutating func wire(_ items: [Item], idIndices: [String: Int]) -> [[Int]] {
    var result: [[Int]] = []
    for (k, item) in items.enumerated() {
      guard let definition = item.definition else {
        result.append([])
        continue
      }
      let name = definition.name
      if definition.role == .source {
        if let entry = item.inputEntry {
          error("'\(name)' starts a chain and takes no 'input'", at: entry.key.position)
        }
        result.append([])
        continue
      }
      guard let names = item.inputNames else {
        if k == 0 {
          error(
            "stage '\(name)' has no input: start the pipeline with a read stage, or name the "
              + "stage it reads with 'input:'", at: item.position)
        } else if let previous = items[k - 1].definition, previous.role == .sink {
          error(
            "stage '\(name)' has no input: the '\(previous.name)' stage before it (line "
              + "\(items[k - 1].position.line)) ends its chain; name the stage to read with 'input:'",
            at: item.position)
        }
        result.append(k > 0 ? [k - 1] : [])
        continue
      }
      if names.isEmpty, let entry = item.inputEntry {
        error("'input' is empty; name a stage id", at: entry.value.position)
      }
      var indices: [Int] = []
      for node in names {
        guard let id = node.scalarText else {
          error("an input is a stage id, not \(node.kindDescription)", at: node.position)
          continue
        }
        if let index = idIndices[id], index < k {
          if let source = items[index].definition, source.role == .sink {
            error(
              "input '\(id)' is a '\(source.name)' stage, which passes no features on",
              at: node.position)
          }
          indices.append(index)
        } else if let later = idIndices[id] {
          error(
            "input '\(id)' names a later stage (line \(items[later].position.line)); a stage "
              + "reads only stages above it", at: node.position)
        } else {
          let known = items[..<k].compactMap(\.id)
          error("input '\(id)' names no earlier stage\(hint(id, known))", at: node.position)
        }
      }
      result.append(indices)
    }
    return result
  }

  // MARK: Options

  /// Reads a stage's options: a mapping, nothing, or one value for its first positional
  /// option (`- head: 5`, `- read: places.csv`).
  private mutating func options(of definition: StageDefinition, in entry: DocumentEntry)
    -> (values: OptionValues, positions: [String: TextPosition])
  {
    var values = OptionValues()
    var given = Set<String>()
    var positions: [String: TextPosition] = [:]
    let node = entry.value
    let stage = definition.name
    if node.isNull {
      // No options.
    } else if let entries = node.entries, !isUnquotedTemplate(node) {
      for option in entries {
        let name = option.name
        guard let spec = definition.option(name) else {
          let names = definition.options.map(\.name)
          error(
            "unknown option '\(name)' for stage '\(stage)'\(hint(name, names))",
            at: option.key.position)
          continue
        }
        if definition.pathIsInput && name == "path" {
          error(
            "'\(stage)' reads the stage before it in a pipeline file; 'path' is for the "
              + "command line", at: option.key.position)
          continue
        }
        given.insert(name)
        positions[name] = option.value.position
        if let value = self.value(for: spec, stage: stage, node: option.value) {
          values.set(name, value)
        }
      }
    } else if let spec = definition.options.first(where: \.isPositional),
      node.scalarText != nil || (spec.isVariadic && node.isSequence),
      !(definition.pathIsInput && spec.name == "path")
    {
      given.insert(spec.name)
      positions[spec.name] = node.position
      if let value = value(for: spec, stage: stage, node: node) { values.set(spec.name, value) }
    } else {
      if isUnquotedTemplate(node) {
        error(unquotedTemplateMessage(node, key: stage), at: node.position)
      } else {
        error(
          "the options of '\(stage)' are a mapping such as {\(definition.options.first?.name ?? "option"): ...}, "
            + "not \(node.kindDescription)", at: node.position)
      }
      return (values, positions)
    }
    for spec in definition.options where !given.contains(spec.name) {
      if let text = spec.defaultValue, let value = try? spec.value(from: text) {
        values.set(spec.name, value)
      } else if spec.isRequired && !(definition.pathIsInput && spec.name == "path") {
        error("stage '\(stage)' needs option '\(spec.name)'", at: entry.key.position)
      }
    }
    return (values, positions)
  }

  /// Whether YAML read an unquoted `{name}` template as a one-key flow mapping.
  private func isUnquotedTemplate(_ node: DocumentNode) -> Bool {
    guard node.isFlow, let entries = node.entries, entries.count == 1 else { return false }
    return entries[0].value.isNull && entries[0].key.scalarText != nil
  }

  private func unquotedTemplateMessage(_ node: DocumentNode, key: String) -> String {
    let field = node.entries?.first?.name ?? "name"
    return "'{\(field)}' here is read by YAML as a mapping; quote the template, as in "
      + "\(key): \"{\(field)}\""
  }

  /// Checks and types one option value.
  private mutating func value(for spec: OptionSpec, stage: String, node: DocumentNode)
    -> OptionValue?
  {
    let option = "'\(spec.name)'"
    switch node.content {
    case .mapping(let entries):
      if isUnquotedTemplate(node) {
        error(unquotedTemplateMessage(node, key: spec.name), at: node.position)
        return nil
      }
      guard spec.kind == .pairs else {
        error(
          "option \(option) of '\(stage)' takes \(describe(spec.kind)), not a mapping",
          at: node.position)
        return nil
      }
      var pairs: [KeyValue] = []
      for entry in entries {
        guard let text = entry.value.scalarText else {
          error(
            "the values of \(option) are single values, not \(entry.value.kindDescription)",
            at: entry.value.position)
          continue
        }
        guard let value = scalarValue(spec, text: text, node: entry.value, stage: stage) else {
          continue
        }
        pairs.append(KeyValue(key: entry.name, value: value))
      }
      return .pairs(pairs)
    case .sequence(let items):
      guard spec.kind == .list || spec.kind == .pairs || spec.isVariadic else {
        error(
          "option \(option) of '\(stage)' takes \(describe(spec.kind)), not a list",
          at: node.position)
        return nil
      }
      var texts: [String] = []
      var pairs: [KeyValue] = []
      for item in items {
        guard let text = item.scalarText else {
          error(
            "the items of \(option) are single values, not \(item.kindDescription)",
            at: item.position)
          continue
        }
        guard let text = scalarValue(spec, text: text, node: item, stage: stage, typed: false)
        else { continue }
        if spec.kind == .pairs {
          if case .pairs(let more)? = checked(spec, text, node: item, stage: stage) {
            pairs += more
          }
        } else {
          texts.append(text)
        }
      }
      if spec.isRequired && texts.isEmpty && pairs.isEmpty {
        error("option \(option) of '\(stage)' needs at least one value", at: node.position)
        return nil
      }
      return spec.kind == .pairs ? .pairs(pairs) : .list(texts)
    case .scalar(let text, _):
      if node.isNull {
        if spec.kind == .flag { return .flag(true) }
        error("option \(option) of '\(stage)' has no value", at: node.position)
        return nil
      }
      guard let text = scalarValue(spec, text: text, node: node, stage: stage, typed: false)
      else { return nil }
      return checked(spec, text, node: node, stage: stage)
    }
  }

  /// Substitutes variables and checks templates in one scalar; with `typed`, also checks the
  /// text as the option's value (for pair values) and returns the text.
  private mutating func scalarValue(
    _ spec: OptionSpec, text original: String, node: DocumentNode, stage: String,
    typed: Bool = true
  ) -> String? {
    let before = problems.count
    let substituted = variables.substitute(original)
    usedVariables.formUnion(substituted.names)
    for problem in substituted.problems {
      error(problem.message, at: place(offset: problem.offset, in: node, text: original))
    }
    guard problems.count == before else { return nil }
    let text = spec.acceptsTemplates ? substituted.templateText : substituted.text
    // Braces inside an expression's quoted text are text, as on the command line; the
    // expression's own syntax check rejects them anywhere else.
    if !spec.acceptsTemplates, !spec.isExpression,
      let offset = Self.fieldOffset(in: substituted.templateText)
    {
      let at = substituted.changed ? node.position : place(offset: offset, in: node, text: text)
      error(
        "'\(spec.name)' of '\(stage)' must be the same for every feature: it takes no "
          + "{property} template", at: at)
      return nil
    }
    if typed, let validate = spec.validate, let problem = validate(text) {
      report(problem, spec: spec, stage: stage, node: node, text: text)
      return nil
    }
    return text
  }

  /// Reports what an option's `validate` found, at the character it names.
  private mutating func report(
    _ problem: ValueProblem, spec: OptionSpec, stage: String, node: DocumentNode, text: String
  ) {
    let at =
      text != node.scalarText ? node.position : place(offset: problem.offset, in: node, text: text)
    error("'\(spec.name)' of '\(stage)': \(problem.message)", at: at)
  }

  /// Parses a scalar as the option's value, reporting a type error at the value.
  private mutating func checked(
    _ spec: OptionSpec, _ text: String, node: DocumentNode, stage: String
  ) -> OptionValue? {
    if spec.kind != .pairs, let validate = spec.validate, let problem = validate(text) {
      report(problem, spec: spec, stage: stage, node: node, text: text)
      return nil
    }
    do {
      return try spec.value(from: text)
    } catch {
      let changed = text != node.scalarText
      let at = changed ? node.position : place(offset: error.offset, in: node, text: text)
      self.error(
        "invalid value '\(text)' for '\(spec.name)' of '\(stage)': \(error.message)", at: at)
      return nil
    }
  }

  /// The offset of the first template field in `text`, or nil when there is none.
  static func fieldOffset(in text: String) -> Int? {
    guard Template.containsField(text) else { return nil }
    let chars = Array(text)
    var k = 0
    while k < chars.count {
      if (chars[k] == "{" || chars[k] == "}") && k + 1 < chars.count && chars[k + 1] == chars[k] {
        k += 2
        continue
      }
      if chars[k] == "{" || chars[k] == "}" { return k }
      k += 1
    }
    return 0
  }

  private func describe(_ kind: OptionKind) -> String {
    switch kind {
    case .flag: "true or false"
    case .string, .path: "a text"
    case .integer: "a whole number"
    case .number: "a number"
    case .choice(let words): "one of " + words.joined(separator: ", ")
    case .bbox: "a box W,S,E,N"
    case .point: "a point LON,LAT"
    case .list: "a list"
    case .pairs: "a mapping of names to values"
    }
  }
}
