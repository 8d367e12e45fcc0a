import Foundation
import GeoPipeCore
import GeoPipeIO
import Testing

@testable import GeoPipeStageKit

/// The table of operators and functions in docs/pipelines.md: every example gives the value
/// the table says, and every function is in it.
@Suite struct ExpressionDocsTests {
  private static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The feature the documentation evaluates its examples on.
  private static let feature = Feature(
    geometry: .point(Position(x: 2.35, y: 48.85)),
    properties: [
      "name": .string("San José"), "population": .string("2148000"), "rank": .integer(3),
      "area": .double(105.4), "note": .null, "code": .string("A_1%"),
    ])

  /// The table's rows: the first column, the example and the value (as JSON).
  private static func rows() throws -> [(operator: String, example: String, value: String)] {
    let text = try String(
      contentsOf: root.appendingPathComponent("docs/pipelines.md"), encoding: .utf8)
    let section = try #require(text.range(of: "## Expressions"))
    var rows: [(String, String, String)] = []
    for line in text[section.upperBound...].split(separator: "\n") {
      if line.hasPrefix("## ") { break }
      guard line.hasPrefix("| `") else { continue }
      let cells = line.replacingOccurrences(of: "\\|", with: "\u{1}")
        .split(separator: "|").map {
          $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\u{1}", with: "|")
        }
      guard cells.count == 4 else { continue }
      func code(_ cell: String) -> String { cell.trimmingCharacters(in: CharacterSet(["`"])) }
      rows.append((cells[0], code(cells[2]), code(cells[3])))
    }
    return rows
  }

  @Test func everyExampleGivesItsValue() throws {
    let rows = try Self.rows()
    #expect(rows.count > 30)
    for row in rows {
      let value = try Expression.parseValue(row.example).evaluate(Self.feature)
      var writer = JSONTextWriter()
      writer.writeValue(value)
      #expect(String(decoding: writer.bytes, as: UTF8.self) == row.value, "\(row.example)")
    }
  }

  @Test func everyFunctionIsDocumented() throws {
    let documented = try Self.rows().map(\.operator).joined(separator: " ")
    for function in ExpressionFunction.allCases {
      #expect(documented.contains("`\(function.rawValue)("), "\(function.rawValue)")
    }
  }
}
