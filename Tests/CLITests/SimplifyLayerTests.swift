import Foundation
import Testing

/// simplify as mapshaper users know it, through the binary: --percentage over the layer,
/// --shared-borders, --method visvalingam and weighted-visvalingam, --keep-shapes and the
/// option combinations refused. (Scripts/test-simplify.sh checks the same against a reference
/// implementation and the full US states with GEOS.)
@Suite struct SimplifyLayerTests {
  static let sample = GeometryTests.folder.appendingPathComponent(
    "us_states_500k_sample.geojson.gz")

  /// Every position of a geometry as "x,y".
  static func positions(_ geometry: JSON?) -> [String] {
    func walk(_ value: JSON) -> [String] {
      guard let items = value.array else { return [] }
      if let x = items.first?.number, let y = items.dropFirst().first?.number {
        return ["\(x),\(y)"]
      }
      return items.flatMap(walk)
    }
    return geometry?["coordinates"].map(walk) ?? []
  }

  static func state(_ features: [JSON], _ name: String) -> JSON? {
    features.first { $0["properties"]?["NAME"]?.string == name }?["geometry"]
  }

  @Test func sharedBordersKeepNeighboursMeetingExactly() throws {
    let original = try JSON.parseSequence(try geopipe(["read", Self.sample.path]).stdout)
    let shared = Set(Self.positions(Self.state(original, "Connecticut"))).intersection(
      Self.positions(Self.state(original, "Rhode Island")))
    #expect(shared.count > 50, "Connecticut and Rhode Island share \(shared.count) positions")
    for words in [
      ["--percentage", "5%"], ["--percentage", "20%", "--method", "visvalingam"],
      ["--percentage", "3%", "--method", "dp"], ["--tolerance", "0.01"],
    ] {
      let run = try geopipe(["simplify", "--shared-borders"] + words, stdinFile: Self.sample)
      #expect(run.status == 0, "\(run)")
      let out = try JSON.parseSequence(run.stdout)
      #expect(out.count == 6, "\(words)")
      let connecticut = Set(Self.positions(Self.state(out, "Connecticut"))).intersection(shared)
      let rhodeIsland = Set(Self.positions(Self.state(out, "Rhode Island"))).intersection(shared)
      #expect(connecticut == rhodeIsland, "\(words): the border differs between the two states")
      #expect(connecticut.count >= 2 && connecticut.count < shared.count, "\(words)")
    }
    // Feature by feature the border is simplified twice, differently.
    let apart = try JSON.parseSequence(
      try geopipe(["simplify", "--percentage", "5%"], stdinFile: Self.sample).stdout)
    #expect(
      Set(Self.positions(Self.state(apart, "Connecticut"))).intersection(shared)
        != Set(Self.positions(Self.state(apart, "Rhode Island"))).intersection(shared))
  }

  @Test func percentageKeepsThatShareOfTheLayer() throws {
    // 7,340 positions; every ring's first and closing positions stay, and 5% of the rest
    // (Scripts/simplify-reference.py, written apart, keeps the same 389 positions).
    let run = try geopipe(["simplify", "--percentage", "5%"], stdinFile: Self.sample)
    #expect(run.status == 0, "\(run)")
    let out = try JSON.parseSequence(run.stdout)
    #expect(out.reduce(0) { $0 + GeometryTests.vertexCount($1["geometry"]) } == 389)
    // A plain number is a percentage too, and 100% keeps every position.
    let same = try geopipe(["simplify", "--percentage", "5"], stdinFile: Self.sample)
    #expect(same.stdout == run.stdout)
    let all = try geopipe(
      ["simplify", "--percentage", "100%", "--method", "visvalingam"], stdinFile: Self.sample)
    let read = try geopipe(["read", Self.sample.path])
    #expect(all.stdout == read.stdout)
  }

  @Test func keepShapesKeepsEverySmallIsland() throws {
    let plain = try geopipe(
      ["simplify", "--percentage", "1%", "--method", "visvalingam"], stdinFile: Self.sample)
    let kept = try geopipe(
      ["simplify", "--percentage", "1%", "--method", "visvalingam", "--keep-shapes"],
      stdinFile: Self.sample)
    #expect(plain.status == 0 && kept.status == 0, "\(plain)\n\(kept)")
    func polygons(_ run: Run) throws -> Int {
      try JSON.parseSequence(run.stdout).reduce(0) { total, feature in
        let geometry = feature["geometry"]
        return total
          + (geometry?["type"]?.string == "MultiPolygon"
            ? geometry?["coordinates"]?.array?.count ?? 0 : 1)
      }
    }
    let original = try geopipe(["read", Self.sample.path])
    #expect(try polygons(kept) == polygons(original))
    #expect(try polygons(plain) < polygons(original))
  }

  @Test(
    "refuses options that do not go together",
    arguments: [
      (["--tolerance", "10%"], "use --percentage 10%"),
      ([], "give --tolerance"),
      (["--tolerance", "0.1", "--percentage", "5%"], "not both"),
      (["--percentage", "5%", "--method", "topology"], "feature by feature"),
      (["--shared-borders", "--tolerance", "100m"], "degrees"),
      (["--percentage", "5%", "--method", "visvalingam", "--weighting", "1"], "--weighting"),
      (["--percentage", "120%"], "0% to 100%"),
      (["--percentage", "5%", "--weighting", "-1"], "--weighting"),
    ])
  func refusesOptionsThatDoNotGoTogether(_ words: [String], _ message: String) throws {
    let run = try geopipe(["simplify"] + words, stdin: Data())
    #expect(run.status == 64, "\(run)")
    #expect(run.err.contains(message), "\(run.err)")
  }

  @Test func runsInAPipelineFile() throws {
    try withTemporaryDirectory { directory in
      let pipeline = """
        version: 1
        stages:
          - read: {path: "\(Self.sample.path)"}
          - simplify: {percentage: 5%, shared-borders: true, method: weighted-visvalingam, weighting: 0.5}
          - write: {path: out.geojsonl}

        """
      try Data(pipeline.utf8).write(to: directory.appendingPathComponent("p.yaml"))
      let run = try geopipe(["run", "p.yaml"], in: directory)
      #expect(run.status == 0, "\(run)")
      let command = try geopipe(
        [
          "simplify", "--percentage", "5%", "--shared-borders", "--method",
          "weighted-visvalingam", "--weighting", "0.5",
        ], stdinFile: Self.sample)
      // 'write' winds rings as RFC 7946 asks; the positions are the same.
      let written = try JSON.parseSequence(bytes(directory.appendingPathComponent("out.geojsonl")))
      let piped = try JSON.parseSequence(command.stdout)
      #expect(written.count == 6 && piped.count == 6)
      #expect(
        written.map { Set(Self.positions($0["geometry"])) }
          == piped.map { Set(Self.positions($0["geometry"])) })
      #expect(
        written.map { GeometryTests.vertexCount($0["geometry"]) }
          == piped.map { GeometryTests.vertexCount($0["geometry"]) })
    }
  }
}
