import GeoPipeCore
import GeoPipeIO
import Synchronization
import Testing

@testable import GeoPipeStageKit
@testable import GeoPipeStages

@Suite struct SelectTests {
  private let place = Feature(properties: [
    "name": .string("Paris"), "admin1": .string("Île-de-France"), "country": .string("FR"),
    "population": .string("2138551"), "rank": .integer(3),
  ])

  /// Builds a select stage from command-line words, as the CLI parses them.
  private func select(_ words: [String], context: StageContext? = nil) throws -> SelectStage {
    let parser = ArgumentParser(options: SelectStage.definition.options)
    return try SelectStage(try parser.parse(words), context: context)
  }

  private func run(_ stage: SelectStage, _ feature: Feature) throws -> Feature? {
    var out: [Feature] = []
    try stage.process(feature) { out.append($0) }
    try stage.finish { out.append($0) }
    return out.first
  }

  private func keys(_ feature: Feature?) -> [String] { feature?.properties?.keys ?? [] }

  @Test func keepKeepsTheGivenOrderAndSkipsMissingNames() throws {
    let out = try run(select(["--keep", "population,missing,name,population"]), place)
    #expect(keys(out) == ["population", "name"])
    #expect(out?.properties?["name"] == .string("Paris"))
  }

  @Test func dropRemovesProperties() throws {
    let out = try run(select(["--drop", "admin1,rank,missing"]), place)
    #expect(keys(out) == ["name", "country", "population"])
  }

  @Test func renamesAllAtOnceSoTwoNamesCanSwap() throws {
    let out = try run(select(["--rename", "name=country", "--rename", "country=name"]), place)
    #expect(keys(out) == ["country", "admin1", "name", "population", "rank"])
    #expect(out?.properties?["country"] == .string("Paris"))
    #expect(out?.properties?["name"] == .string("FR"))
  }

  @Test func aRenamedPropertyReplacesOneWithItsNewName() throws {
    let out = try run(select(["--rename", "admin1=name"]), place)
    #expect(keys(out) == ["name", "country", "population", "rank"])
    #expect(out?.properties?["name"] == .string("Île-de-France"))
  }

  @Test func keepAndDropUseTheNamesBeforeRenaming() throws {
    let out = try run(select(["--keep", "name,rank", "--rename", "name=title"]), place)
    #expect(keys(out) == ["title", "rank"])
  }

  @Test func setReadsTheInputSoItsSourcesCanBeDropped() throws {
    let out = try run(
      select(["--set", "label={name}, {admin1}", "--drop", "admin1,name"]), place)
    #expect(keys(out) == ["country", "population", "rank", "label"])
    #expect(out?.properties?["label"] == .string("Paris, Île-de-France"))
  }

  @Test func setFormatsNumbersInNumericStrings() throws {
    let out = try run(select(["--set", "people={population:,}"]), place)
    #expect(out?.properties?["people"] == .string("2,138,551"))
  }

  @Test func resultsReplaceInPlaceOrAppendInTheOrderGiven() throws {
    let out = try run(
      select([
        "--set", "z=last", "--set", "name={name}!", "--compute", "rank=rank * 10",
        "--compute", "a=1",
      ]), place)
    #expect(keys(out) == ["name", "admin1", "country", "population", "rank", "z", "a"])
    #expect(out?.properties?["name"] == .string("Paris!"))
    #expect(out?.properties?["rank"] == .integer(30))
    #expect(out?.properties?["z"] == .string("last"))
    #expect(out?.properties?["a"] == .integer(1))
  }

  @Test func resultsAreStoredAfterRenamingUnderTheirOwnNames() throws {
    let out = try run(
      select(["--keep", "name", "--rename", "name=title", "--set", "name={name}?"]), place)
    #expect(keys(out) == ["title", "name"])
    #expect(out?.properties?["name"] == .string("Paris?"))
  }

  @Test func computeWorksOnNumericStrings() throws {
    let out = try run(
      select([
        "--compute", "thousands=population / 1000", "--compute", "more=population + 1",
        "--compute", "big=population > 1000000", "--compute", "bad=name * 2",
      ]), place)
    #expect(out?.properties?["thousands"] == .double(2138.551))
    #expect(out?.properties?["more"] == .integer(2_138_552))
    #expect(out?.properties?["big"] == .bool(true))
    #expect(out?.properties?["bad"] == .null)
  }

  @Test func featuresWithoutPropertiesGetOnlyAssignments() throws {
    let bare = Feature(properties: nil)
    #expect(try run(select(["--keep", "name"]), bare)?.properties == nil)
    let out = try run(select(["--set", "label=x{name}", "--compute", "n=name"]), bare)
    #expect(out?.properties == ["label": .string("x"), "n": .null])
  }

  @Test func warnsOnceAboutTemplateFieldsThatWereMissing() throws {
    let messages = Mutex<[String]>([])
    let context = StageContext(
      diagnostics: { d in messages.withLock { $0.append(d.description) } },
      standardOutput: { _ in })
    let stage = try select(
      ["--set", "label={name}, {region}", "--set", "n={name}"], context: context)
    var out: [Feature] = []
    for feature in [place, place, Feature(properties: ["name": .null])] {
      try stage.process(feature) { out.append($0) }
    }
    try stage.finish { out.append($0) }
    #expect(
      out.map { $0.properties?["label"] } == [
        .string("Paris, "), .string("Paris, "), .string(", "),
      ])
    #expect(
      messages.withLock { $0 } == [
        "warning: select: no feature has a property 'region'",
        "warning: select --set label: the template's property 'region' (or another that it "
          + "names) is missing or null in 3 features; it was left empty",
        "warning: select --set n: the template's property 'name' is missing or null in 1 "
          + "feature; it was left empty",
      ])
  }

  @Test(arguments: [
    (["--rename", "a=x", "--rename", "b=x"], "both 'a' and 'b' are renamed to 'x'"),
    (["--rename", "a=x", "--rename", "a=y"], "'a' is renamed twice"),
    ([], "select needs at least one of"),
  ])
  func rejectsAmbiguousOrEmptySelections(words: [String], fragment: String) {
    do {
      _ = try select(words)
      Issue.record("\(words) was accepted")
    } catch {
      #expect("\(error)".contains(fragment), "\(error)")
    }
  }

  // Offsets count from the start of KEY=VALUE; nil where the template decides.
  @Test(arguments: [
    ("set", "label={name", "unclosed '{'", 6),
    ("set", "label={name:x}", "unknown number format", nil),
    ("compute", "k=population /", "expected a property or a value", 14),
    ("compute", "k=a + (b", "expected ')'", 8),
    ("compute", "k=marker-size * 2", "double quotes (\"marker-size\")", 2),
    ("rename", "a=", "the new name is empty", 2),
  ])
  func checksValuesBeforeAnythingRuns(option: String, text: String, fragment: String, at: Int?)
    throws
  {
    let spec = try #require(SelectStage.definition.option(option))
    do {
      _ = try spec.value(from: text)
      Issue.record("\(text) was accepted")
    } catch {
      #expect(error.message.contains(fragment), "\(error.message)")
      if let at { #expect(error.offset == at) }
    }
  }
}
