import Foundation
import Testing

/// `geopipe tiles` size limits, strategies, the max-zoom guess and attribute options through
/// the binary, on the 400 points of Fixtures/tiles/points.geojson; the tiles themselves are
/// checked in GeoPipeTilesTests and by Scripts/test-tile-limits.sh.
@Suite struct TileLimitsTests {
  static let points = CLI.fixtures("tiles/points.geojson")

  func tiles(_ arguments: [String]) throws -> (run: Run, folder: URL) {
    let folder = try makeTemporaryDirectory()
    return (
      try geopipe(["tiles", "p.mbtiles"] + arguments, stdinFile: Self.points, in: folder), folder
    )
  }

  @Test func warnsOfEachTileOverTheLimitsAndWritesIt() throws {
    let (run, folder) = try tiles(["--max-zoom", "3", "--max-tile-features", "50"])
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(run.status == 0, "\(run)")
    #expect(
      run.errLines.contains("warning: tiles: tile 0/0/0 has 360 features, over the limit of 50"))
    #expect(run.errLines.last?.hasPrefix("warning: tiles: 10 tiles over the size limits;") == true)
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("p.mbtiles").path))
    let silent = try tiles(["--max-zoom", "3", "--max-tile-features", "50", "--no-tile-size-limit"])
    defer { try? FileManager.default.removeItem(at: silent.folder) }
    #expect(silent.run.status == 0 && silent.run.err.isEmpty, "\(silent.run)")
  }

  @Test(arguments: ["drop-densest", "drop-fraction", "drop-smallest", "coalesce-densest"])
  func aStrategyNotesWhatEachZoomLost(strategy: String) throws {
    let (run, folder) = try tiles([
      "--max-zoom", "3", "--max-tile-features", "50", "--\(strategy)-as-needed",
    ])
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(run.status == 0, "\(run)")
    let verb = strategy.hasPrefix("coalesce") ? "merged" : "dropped"
    for z in 0...2 {
      #expect(run.errLines.contains { $0.hasPrefix("note: tiles: zoom \(z): \(verb) ") }, "\(run)")
    }
    // Only the highest zoom is left over the limits.
    #expect(!run.err.contains("tile 0/") && !run.err.contains("tile 2/"), "\(run)")
    #expect(run.err.contains("the highest zoom keeps every feature"))
  }

  @Test func guessesTheMaxZoomWithTippecanoesShortOptions() throws {
    let (run, folder) = try tiles(["-zg", "-y", "name,rank", "-q"])
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(run.status == 0 && run.err.isEmpty, "\(run)")
    let noisy = try tiles(["-z", "g", "-X", "-yname"])
    defer { try? FileManager.default.removeItem(at: noisy.folder) }
    #expect(noisy.run.status == 0, "\(noisy.run)")
    #expect(
      noisy.run.errLines.contains {
        $0.hasPrefix("note: tiles: chose --max-zoom 1 for features typically ")
      })
  }

  @Test func aNamedPropertyNoFeatureHasIsAWarningOrWithStrictAnError() throws {
    let (run, folder) = try tiles(["--max-zoom", "1", "--exclude", "rnak"])
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(run.status == 0, "\(run)")
    #expect(
      run.errLines == ["warning: tiles: no feature has a property 'rnak'; did you mean 'rank'?"])
    let strict = try tiles([
      "--max-zoom", "1", "--include", "name", "--attribute-type", "nmae=int", "--strict",
    ])
    defer { try? FileManager.default.removeItem(at: strict.folder) }
    #expect(strict.run.status == 65, "\(strict.run)")
    #expect(strict.run.err.contains("no feature has a property 'nmae'"))
    #expect(
      !FileManager.default.fileExists(
        atPath: strict.folder.appendingPathComponent("p.mbtiles").path))
  }

  @Test(arguments: [
    (["--drop-densest-as-needed", "--drop-fraction-as-needed"], "choose one of"),
    (["--drop-densest-as-needed", "--no-tile-size-limit"], "--no-tile-size-limit turns them off"),
    (["--max-zoom", "25"], "expected a zoom from 0 to 24, or g to guess"),
    (["--drop-rate", "0.5"], "expected a rate of at least 1, or g to guess"),
    (["-T", "rank=number"], "expected one of string, float, int, bool"),
    (["--max-tile-bytes", "0"], "must be positive"),
  ])
  func rejectsOptionsThatDoNotGoTogether(arguments: [String], message: String) throws {
    let (run, folder) = try tiles(arguments)
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(run.status == 64, "\(run)")
    #expect(run.err.contains(message), "\(run)")
  }
}
