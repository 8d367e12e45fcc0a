import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeStageKit

/// The expression language against SQLite (through Python's `sqlite3`, with
/// `case_sensitive_like` on, as geopipe's `like` is): every case is evaluated by both and the
/// answers must agree.
@Suite struct ExpressionOracleTests {
  private static let python = "/usr/bin/python3"

  /// SQL both dialects read the same way, over literals only.
  static let cases: [String] = {
    var cases: [String] = []
    let subjects = ["''", "'a'", "'abc'", "'San José'", "'a_b%c'", "'%'", "'aXbXc'", "null"]
    let patterns = [
      "''", "'%'", "'_'", "'a%'", "'%c'", "'%b%'", "'a_c'", "'_b_'", "'a%c'", "'%X%X%'",
      "'San%'", "'San Jos_'", "'%é'", "'a!_b!%c' escape '!'", "'a!%%' escape '!'", "'A%'",
      "'%%'", "'_%_'", "null",
    ]
    for subject in subjects {
      for pattern in patterns {
        cases.append("\(subject) like \(pattern)")
        cases.append("\(subject) not like \(pattern)")
      }
      cases.append("length(\(subject))")
      // SQLite's lower and upper change ASCII letters only; geopipe's all letters.
      if !subject.contains("é") { cases.append("lower(\(subject)) || upper(\(subject))") }
      cases.append("trim(\(subject), 'ac')")
      cases.append("replace(\(subject), 'b', 'XY')")
      cases.append("nullif(\(subject), 'a')")
      cases.append("coalesce(\(subject), 'none')")
      for start in [-10, -3, -1, 0, 1, 2, 5, 20] {
        cases.append("substr(\(subject), \(start))")
        for count in [-3, -1, 0, 1, 2, 10] {
          cases.append("substr(\(subject), \(start), \(count))")
        }
      }
    }
    let numbers = [
      "0", "1", "-1", "2.5", "-2.5", "2.675", "1.005", "0.125", "-7.45", "1e-5", "null",
    ]
    for x in numbers {
      for places in [0, 1, 2, 3] where x != "null" {
        cases.append("round(\(x), \(places))")
      }
      cases.append("abs(\(x))")
      cases.append("coalesce(\(x), 9)")
      for y in numbers {
        cases.append("\(x) = \(y)")
        cases.append("\(x) < \(y)")
        cases.append("not (\(x) >= \(y))")
        cases.append("\(x) < 1 and \(y) < 1")
        cases.append("\(x) < 1 or \(y) < 1")
        cases.append("\(x) between \(y) and 2")
        cases.append("\(x) not between -1 and \(y)")
        cases.append("min(\(x), \(y))")
        cases.append("max(\(x), \(y), 0)")
        cases.append("nullif(\(x), \(y))")
        cases.append("\(x) in (\(y), 1)")
        cases.append("\(x) not in (\(y), 1)")
        cases.append("case when \(x) > \(y) then 'gt' when \(x) = \(y) then 'eq' end")
        cases.append("case \(x) when \(y) then 'same' else 'other' end")
        cases.append("\(x) + \(y)")
        cases.append("\(x) * \(y)")
      }
    }
    return cases
  }()

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python)))
  func agreesWithSQLite() throws {
    let answers = try Self.sqlite(Self.cases)
    #expect(answers.count == Self.cases.count)
    var disagreements = 0
    for (text, answer) in zip(Self.cases, answers) {
      let ours = try Expression.parseValue(text).evaluate(Feature())
      if !Self.same(ours, answer) {
        disagreements += 1
        Issue.record("\(text): geopipe \(ours), SQLite \(answer)")
      }
      if disagreements > 20 { break }
    }
  }

  /// Whether a geopipe value is SQLite's answer: null is None, booleans are 1 and 0, numbers
  /// agree in value.
  private static func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
    switch ours {
    case .null: return theirs is NSNull
    case .bool(let flag): return number(theirs) == (flag ? 1 : 0)
    case .string(let text): return (theirs as? String) == text
    default:
      guard let x = ours.numberValue, let y = number(theirs) else { return false }
      return x == y
    }
  }

  private static func number(_ value: Any) -> Double? {
    (value as? [String: String])?["n"].flatMap { Double($0) }
  }

  /// SQLite's answer for each expression, as JSON values.
  private static func sqlite(_ expressions: [String]) throws -> [Any] {
    let script = """
      import json, sqlite3, sys
      db = sqlite3.connect(":memory:")
      db.execute("pragma case_sensitive_like = on")
      def tagged(v):
          # Numbers as text: Foundation's JSON reader rounds some doubles.
          return v if v is None or isinstance(v, str) else {"n": repr(v)}
      out = [tagged(db.execute("select " + e).fetchone()[0]) for e in json.load(sys.stdin)]
      json.dump(out, sys.stdout)
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = ["-c", script]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    let request = try JSONSerialization.data(withJSONObject: expressions)
    input.fileHandleForWriting.write(request)
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return try #require(
      try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [Any])
  }
}
