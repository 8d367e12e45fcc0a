import GeoPipeStageKit
import GeoPipeStages

/// Help text generated from the command table.
enum Help {
  static let version = "geopipe 0.1.0"

  static let globalOptions: [OptionSpec] = [
    OptionSpec(
      "quiet", .flag, short: "q",
      help: "Print no progress, notes or warnings (errors still print)."),
    OptionSpec("progress", .flag, help: "Show progress on stderr even when it is not a terminal."),
    OptionSpec("help", .flag, short: "h", help: "Show help for the command."),
  ]

  static let stdoutOptions: [OptionSpec] = [
    OptionSpec("rs", .flag, help: "Write RS-delimited GeoJSONSeq (RFC 8142) to standard output."),
    OptionSpec(
      "rewind", .flag,
      help:
        "Wind polygon rings as RFC 7946 asks on standard output (rings otherwise keep the"
        + " direction they were read in, so the next command sees them as written)."),
  ]

  /// Every command with its one-line abstract, in the order the overview lists them.
  static var commands: [(name: String, abstract: String)] {
    CommandTable.all.map { ($0.name, $0.abstract) }
  }

  /// The help a command prints for `--help`; nil for an unknown command.
  static func text(for name: String) -> String? {
    CommandTable.entry(named: name)?.help
  }

  static func overview() -> String {
    var lines = [
      "OVERVIEW: Geospatial data pipelines: read, filter, transform and write map features.",
      "",
      "USAGE: geopipe <command> [<options>]",
      "       geopipe read places.csv | geopipe filter --where \"population > 10000\" | geopipe write big.geojson",
      "",
      "COMMANDS:",
    ]
    let commands = Self.commands
    let width = commands.map(\.0.count).max() ?? 0
    for (name, abstract) in commands {
      lines.append("  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + abstract)
    }
    lines += [
      "",
      "Between commands features travel as GeoJSONSeq: one GeoJSON Feature per line, polygon",
      "rings as read (write winds them as RFC 7946 asks; --rewind on standard output too).",
      "Points are LON,LAT and boxes W,S,E,N everywhere, as in GeoJSON; spaces may follow",
      "the commas when quoted (--bbox \"-10, 35, 30, 60\", as fio writes boxes).",
      "",
      "EXIT STATUS: 0 success, 1 validation findings, 64 usage error, 65 bad input data,",
      "66 cannot open input, 73 cannot create output, 74 I/O error, 78 invalid pipeline file.",
      "",
      "See 'geopipe <command> --help' for a command's options; 'geopipe --version'.",
      "'geopipe help --man [<command>]' prints a man page (geopipe help --man read | man -l -).",
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  static func command(
    name: String, abstract: String, discussion: String, examples: [String],
    groups: [(title: String, options: [OptionSpec])], buffersAll: Bool = false,
    actions: [(usage: String, title: String, options: [OptionSpec])] = []
  ) -> String {
    func usage(_ name: String, _ options: [OptionSpec]) -> String {
      var usage = "geopipe \(name)"
      for spec in options where spec.isPositional {
        let words = spec.isVariadic ? "<\(spec.name)> ..." : "<\(spec.name)>"
        usage += spec.isRequired ? " \(words)" : " [\(words)]"
      }
      return usage + " [<options>]"
    }
    var lines = ["OVERVIEW: \(abstract)", "", "USAGE: " + usage(name, groups.flatMap(\.options))]
    lines += actions.map { "       " + usage($0.usage, $0.options) }
    lines.append("")
    lines += discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if buffersAll {
      lines += ["", "This stage reads all features before it writes any."]
    }
    let actionGroups = actions.map { (title: $0.title, options: $0.options) }
    for group in groups + actionGroups where !group.options.isEmpty {
      lines += ["", "\(group.title):"]
      for spec in group.options {
        let left =
          spec.isPositional
          ? "<\(spec.name)>"
          : "--\(spec.name)" + (spec.kind == .flag ? "" : " \(spec.kind.placeholder)")
        var help = spec.help
        if let range = spec.range { help += " (\(range.lowerBound) to \(range.upperBound))" }
        if let value = spec.defaultValue, spec.kind != .flag { help += " (default: \(value))" }
        let wrapped = wrap(help, width: 100 - 30)
        let pad =
          left.count < 27
          ? left.padding(toLength: 28, withPad: " ", startingAt: 0)
          : left + "\n" + String(repeating: " ", count: 30)
        lines.append("  " + pad + (wrapped.first ?? ""))
        for rest in wrapped.dropFirst() { lines.append(String(repeating: " ", count: 30) + rest) }
      }
    }
    if !examples.isEmpty {
      lines += ["", "EXAMPLES:"]
      lines += examples.map { "  " + $0 }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ") {
      if !current.isEmpty && current.count + 1 + word.count > width {
        lines.append(current)
        current = ""
      }
      current += current.isEmpty ? String(word) : " " + word
    }
    if !current.isEmpty { lines.append(current) }
    return lines
  }
}
