import Foundation
import Testing

/// `join`, `clip`, `dissolve` and `explode` on hand-made squares whose answers are known.
@Suite("Overlay stages")
struct OverlayTests {
  static let squares = CLI.fixtures("overlay/squares.geojson")
  static let points = CLI.fixtures("overlay/points.geojsonl")

  private func objects(_ run: Run) throws -> [[String: Any]] {
    try run.outLines.map { line in
      try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }

  private func properties(_ run: Run) throws -> [[String: Any]] {
    try objects(run).map { try #require($0["properties"] as? [String: Any]) }
  }

  @Test func withinGivesAPointOnASharedEdgeToExactlyOnePolygon() throws {
    let run = try geopipe(
      [
        "join", "--with", Self.squares.path, "--predicate", "within", "--fields", "name",
        "--matches", "list",
      ], stdinFile: Self.points)
    #expect(run.status == 0, "\(run)")
    let names = try properties(run).map { $0["name"] as? [String] }
    #expect(names == [["A"], ["A"], [], ["C"]])
    let intersects = try geopipe(
      ["join", "--with", Self.squares.path, "--fields", "name", "--matches", "list"],
      stdinFile: Self.points)
    #expect(
      try properties(intersects).map { $0["name"] as? [String] } == [["A"], ["A", "B"], [], ["C"]])
  }

  @Test func matchesAndMissesAreAsAsked() throws {
    let all = try geopipe(
      [
        "join", "--with", Self.squares.path, "--fields", "name", "--prefix", "sq_", "--matches",
        "all",
      ], stdinFile: Self.points)
    #expect(all.status == 0)
    #expect(try properties(all).map { $0["sq_name"] as? String } == ["A", "A", "B", nil, "C"])
    let count = try geopipe(
      ["join", "--with", Self.squares.path, "--matches", "count"], stdinFile: Self.points)
    #expect(try properties(count).map { $0["join_count"] as? Int } == [1, 2, 0, 1])
    let dropped = try geopipe(
      ["join", "--with", Self.squares.path, "--on-miss", "drop"], stdinFile: Self.points)
    #expect(dropped.status == 0 && dropped.outLines.count == 3)
    #expect(dropped.err.contains("join: dropped 1 feature that matched no feature of"))
    let failed = try geopipe(
      ["join", "--with", Self.squares.path, "--on-miss", "fail"], stdinFile: Self.points)
    #expect(failed.status == 65)
    #expect(failed.err.contains("feature 2: matches no feature of"))
  }

  @Test func nearestFindsTheClosestWithinTheDistance() throws {
    let run = try geopipe(
      [
        "join", "--with", Self.squares.path, "--predicate", "nearest", "--fields", "name",
        "--distance-field", "metres", "--max-distance", "2000km",
      ], stdinFile: Self.points)
    #expect(run.status == 0, "\(run)")
    let found = try properties(run)
    #expect(found.map { $0["name"] as? String } == ["A", "A", "C", "C"])
    #expect(found[0]["metres"] as? Double == 0)
    let far = try #require(found[2]["metres"] as? Double)
    #expect(far > 900_000 && far < 1_100_000)
    // (10, 10) is about 1,000 km from C's corner (6, 1): outside 500 km, inside 2,000 km.
    let near = try geopipe(
      [
        "join", "--with", Self.squares.path, "--predicate", "nearest", "--fields", "name",
        "--max-distance", "500km",
      ], stdinFile: Self.points)
    #expect(try properties(near).map { $0["name"] as? String } == ["A", "A", nil, "C"])
  }

  @Test func unknownFieldsAndClashesAreReported() throws {
    let unknown = try geopipe(
      ["join", "--with", Self.squares.path, "--fields", "nmae"], stdinFile: Self.points)
    #expect(unknown.status == 64)
    #expect(unknown.err.contains("has 'nmae'; did you mean 'name'?"))
    let clash = try geopipe(
      ["join", "--with", Self.squares.path, "--fields", "name"],
      stdin: Data(
        #"{"type":"Feature","properties":{"name":"mine"},"geometry":{"type":"Point","coordinates":[0.5,0.5]}}"#
          .utf8))
    #expect(clash.status == 0)
    #expect(clash.err.contains("join: the input's own 'name' overwritten by the layer's"))
  }

  @Test func clipCutsToABoxAndToALayer() throws {
    let run = try geopipe(["clip", "--bbox", "0.5,0,1.5,1"], stdinFile: Self.squares)
    #expect(run.status == 0, "\(run)")
    let features = try objects(run)
    #expect(features.count == 2)
    #expect(run.err.contains("clip: dropped 1 feature outside the area"))
    let cut = try #require(
      (features[0]["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])
    let xs = cut[0].map { $0[0] }
    #expect(xs.min() == 0.5 && xs.max() == 1)
    let byLayer = try geopipe(["clip", "--with", Self.squares.path], stdinFile: Self.points)
    #expect(
      try properties(byLayer).map { $0["id"] as? String } == [
        "inside-a", "shared-edge", "inside-c",
      ])
    let both = try geopipe(
      ["clip", "--bbox", "0,0,1,1", "--with", Self.squares.path], stdinFile: Self.points)
    #expect(both.status == 64)
  }

  @Test func dissolveMergesEachGroup() throws {
    let run = try geopipe(
      ["dissolve", "--by", "zone", "--aggregate", "pop:sum"], stdinFile: Self.squares)
    #expect(run.status == 0, "\(run)")
    let features = try objects(run)
    let props = try features.map { try #require($0["properties"] as? [String: Any]) }
    #expect(props.map { $0["zone"] as? Int } == [1, 2])
    #expect(props.map { $0["count"] as? Int } == [1, 2])
    #expect(props.map { $0["pop_sum"] as? Int } == [10, 6])
    let merged = try #require(features[1]["geometry"] as? [String: Any])
    #expect(merged["type"] as? String == "MultiPolygon")
    #expect((merged["coordinates"] as? [Any])?.count == 3)
  }

  @Test func explodeGivesOneFeaturePerPart() throws {
    let run = try geopipe(["explode", "--part-field", "part"], stdinFile: Self.squares)
    #expect(run.status == 0, "\(run)")
    let props = try properties(run)
    #expect(props.map { $0["name"] as? String } == ["A", "B", "C", "C"])
    #expect(props.map { $0["part"] as? Int } == [0, 0, 0, 1])
  }
}
