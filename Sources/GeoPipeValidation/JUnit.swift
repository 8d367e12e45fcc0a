/// JUnit XML, as CI systems read it: a test suite per file, a test case per finding (errors
/// fail, warnings pass with the message in their output), or one passing case for a clean file.
enum JUnit {
  static func document(
    _ files: [(summary: FileSummary, findings: [Finding])],
    unopened: [(path: String, message: String)], totals: RunTotals
  ) -> String {
    let tests = files.reduce(unopened.count) { $0 + max(1, $1.findings.count) }
    var lines = [
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
      "<testsuites name=\"geopipe validate\" tests=\"\(tests)\" failures=\"\(totals.errors)\" "
        + "errors=\"\(unopened.count)\">",
    ]
    // A file that cannot be opened is an error of the run, not a finding.
    for (path, message) in unopened {
      lines += [
        "  <testsuite name=\"\(escape(path))\" tests=\"1\" failures=\"0\" errors=\"1\" "
          + "skipped=\"0\">",
        "    <testcase classname=\"\(escape(path))\" name=\"open\">",
        "      <error message=\"\(escape(message))\" type=\"noInput\"/>",
        "    </testcase>",
        "  </testsuite>",
      ]
    }
    for (summary, findings) in files {
      let failures = findings.filter { $0.severity == .error }.count
      lines.append(
        "  <testsuite name=\"\(escape(summary.path))\" tests=\"\(max(1, findings.count))\" "
          + "failures=\"\(failures)\" errors=\"0\" skipped=\"0\">")
      if findings.isEmpty {
        lines.append(
          "    <testcase classname=\"\(escape(summary.path))\" name=\"valid\"/>")
      }
      for finding in findings {
        let name =
          "\(finding.rule.code) \(finding.rule.name) at \(finding.location.line):\(finding.location.column)"
        let open =
          "    <testcase classname=\"\(escape(summary.path))\" name=\"\(escape(name))\" "
          + "file=\"\(escape(finding.location.file))\" line=\"\(finding.location.line)\">"
        lines.append(open)
        if finding.severity == .error {
          lines.append(
            "      <failure message=\"\(escape(finding.message))\" type=\"\(finding.rule.code)\">"
              + "\(escape(finding.description))</failure>")
        } else {
          lines.append("      <system-out>\(escape(finding.description))</system-out>")
        }
        lines.append("    </testcase>")
      }
      lines.append("  </testsuite>")
    }
    lines.append("</testsuites>")
    return lines.joined(separator: "\n") + "\n"
  }

  /// Escapes text for XML content and attribute values; drops characters XML 1.0 forbids.
  static func escape(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&apos;"
      case "\n": result += "&#10;"
      case "\t", "\r": result.unicodeScalars.append(scalar)
      default:
        if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result
  }
}
