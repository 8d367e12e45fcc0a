import Foundation
import Testing

/// Sharded `sort` (a k-way merge of the shards' sorted parts) and `tiles` (the tile space
/// split into shares, each writing its tiles from every shard's features): shards followed by
/// a merge write what one run writes.
@Suite("Sharded sort and tiles")
struct ShardMergeTests {
  /// A generator of the same numbers on every run (a 64-bit linear congruential generator).
  struct Numbers {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
  }

  /// Points whose `name` has many ties, is missing or null, and whose `v` mixes integers,
  /// decimals, numbers as strings, booleans and missing values.
  static let points: String = {
    var numbers = Numbers(state: 7)
    let names = ["\"b\"", "\"a\"", "\"c\"", "\"10\"", "\"9\"", "\"Z\"", "\"\"", "null"]
    let values = ["1", "2.5", "-3", "1000", "\"7\"", "true", "2.5"]
    var text = ""
    for k in 0..<240 {
      var properties = "\"k\":\(k)"
      if numbers.next(10) < 8 { properties += ",\"name\":\(names[numbers.next(names.count)])" }
      if numbers.next(10) < 8 { properties += ",\"v\":\(values[numbers.next(values.count)])" }
      let x = Double(numbers.next(80_000)) / 1000 - 40
      let y = Double(numbers.next(60_000)) / 1000 - 30
      text +=
        "{\"type\":\"Feature\",\"properties\":{\(properties)},"
        + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(x),\(y)]}}\n"
    }
    return text
  }()

  static let sortPipeline = """
    version: 1
    vars:
      out: out
    stages:
      - {id: points, read: {path: points.geojsonl}}
      - sort: {by: name}
      - write: {path: "${out}/by-name.geojsonl"}
      - {input: points, sort: {by: [v, name], desc: true}}
      - write: {path: "${out}/by-v.geojson"}
      - {input: points, sort: {by-hilbert: true, by: name}}
      - filter: {where: "k > 10"}
      - write: {path: "${out}/hilbert.csv"}
      - {input: points, sort: {by: name, desc: true}}
      - head: 17
      - write: {path: "${out}/last-names.geojsonl"}
      - {input: points, head: 50}
      - filter: {where: "k < 20 or k > 30"}
      - write: {path: "${out}/head-filtered.geojsonl"}
    """

  /// Sorts by a string with ties and missing values, by numbers descending, along the
  /// Hilbert curve, then filtered or cut by head, and a head then filtered: byte-identical
  /// at every shard count.
  @Test func sortMergesTheShardsSortedParts() throws {
    try withTemporaryDirectory { directory in
      try Data(Self.points.utf8).write(to: directory.appendingPathComponent("points.geojsonl"))
      try Data(Self.sortPipeline.utf8).write(to: directory.appendingPathComponent("sort.yaml"))
      try ShardTests.expectShardsMatchOneRun(
        "sort.yaml", counts: [1, 2, 3, 7], in: directory, root: directory)
      let plan = try geopipe(["plan", "sort.yaml", "--shards", "3"], in: directory)
      #expect(plan.status == 0, "\(plan)")
      #expect(
        plan.out.contains("line 6: sort: k-way merge of the shards' sorted parts"), "\(plan.out)")
      #expect(plan.out.contains("line 11: filter: runs in the merge, feature by feature"))
      let json = try geopipe(["plan", "sort.yaml", "--shards", "3", "--json"], in: directory)
      let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
      let steps = (object?["merge"] as? [String: Any])?["steps"] as? [[String: Any]] ?? []
      #expect(
        steps.first?["merge"] as? String
          == "k-way merge of the shards' sorted parts (ties to the lower shard)", "\(steps)")
    }
  }

  /// A property only some shards' features have is no warning in the other shards; one that
  /// no feature has fails the merge with --strict (exit 65), which writes nothing.
  @Test func sortChecksItsPropertiesOverAllTheShards() throws {
    try withTemporaryDirectory { directory in
      var text = ""
      for k in 0..<30 {
        let properties = k == 29 ? "{\"rare\":1}" : "{\"k\":\(k)}"
        text += "{\"type\":\"Feature\",\"properties\":\(properties),\"geometry\":null}\n"
      }
      try Data(text.utf8).write(to: directory.appendingPathComponent("few.geojsonl"))
      for (name, by) in [("rare", "rare"), ("typo", "[rare, raer]")] {
        let pipeline = """
          version: 1
          stages:
            - read: {path: few.geojsonl}
            - sort: {by: \(by), strict: true}
            - write: {path: "\(name)/sorted.geojsonl"}
          """
        try Data(pipeline.utf8).write(to: directory.appendingPathComponent("\(name).yaml"))
        for index in 0..<3 {
          let shard = try geopipe(["run", "\(name).yaml", "--shard", "\(index)/3"], in: directory)
          #expect(shard.status == 0, "\(shard)")
          #expect(!shard.err.contains("no feature has"), "\(shard)")
        }
        let merge = try geopipe(["merge", "\(name).yaml", "--shards", "3"], in: directory)
        let output = directory.appendingPathComponent("\(name)/sorted.geojsonl")
        if name == "rare" {
          #expect(merge.status == 0, "\(merge)")
          #expect(FileManager.default.fileExists(atPath: output.path))
        } else {
          #expect(merge.status == 65, "\(merge)")
          #expect(merge.err.contains("sort: no feature has a property 'raer'"), "\(merge)")
          #expect(!FileManager.default.fileExists(atPath: output.path))
        }
      }
    }
  }

  /// Points, lines and polygons in two layers (one named by a "tippecanoe" member), with
  /// integer ids and properties of every type, and features without geometry.
  static let shapes: String = {
    var numbers = Numbers(state: 11)
    var text = ""
    for k in 0..<300 {
      let x = Double(numbers.next(40_000)) / 1000 - 20
      let y = Double(numbers.next(30_000)) / 1000 - 15
      let geometry: String
      switch numbers.next(40) {
      case 0: geometry = "null"
      case 1..<20: geometry = "{\"type\":\"Point\",\"coordinates\":[\(x),\(y)]}"
      case 20..<30:
        let points = (0..<6).map { "[\(x + Double($0) * 0.7),\(y + Double($0 % 2) * 0.4)]" }
        geometry = "{\"type\":\"LineString\",\"coordinates\":[\(points.joined(separator: ","))]}"
      default:
        let d = Double(numbers.next(3000) + 200) / 1000
        geometry =
          "{\"type\":\"Polygon\",\"coordinates\":[[[\(x),\(y)],[\(x + d),\(y)],"
          + "[\(x + d),\(y + d)],[\(x),\(y + d)],[\(x),\(y)]]]}"
      }
      let value = ["1", "2.5", "-3", "true", "\"x\"", "null"][numbers.next(6)]
      let layer = k % 10 == 3 ? ",\"tippecanoe\":{\"layer\":\"extra\"}" : ""
      text +=
        "{\"type\":\"Feature\",\"id\":\(k),\"properties\":{\"k\":\(k),\"v\":\(value)},"
        + "\"geometry\":\(geometry)\(layer)}\n"
    }
    return text
  }()

  static let tilesPipeline = """
    version: 1
    vars:
      out: out
    stages:
      - read: {path: shapes.geojsonl}
      - tiles: {path: "${out}/shapes.pmtiles", min-zoom: 0, max-zoom: 6}
      - read: {path: shapes.geojsonl}
      - tiles: {path: "${out}/shapes.mbtiles", min-zoom: 1, max-zoom: 5, layer: things}
      - read: {path: three.geojsonl}
      - tiles: {path: "${out}/three.pmtiles", max-zoom: 3}
    """

  /// PMTiles and MBTiles of points, lines and polygons over several zooms, and a tileset of
  /// three features (most of 7 shards have none): the same features per tile, in the same
  /// order and layers, and the same metadata, at every shard count (PMTiles: the same bytes).
  @Test func tilesSplitIntoSharesOfTheTileSpace() throws {
    try withTemporaryDirectory { directory in
      try Data(Self.shapes.utf8).write(to: directory.appendingPathComponent("shapes.geojsonl"))
      let three = Self.shapes.split(separator: "\n").suffix(3).joined(separator: "\n") + "\n"
      try Data(three.utf8).write(to: directory.appendingPathComponent("three.geojsonl"))
      try Data(Self.tilesPipeline.utf8).write(to: directory.appendingPathComponent("tiles.yaml"))
      try ShardTests.expectShardsMatchOneRun(
        "tiles.yaml", counts: [1, 2, 3, 7], in: directory, root: directory)
      let plan = try geopipe(["plan", "tiles.yaml", "--shards", "2"], in: directory)
      #expect(
        plan.out.contains(
          "line 6: tiles out/shapes.pmtiles: copies the tiles of the 2 shares (each tile is in "
            + "one share)"), "\(plan.out)")
      #expect(plan.out.contains("geopipe merge tiles.yaml --shards 2 --tile-share j"))
      #expect(plan.out.contains("out/shapes.mbtiles.step4.share-1-of-2.mbtiles"))
      let json = try geopipe(["plan", "tiles.yaml", "--shards", "2", "--json"], in: directory)
      let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
      let shares = (object?["tiles"] as? [String: Any])?["shares"] as? [[String: Any]]
      #expect(
        shares?.last?["command"] as? [String] == [
          "geopipe", "merge", "tiles.yaml", "--shards", "2", "--tile-share", "1",
        ])
      #expect(
        shares?.last?["parts"] as? [String] == [
          "out/shapes.pmtiles.step2.share-1-of-2.pmtiles",
          "out/shapes.mbtiles.step4.share-1-of-2.mbtiles",
          "out/three.pmtiles.step6.share-1-of-2.pmtiles",
        ])
    }
  }

  /// Writes the test points and `tiles.yaml`, which tiles them into `out/points.pmtiles`.
  static func writePointTiles(in directory: URL, maxZoom: Int) throws {
    try Data(points.utf8).write(to: directory.appendingPathComponent("points.geojsonl"))
    let pipeline = """
      version: 1
      stages:
        - read: {path: points.geojsonl}
        - tiles: {path: out/points.pmtiles, max-zoom: \(maxZoom)}
      """
    try Data(pipeline.utf8).write(to: directory.appendingPathComponent("tiles.yaml"))
  }

  /// The shares of the tiles deal each zoom's tiles out by size, so that their work is even:
  /// of 240 points at zooms 0 to 8 in 2 shares, neither share writes more than 55% of the
  /// placed features; each tile is written by one share.
  @Test func sharesOfTheTilesAreEven() throws {
    try withTemporaryDirectory { directory in
      try Self.writePointTiles(in: directory, maxZoom: 8)
      for index in 0..<2 {
        let shard = try geopipe(["run", "tiles.yaml", "--shard", "\(index)/2"], in: directory)
        #expect(shard.status == 0, "\(shard)")
      }
      var features: [Int] = []
      var tiles: [Set<Substring>] = []
      for share in 0..<2 {
        let run = try geopipe(
          ["merge", "tiles.yaml", "--shards", "2", "--tile-share", "\(share)"], in: directory)
        #expect(run.status == 0, "\(run)")
        let part = "out/points.pmtiles.step2.share-\(share)-of-2.pmtiles"
        let decode = try geopipe(["tiles", "decode", part, "--tile-coordinates"], in: directory)
        let lines = decode.out.split(separator: "\n")
        features.append(lines.count)
        tiles.append(
          Set(
            lines.compactMap { $0.split(separator: "\"tile\":").last?.prefix(while: { $0 != "," }) }
          ))
      }
      let total = features.reduce(0, +)
      #expect(total > 2000, "\(features)")
      #expect(features.allSatisfy { Double($0) <= 0.55 * Double(total) }, "\(features)")
      #expect(tiles[0].isDisjoint(with: tiles[1]), "\(tiles)")
    }
  }

  /// Options that weigh all the features against each other keep `tiles` a single reduce,
  /// and the plan says why.
  @Test(arguments: [
    ("drop-densest-as-needed: true", "--drop-densest-as-needed weighs the features"),
    ("max-zoom: g", "--max-zoom g is guessed"),
    ("base-zoom: 3", "point thinning"),
    ("include: [k]", "--include, --exclude and --attribute-type"),
  ])
  func tilesThatWeighAllFeaturesStayASingleReduce(option: String, reason: String) throws {
    try withTemporaryDirectory { directory in
      let pipeline = """
        version: 1
        stages:
          - read: {path: shapes.geojsonl}
          - tiles: {path: out/shapes.pmtiles, \(option)}
        """
      try Data(pipeline.utf8).write(to: directory.appendingPathComponent("tiles.yaml"))
      let plan = try geopipe(["plan", "tiles.yaml", "--shards", "2"], in: directory)
      #expect(plan.status == 0, "\(plan)")
      #expect(
        plan.out.contains("tiles out/shapes.pmtiles: a single reduce over the shards' features"),
        "\(plan.out)")
      #expect(plan.out.contains(reason), "\(plan.out)")
    }
  }

  /// A share of the tiles before every shard has run, or a merge before every share has, fails
  /// naming what is missing and writes nothing; a share that does not exist is a usage error.
  @Test func tileSharesRefuseMissingParts() throws {
    try withTemporaryDirectory { directory in
      try Self.writePointTiles(in: directory, maxZoom: 3)
      let early = try geopipe(
        ["merge", "tiles.yaml", "--shards", "2", "--tile-share", "1"], in: directory)
      #expect(early.status == 66, "\(early)")
      #expect(
        early.err.contains("part-0-of-2.tilefeatures: the part of shard 0/2 is missing"),
        "\(early)")
      for index in 0..<2 {
        let shard = try geopipe(["run", "tiles.yaml", "--shard", "\(index)/2"], in: directory)
        #expect(shard.status == 0, "\(shard)")
      }
      let beyond = try geopipe(
        ["merge", "tiles.yaml", "--shards", "2", "--tile-share", "2"], in: directory)
      #expect(beyond.status == 64, "\(beyond)")
      #expect(beyond.err.contains("share 2 of the tiles does not exist"), "\(beyond)")
      let share = try geopipe(
        ["merge", "tiles.yaml", "--shards", "2", "--tile-share", "1"], in: directory)
      #expect(share.status == 0, "\(share)")
      let merge = try geopipe(["merge", "tiles.yaml", "--shards", "2"], in: directory)
      #expect(merge.status == 66, "\(merge)")
      #expect(
        merge.err.contains(
          "share-0-of-2.pmtiles: the tiles of share 0/2 are missing: run 'geopipe merge FILE "
            + "--shards 2 --tile-share 0' first"), "\(merge)")
      #expect(
        !FileManager.default.fileExists(
          atPath: directory.appendingPathComponent("out/points.pmtiles").path))
    }
  }

  /// A share of the tiles refuses a features part that is damaged, of another shard, or was
  /// prepared with other options, naming it, and writes nothing.
  @Test func tileSharesRefuseDamagedParts() throws {
    try withTemporaryDirectory { directory in
      try Self.writePointTiles(in: directory, maxZoom: 3)
      for index in 0..<2 {
        let shard = try geopipe(["run", "tiles.yaml", "--shard", "\(index)/2"], in: directory)
        #expect(shard.status == 0, "\(shard)")
      }
      let parts = (0..<2).map {
        directory.appendingPathComponent("out/points.pmtiles.step2.part-\($0)-of-2.tilefeatures")
      }
      let good = try Data(contentsOf: parts[1])
      let share = directory.appendingPathComponent("out/points.pmtiles.step2.share-0-of-2.pmtiles")
      func expectRefused(_ message: String) throws {
        let run = try geopipe(
          ["merge", "tiles.yaml", "--shards", "2", "--tile-share", "0"], in: directory)
        #expect(run.status == 65, "\(run)")
        #expect(
          run.err.contains("points.pmtiles.step2.part-1-of-2.tilefeatures: \(message)"),
          "\(run)")
        #expect(!FileManager.default.fileExists(atPath: share.path))
      }
      try good.prefix(good.count - 9).write(to: parts[1])
      try expectRefused("the part is cut short: run its shard again")
      try Data("{\"type\":\"Feature\"}\n".utf8).write(to: parts[1])
      try expectRefused("not a part of tile features")
      try Data(contentsOf: parts[0]).write(to: parts[1])
      try expectRefused("it holds the features of shard 0/2, not 1/2")
      try good.write(to: parts[1])
      let pipeline = directory.appendingPathComponent("tiles.yaml")
      let text = try String(contentsOf: pipeline, encoding: .utf8)
      try Data(text.replacingOccurrences(of: "max-zoom: 3", with: "max-zoom: 4").utf8).write(
        to: pipeline)
      let other = try geopipe(
        ["merge", "tiles.yaml", "--shards", "2", "--tile-share", "0"], in: directory)
      #expect(other.status == 65, "\(other)")
      #expect(
        other.err.contains(
          "part-0-of-2.tilefeatures: the part was written with other options (min-zoom 0 "
            + "max-zoom 3"), "\(other)")
    }
  }

  /// A tile over the size limits is the warning one run gives, from the merge only.
  @Test func sharedTilesOverTheLimitsWarnAsOneRun() throws {
    try withTemporaryDirectory { directory in
      try Data(Self.points.utf8).write(to: directory.appendingPathComponent("points.geojsonl"))
      let pipeline = """
        version: 1
        vars:
          out: out
        stages:
          - read: {path: points.geojsonl}
          - tiles: {path: "${out}/points.pmtiles", max-zoom: 2, max-tile-features: 100}
        """
      try Data(pipeline.utf8).write(to: directory.appendingPathComponent("tiles.yaml"))
      func warnings(_ run: Run) -> [String] {
        run.err.split(separator: "\n").map(String.init).filter { $0.contains("over the limit") }
      }
      let one = try geopipe(["run", "tiles.yaml", "--var", "out=one"], in: directory)
      #expect(one.status == 0, "\(one)")
      #expect(!warnings(one).isEmpty, "\(one)")
      for index in 0..<3 {
        let shard = try geopipe(
          ["run", "tiles.yaml", "--shard", "\(index)/3", "--var", "out=three"], in: directory)
        #expect(shard.status == 0, "\(shard)")
        #expect(warnings(shard).isEmpty, "\(shard)")
      }
      for share in 0..<3 {
        let tiles = try geopipe(
          [
            "merge", "tiles.yaml", "--shards", "3", "--tile-share", "\(share)", "--var",
            "out=three",
          ], in: directory)
        #expect(tiles.status == 0, "\(tiles)")
        #expect(warnings(tiles).isEmpty, "\(tiles)")
      }
      let merge = try geopipe(
        ["merge", "tiles.yaml", "--shards", "3", "--var", "out=three"], in: directory)
      #expect(merge.status == 0, "\(merge)")
      #expect(warnings(merge) == warnings(one), "\(merge)\n\(one)")
    }
  }
}
