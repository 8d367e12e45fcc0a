import GeoPipeCore
import Testing

@testable import GeoPipeStageKit
@testable import GeoPipeStages

@Suite struct HeadTests {
  private func head(_ words: [String], count: Int) throws -> [Int64] {
    let parser = ArgumentParser(options: HeadStage.definition.options)
    let values = try parser.parse(words)
    guard case .stage(let stage) = try HeadStage.definition.make(values, context) else {
      Issue.record("head is not a stage")
      return []
    }
    var out: [Int64] = []
    let emit: Emit = { feature in
      if case .integer(let i)? = feature.properties?["i"] { out.append(i) }
    }
    for i in 0..<count {
      try stage.process(Feature(properties: ["i": .integer(Int64(i))]), emit: emit)
    }
    try stage.finish(emit: emit)
    return out
  }

  private let context = StageContext(diagnostics: { _ in }, standardOutput: { _ in })

  @Test func keepsTheFirstFeatures() throws {
    #expect(try head(["3"], count: 10) == [0, 1, 2])
    #expect(try head(["3"], count: 2) == [0, 1])
  }

  @Test func keepsTenByDefault() throws {
    #expect(try head([], count: 25) == Array(0..<10))
  }

  @Test func zeroKeepsNone() throws {
    #expect(try head(["0"], count: 5) == [])
  }

  @Test(arguments: ["-1", "-100"])
  func rejectsANegativeCount(text: String) throws {
    let spec = try #require(HeadStage.definition.option("n"))
    do {
      _ = try spec.value(from: text)
      Issue.record("\(text) was accepted")
    } catch {
      #expect(error.message == "expected a whole number, 0 or more")
    }
  }
}
