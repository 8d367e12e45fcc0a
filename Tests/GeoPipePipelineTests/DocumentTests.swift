import Testing

@testable import GeoPipePipeline

@Suite struct DocumentTests {
  private func yaml(_ text: String) -> (DocumentNode?, [DocumentProblem]) {
    let result = YAMLReader.read(Array(text.utf8))
    return (result.root, result.problems)
  }

  @Test func scalarsKeepTheirTextAndPlace() throws {
    let (root, problems) = yaml("a: NO\nb: 007\nc: 'x y'\nd: ~\né: {k: v}\n")
    #expect(problems.isEmpty)
    let entries = try #require(root?.entries)
    #expect(entries.map(\.name) == ["a", "b", "c", "d", "é"])
    #expect(entries[0].value.scalarText == "NO")
    #expect(entries[1].value.scalarText == "007")
    #expect(entries[2].value.position == TextPosition(line: 3, column: 4))
    #expect(entries[2].value.textPosition == TextPosition(line: 3, column: 5))
    #expect(entries[3].value.isNull)
    #expect(!entries[2].value.isNull)
    #expect(entries[4].value.isFlow)
    // Columns count characters, not bytes.
    let inner = try #require(entries[4].value.entries?.first)
    #expect(inner.value.position == TextPosition(line: 5, column: 8))
  }

  @Test func duplicateKeysAreReportedAtTheRepeat() {
    let (_, problems) = yaml("stages:\n  - read: {path: a, path: b}\n")
    #expect(
      problems == [
        DocumentProblem(
          "duplicate key 'path' (first at line 2, column 12)",
          at: TextPosition(line: 2, column: 21))
      ])
  }

  @Test func syntaxErrorsPointAtTheProblem() {
    let (root, problems) = yaml("a: [1, 2\nb: 3\n")
    #expect(root == nil)
    #expect(problems.count == 1)
    #expect(problems.first?.message.hasPrefix("YAML syntax error:") == true)
  }

  @Test func aliasesCopyTheAnchoredNode() throws {
    let (root, problems) = yaml("a: &x {k: 1}\nb: *x\n")
    #expect(problems.isEmpty)
    #expect(root?.entries?[1].value.entries?.first?.name == "k")
  }

  @Test func jsonAcceptsTabsAndEscapes() throws {
    let (root, problems) = JSONDocumentReader.read(
      "{\n\t\"a\": \"x\\/y\\u00e9\",\n\t\"b\": [1, true, null]\n}")
    #expect(problems.isEmpty)
    let entries = try #require(root?.entries)
    #expect(entries[0].value.scalarText == "x/yé")
    #expect(entries[1].key.position == TextPosition(line: 3, column: 2))
    guard case .sequence(let items) = entries[1].value.content else {
      Issue.record("expected a list")
      return
    }
    #expect(items.map(\.scalarText) == ["1", "true", "null"])
    #expect(items[2].isNull)
  }

  @Test(arguments: [
    ("{\"a\": }", 1, 7), ("{\"a\": 1,\n \"b\" 2}", 2, 6), ("[1, 2", 1, 6), ("{\"a\": tru}", 1, 7),
  ])
  func jsonSyntaxErrors(text: String, line: Int, column: Int) {
    let (root, problems) = JSONDocumentReader.read(text)
    #expect(root == nil)
    #expect(problems.last?.position == TextPosition(line: line, column: column))
  }

  @Test func variablesSubstituteAndReport() {
    let variables = Variables(values: ["a": "1"], environment: ["HOME": "/h"])
    let ok = variables.substitute("x${a}-${env.HOME}-$${a}-$5")
    #expect(ok.text == "x1-/h-${a}-$5")
    #expect(ok.problems.isEmpty)
    let bad = variables.substitute("ab${b}${env.NOPE}${a")
    #expect(bad.problems.map(\.offset) == [2, 6, 17])
  }
}
