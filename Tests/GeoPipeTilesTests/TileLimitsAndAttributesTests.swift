import GeoPipeMercator
import Testing

@testable import GeoPipeTiles

@Suite struct TileSizeLimitsTests {
  @Test func defaultsAreTippecanoes() {
    let limits = TileSizeLimits()
    #expect(limits.maxBytes == 500_000)
    #expect(limits.maxFeatures == 200_000)
    #expect(!limits.isDisabled)
  }

  @Test(arguments: [
    (500_000, 200_000, false), (500_001, 10, true), (10, 200_001, true), (0, 0, false),
  ])
  func checksBothLimitsInclusively(bytes: Int, features: Int, over: Bool) {
    #expect((TileSizeLimits().violation(bytes: bytes, features: features) != nil) == over)
  }

  @Test func disabledLimitsPassEveryTile() {
    let limits = TileSizeLimits(isDisabled: true)
    #expect(limits.violation(bytes: 9_000_000, features: 9_000_000) == nil)
  }

  @Test func warningNamesTheTileAndEachLimit() throws {
    let limits = TileSizeLimits(maxBytes: 100, maxFeatures: 5)
    let both = try #require(limits.violation(bytes: 250, features: 6))
    #expect(
      both.warning(tile: TileID(unchecked: 3, 4, 5))
        == "tile 3/4/5 is 250 bytes, over the limit of 100 and has 6 features, over the limit of 5"
    )
    let bytes = try #require(limits.violation(bytes: 101, features: 5))
    #expect(
      bytes.warning(tile: TileID(unchecked: 0, 0, 0))
        == "tile 0/0/0 is 101 bytes, over the limit of 100")
  }
}

@Suite struct TileAttributeFilterTests {
  @Test func keepsEverythingByDefault() {
    let filter = TileAttributeFilter()
    #expect(filter.keepsAll)
    #expect(filter.keeps("name"))
  }

  @Test func includeKeepsOnlyItsNames() {
    let filter = TileAttributeFilter(include: ["name", "pop"])
    #expect(filter.keeps("name") && filter.keeps("pop"))
    #expect(!filter.keeps("kind"))
  }

  @Test func excludeRemovesItsNames() {
    let filter = TileAttributeFilter(exclude: ["kind"])
    #expect(!filter.keeps("kind"))
    #expect(filter.keeps("name"))
  }

  @Test func excludeAllKeepsOnlyIncludedNames() {
    #expect(!TileAttributeFilter(excludeAll: true).keeps("name"))
    let filter = TileAttributeFilter(include: ["name"], exclude: ["name", "x"], excludeAll: true)
    #expect(!filter.keeps("name"))
    #expect(TileAttributeFilter(include: ["pop"], excludeAll: true).keeps("pop"))
  }

  @Test func reportsNamesNoInputHas() {
    let filter = TileAttributeFilter(include: ["name", "populaton"], exclude: ["zz"])
    #expect(filter.unmatched(among: ["name", "population"]) == ["populaton", "zz"])
    #expect(filter.unmatched(among: ["name", "populaton", "zz"]).isEmpty)
  }
}
