import GeoPipeCore
import GeoPipeStageKit
import GeoPipeStages

/// One command of `geopipe`: its name, help, options and what it runs.
///
/// The table of these (`CommandTable.all`) drives dispatch, the overview, `help NAME`, "did you
/// mean", short option names, man pages and shell completions.
struct CommandEntry: Sendable {
  /// A word a command takes first, with its own options (`gazetteer build`, `gazetteer info`).
  struct Action: Sendable {
    var name: String
    var options: [OptionSpec]
    /// The heading of its options in help, when help lists them apart from the command's.
    var title: String?
  }

  /// The word after `geopipe`.
  var name: String
  /// One line for the overview.
  var abstract: String
  /// Paragraphs for `--help`.
  var discussion: String
  /// Example command lines.
  var examples: [String]
  /// The options, in the groups help shows them in; the parser takes all of them.
  var groups: [(title: String, options: [OptionSpec])]
  /// The actions, when the command takes one first (its options then come from the action).
  var actions: [Action] = []
  /// Whether the command also runs without an action (`tiles OUT.pmtiles` beside
  /// `tiles info PATH`).
  var runsWithoutAction = false
  /// Whether the command reads all features before it writes any (said in help).
  var buffersAll = false
  /// Parses the words after the name (and action) against the options.
  var parse: @Sendable ([String], [OptionSpec]) throws -> OptionValues = {
    try ArgumentParser(options: $1).parse($0)
  }
  /// Reports words that do not parse, instead of the error and where to find the usage.
  var usageError: (@Sendable (GeoPipeError, [String]) -> Int32)?
  /// Runs the command on its parsed options (and its action, if it takes one).
  var run: @Sendable (_ action: String?, _ values: OptionValues) -> Int32

  /// Every option, once each, the actions' too (for completions).
  var allOptions: [OptionSpec] {
    var seen = Set<String>()
    return (groups.flatMap(\.options) + actions.flatMap(\.options)).filter {
      seen.insert($0.name).inserted
    }
  }

  /// The help `--help` prints.
  var help: String {
    let usageName =
      actions.isEmpty || runsWithoutAction
      ? name : name + " " + actions.map(\.name).joined(separator: "|")
    return Help.command(
      name: usageName, abstract: abstract, discussion: discussion, examples: examples,
      groups: groups, buffersAll: buffersAll,
      actions: actions.compactMap { action in
        action.title.map { (name + " " + action.name, $0, action.options) }
      })
  }

  /// This command with `extra`'s actions beside it, run by `extra` when one is named.
  func adding(_ extra: CommandActions?) -> CommandEntry {
    guard let extra else { return self }
    var entry = self
    entry.actions = extra.actions
    entry.runsWithoutAction = true
    entry.discussion += "\n\n" + extra.discussion
    entry.examples += extra.examples
    let runStage = run
    entry.run = { action, values in
      if let action { extra.run(action, values) } else { runStage(nil, values) }
    }
    return entry
  }

  /// Runs the command on the words after its name: help, short names, parsing, then `run`.
  func callAsFunction(_ words: [String]) -> Int32 {
    if words.contains("--help") || words.contains("-h") {
      print(help, terminator: "")
      return 0
    }
    var action: Action?
    var rest = words
    if !actions.isEmpty {
      if let first = words.first, let chosen = actions.first(where: { $0.name == first }) {
        action = chosen
        rest.removeFirst()
      } else if !runsWithoutAction {
        if words.isEmpty {
          print(help, terminator: "")
        } else {
          let names = actions.map(\.name).joined(separator: " or ")
          Terminal.printError("error: unknown \(name) action '\(words[0])'; use \(names)")
        }
        return ExitStatus.usage.rawValue
      }
    }
    let options = action.map { $0.options + Help.globalOptions } ?? groups.flatMap(\.options)
    let values: OptionValues
    do {
      values = try parse(Self.expandingShortNames(rest, options), options)
    } catch {
      let failure = error as? GeoPipeError ?? GeoPipeError.usage("\(error)")
      if let usageError { return usageError(failure, words) }
      Self.printUsageError(failure, command: name)
      return failure.status.rawValue
    }
    return run(action?.name, values)
  }

