import Foundation

/// Manual pages in roff (`man -l` renders them): `geopipe(1)` from the overview and
/// `geopipe-COMMAND(1)` from each command's help, so the pages say what `--help` says.
enum Manual {
  /// The page for `command`, or `geopipe(1)` for nil; nil for an unknown command.
  static func page(for command: String?) -> String? {
    let version = Help.version.split(separator: " ").last.map(String.init) ?? ""
    guard let command else { return overviewPage(version: version) }
    guard let text = Help.text(for: command) else { return nil }
    let title = "geopipe-\(command)"
    var lines = [
      ".TH \(title.uppercased()) 1 \"\" \"geopipe \(version)\" \"geopipe manual\"",
      ".ad l",
      ".SH NAME",
    ]
    var section = ""
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if line.hasPrefix("OVERVIEW: ") {
        lines.append("\(escape(title)) \\- \(escape(String(line.dropFirst(10))))")
        continue
      }
      if line.hasPrefix("USAGE: ") {
        lines += [".SH SYNOPSIS", ".B " + escape(String(line.dropFirst(7))), ".SH DESCRIPTION"]
        section = "DESCRIPTION"
        continue
      }
      if isHeading(line) {
        section = String(line.dropLast())
        lines.append(".SH " + escape(section))
        continue
      }
      if line.isEmpty {
        if section == "DESCRIPTION" && lines.last != ".SH DESCRIPTION" { lines.append(".PP") }
        continue
      }
      if section == "EXAMPLES" {
        lines += [".PP", ".nf", escape(line.trimmingSpaces()), ".fi"]
      } else if section.hasSuffix("OPTIONS") {
        let trimmed = line.trimmingSpaces()
        if line.hasPrefix("  -") || line.hasPrefix("  <") {
          let parts = trimmed.split(separator: "  ", maxSplits: 1).map(String.init)
          lines += [".TP", ".B " + escape(parts[0])]
          if parts.count > 1 { lines.append(escape(parts[1].trimmingSpaces())) }
        } else {
          lines.append(escape(trimmed))
        }
      } else {
        lines.append(escape(line.trimmingSpaces()))
      }
    }
    lines += [".SH SEE ALSO", ".BR geopipe (1)"]
    return lines.joined(separator: "\n") + "\n"
  }

  private static func overviewPage(version: String) -> String {
    var lines = [
      ".TH GEOPIPE 1 \"\" \"geopipe \(version)\" \"geopipe manual\"",
      ".ad l",
      ".SH NAME",
      "geopipe \\- geospatial data pipelines: read, filter, transform and write map features",
      ".SH SYNOPSIS",
      ".B geopipe",
      ".I command",
      "[\\fIoptions\\fR]",
      ".SH DESCRIPTION",
    ]
    let overview = Help.overview().split(separator: "\n", omittingEmptySubsequences: false)
    var inCommands = false
    for line in overview.map(String.init) {
      if line == "COMMANDS:" {
        inCommands = true
        lines.append(".SH COMMANDS")
        continue
      }
      if line.hasPrefix("OVERVIEW:") || line.hasPrefix("USAGE:") || line.hasPrefix("       ") {
        continue
      }
      if line.isEmpty {
        if inCommands {
          inCommands = false
          lines.append(".SH NOTES")
        } else if lines.last != ".SH DESCRIPTION" && lines.last != ".PP" {
          lines.append(".PP")
        }
        continue
      }
      if inCommands {
        let parts = line.trimmingSpaces().split(separator: " ", maxSplits: 1).map(String.init)
        lines += [".TP", ".BR geopipe\\-\(escape(parts[0])) (1)"]
        if parts.count > 1 { lines.append(escape(parts[1].trimmingSpaces())) }
      } else {
        lines.append(escape(line))
      }
    }
    lines += [
      ".SH FILES",
      ".TP",
      ".I PREFIX/share/geopipe",
      "The GeoNames files of the default gazetteer and the Natural Earth basemap, found beside",
      "the binary (or in \\fBData\\fR of a source checkout; \\fB$GEOPIPE_DATA\\fR overrides).",
      ".TP",
      ".I ~/.local/share/geopipe/gazetteer.sqlite",
      "The default gazetteer that \\fBgeopipe gazetteer build \\-\\-default\\fR writes",
      "(\\fB$XDG_DATA_HOME/geopipe\\fR when set; \\fB$GEOPIPE_GAZETTEER\\fR overrides).",
      ".SH SEE ALSO",
      Help.commands.map { ".BR geopipe\\-\($0.name) (1)" }.joined(separator: ",\n"),
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  private static func isHeading(_ line: String) -> Bool {
    guard line.hasSuffix(":"), let first = line.first, first.isUppercase else { return false }
    return line.dropLast().allSatisfy { $0.isUppercase || $0 == " " }
  }

  /// Text safe in roff: backslashes and dashes escaped, other than ASCII written as
  /// `\[uXXXX]`, no line starting with a control character.
  static func escape(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": escaped += "\\e"
      case "-": escaped += "\\-"
      case _ where scalar.isASCII: escaped.unicodeScalars.append(scalar)
      default: escaped += "\\[u" + String(format: "%04X", scalar.value) + "]"
      }
    }
    return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
  }
}

extension String {
  fileprivate func trimmingSpaces() -> String {
    var text = Substring(self)
    while text.first == " " { text.removeFirst() }
    while text.last == " " { text.removeLast() }
    return String(text)
  }
}
