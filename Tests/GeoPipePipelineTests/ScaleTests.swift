import Testing

@testable import GeoPipePipeline

/// Reading and checking a pipeline file takes time in proportion to its size, and nesting is
/// bounded: a file with tens of thousands of stages, variables or keys is checked in well under
/// a second, where quadratic work would take minutes, and a deeply nested value is an error,
/// not a crash.
@Suite struct ScaleTests {
  private func seconds(_ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    let elapsed = clock.measure(body)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }

  @Test func manyStagesAreCheckedInLinearTime() {
    let count = 50_000
    var text = "version: 1\nstages:\n  - read: places.csv\n"
    for k in 0..<count { text += k % 2 == 0 ? "  - head: 5\n" : "  - {id: s\(k), head: 5}\n" }
    var pipeline: Pipeline?
    let time = seconds {
      pipeline = Pipeline(path: "p.yaml", bytes: Array(text.utf8), environment: [:])
    }
    #expect(pipeline?.errors.isEmpty == true)
    #expect(pipeline?.plan?.steps.count == count + 1)
    #expect(time < 20, "checking \(count) stages took \(time) s")
  }

  @Test func manyVariablesAreCheckedInLinearTime() {
    let count = 50_000
    var text = "version: 1\nvars:\n"
    text += "  v0: a.csv\n"
    for k in 1..<count { text += "  v\(k): \"${v\(k - 1)}\"\n" }
    text += "stages:\n  - read: \"${v\(count - 1)}\"\n"
    var pipeline: Pipeline?
    let time = seconds {
      pipeline = Pipeline(path: "p.yaml", bytes: Array(text.utf8), environment: [:])
    }
    #expect(pipeline?.errors.isEmpty == true)
    #expect(pipeline?.plan?.steps.first?.values.string("path") == "a.csv")
    #expect(time < 20, "checking \(count) variables took \(time) s")
  }

  @Test func manyKeysInJSONAreReadInLinearTime() {
    let count = 100_000
    var text = "{\"version\": 1, \"vars\": {"
    text += (0..<count).map { "\"v\($0)\": \"x\"" }.joined(separator: ", ")
    text += ", \"v7\": \"again\"}, \"stages\": [{\"read\": \"a.csv\"}]}"
    var problems: [DocumentProblem] = []
    let time = seconds { problems = JSONDocumentReader.read(text).problems }
    #expect(problems.count == 1)
    #expect(problems.first?.message.hasPrefix("duplicate key 'v7' (first at line 1") == true)
    #expect(time < 20, "reading \(count) keys took \(time) s")
  }

  @Test func manyKeysInYAMLAreReadInLinearTime() {
    let count = 100_000
    var text = "a:\n"
    for k in 0..<count { text += "  k\(k): x\n" }
    text += "  k3: again\n"
    var result: (root: DocumentNode?, problems: [DocumentProblem])?
    let time = seconds { result = YAMLReader.read(Array(text.utf8)) }
    #expect(result?.problems.map(\.message) == ["duplicate key 'k3' (first at line 5, column 3)"])
    #expect(result?.root?.entries?.first?.value.entries?.count == count + 1)
    #expect(time < 20, "reading \(count) keys took \(time) s")
  }

  @Test func yamlNestingIsLimitedTo512Levels() throws {
    // The root mapping is the first level.
    let fits = "a: " + String(repeating: "[", count: 511) + String(repeating: "]", count: 511)
    #expect(YAMLReader.read(Array(fits.utf8)).problems.isEmpty)
    let over = "a: " + String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(
      YAMLReader.read(Array(over.utf8)).problems == [
        DocumentProblem(
          "nesting deeper than 512 levels of mappings and lists",
          at: TextPosition(line: 1, column: 515))
      ])
    let deep =
      "a: " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let result = YAMLReader.read(Array(deep.utf8))
    #expect(result.root == nil)
    #expect(result.problems.first?.message.hasPrefix("nesting deeper than 512") == true)
  }

  @Test func aliasesCannotNestPastTheLimit() {
    let inner = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
    let text =
      "a: &a \(inner)\nb: [[*a]]\nc: \(String(repeating: "[", count: 250))*a\(String(repeating: "]", count: 250))\n"
    let result = YAMLReader.read(Array(text.utf8))
    #expect(result.root == nil)
    #expect(result.problems.map(\.position) == [TextPosition(line: 3, column: 254)])
  }

  @Test func jsonNestingIsLimitedTo512Levels() {
    let fits = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(JSONDocumentReader.read(fits).problems.isEmpty)
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let result = JSONDocumentReader.read(deep)
    #expect(result.root == nil)
    #expect(
      result.problems == [
        DocumentProblem(
          "nesting deeper than 512 levels of objects and arrays",
          at: TextPosition(line: 1, column: 513))
      ])
  }

  @Test func aTabGetsASentenceWithItsPlace() {
    let result = YAMLReader.read(Array("version: 1\nstages:\n  - read: a.csv\n\t- head: 1\n".utf8))
    #expect(
      result.problems == [
        DocumentProblem(
          "a tab character here: YAML indents with spaces only; replace the tab with spaces",
          at: TextPosition(line: 4, column: 1))
      ])
  }
}