  /// The words with each `-x` that is an option's short name written out (`-q` → `--quiet`),
  /// and a value written onto the short name of an option that takes one split off, as
  /// tippecanoe's command lines do (`-zg` → `--max-zoom g`).
  static func expandingShortNames(_ words: [String], _ options: [OptionSpec]) -> [String] {
    var long: [String: OptionSpec] = [:]
    for spec in options {
      if let short = spec.shortName { long["-\(short)"] = spec }
    }
    return words.flatMap { word -> [String] in
      if let spec = long[word] { return ["--\(spec.name)"] }
      guard word.count > 2, !word.hasPrefix("--"), let spec = long[String(word.prefix(2))],
        spec.kind != .flag
      else { return [word] }
      return ["--\(spec.name)", String(word.dropFirst(2))]
    }
  }

  /// Prints a usage error and where to find the usage.
  static func printUsageError(_ error: GeoPipeError, command: String) {
    Terminal.printError(error.description)
    if error.status == .usage { Terminal.printError("usage: see 'geopipe \(command) --help'") }
  }
}

/// Actions a command takes besides what it runs without one, with their help and what runs
/// them (`tiles info|decode|join` beside the `tiles` stage).
struct CommandActions: Sendable {
  var actions: [CommandEntry.Action]
  /// Paragraphs added to the command's help.
  var discussion: String
  var examples: [String]
  /// Runs the named action on its parsed options.
  var run: @Sendable (_ action: String, _ values: OptionValues) -> Int32
}

/// Every command, in the order the overview lists them.
enum CommandTable {
  /// Actions of stage commands, by the stage's name.
  static let stageActions: [String: CommandActions] = ["tiles": TilesCommand.actions]

  static let all: [CommandEntry] =
    PipelineCommand.entries
    + StageRegistry.all.flatMap { definition in
      let entry = Command.entry(for: definition).adding(stageActions[definition.name])
      // convert is read and write in one: it follows them.
      return definition.name == "write" ? [entry, Command.convertEntry] : [entry]
    }
    + [
      LayersCommand.entry, ValidateCommand.entry, GazetteerCommand.entry, CameraCommand.entry,
      Completions.entry,
    ]

  /// The command named `name`.
  static func entry(named name: String) -> CommandEntry? {
    all.first { $0.name == name }
  }

  /// Every command's name, in the order "did you mean" looks at them: the stages first.
  static var names: [String] {
    let stages = Set(StageRegistry.all.map(\.name))
    return all.map(\.name).filter(stages.contains) + all.map(\.name).filter { !stages.contains($0) }
  }

  /// Runs `geopipe WORDS` and returns the exit status.
  static func run(_ words: [String]) -> Int32 {
    guard let first = words.first else {
      Terminal.printError(Help.overview())
      return ExitStatus.usage.rawValue
    }
    switch first {
    case "--help", "-h":
      print(Help.overview(), terminator: "")
      return 0
    case "--version", "version":
      print(Help.version)
      return 0
    case "help":
      return help(Array(words.dropFirst()))
    default:
      guard let entry = entry(named: first) else { return unknownCommand(first) }
      return entry(Array(words.dropFirst()))
    }
  }

  /// `help`, `help NAME`, `help --markdown` (the stage reference) and `help --man [NAME]`.
  private static func help(_ words: [String]) -> Int32 {
    switch words.first {
    case nil:
      print(Help.overview(), terminator: "")
    case "--markdown":
      print(StageReference.markdown(), terminator: "")
    case "--man":
      let command = words.count > 1 ? words[1] : nil
      guard let page = Manual.page(for: command) else { return unknownCommand(words[1]) }
      print(page, terminator: "")
    case let name?:
      guard let entry = entry(named: name) else { return unknownCommand(name) }
      print(entry.help, terminator: "")
    }
    return 0
  }

  static func unknownCommand(_ name: String) -> Int32 {
    let hint = Suggestions.closest(to: name, among: names).map { "; did you mean '\($0)'?" } ?? ""
    Terminal.printError("error: unknown command '\(name)'\(hint)")
    Terminal.printError("usage: see 'geopipe --help'")
    return ExitStatus.usage.rawValue
  }
}
