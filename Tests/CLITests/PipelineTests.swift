import Foundation
import Testing

/// `geopipe run` and `geopipe check` on pipeline files.
@Suite("Pipeline files")
struct PipelineTests {
  static let errorFolder = CLI.fixtures("pipelines/errors")
  static let goldenFolder = CLI.fixtures("pipelines/golden")

  static var errorFiles: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: errorFolder.path)) ?? []
    return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".json") }.sorted()
  }

  /// Each file in `Fixtures/pipelines/errors` holds several mistakes; `check` reports them all
  /// (the `.expected` file beside it) and exits 78, and `run` reports the same and writes
  /// nothing.
  @Test(arguments: errorFiles)
  func reportsEveryError(file: String) throws {
    let expectedErrors = text(
      Self.errorFolder.appendingPathComponent(
        (file as NSString).deletingPathExtension + ".expected"))
    let check = try geopipe(["check", file], in: Self.errorFolder)
    #expect(check.status == 78, "\(check)")
    #expect(check.err == expectedErrors)
    #expect(check.out.isEmpty)
    try withTemporaryDirectory { directory in
      let copy = directory.appendingPathComponent(file)
      try Data(contentsOf: Self.errorFolder.appendingPathComponent(file)).write(to: copy)
      let places = directory.appendingPathComponent("places.csv")
      try Data(contentsOf: CLI.fixtures("places/places.csv")).write(to: places)
      let run = try geopipe(["run", file], in: directory)
      #expect(run.status == 78, "\(run)")
      #expect(run.err == expectedErrors)
      let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
      #expect(left == ["places.csv", file].sorted())
    }
  }

  /// The pipelines in `Pipelines/` give the outputs stored in `Fixtures/pipelines/golden`.
  @Test(arguments: [
    "csv-to-geojson.yaml", "csv-to-geojson.json", "filter-select-style.yaml", "branching.yaml",
    "demo.yaml", "clusters.yaml", "join-and-dissolve.yaml",
  ])
  func examplePipelinesMatchTheirGoldenOutputs(file: String) throws {
    let name = (file as NSString).deletingPathExtension + (file.hasSuffix(".json") ? "-json" : "")
    let golden = Self.goldenFolder.appendingPathComponent(name)
    try withTemporaryDirectory { directory in
      // The demo geocodes against the default gazetteer: the one the tests build.
      let environment =
        file == "demo.yaml" ? ["GEOPIPE_GAZETTEER": try TestGazetteer.path.get()] : [:]
      let run = try geopipe(
        ["run", "Pipelines/\(file)", "--var", "out=\(directory.path)"], in: CLI.root,
        environment: environment)
      #expect(run.status == 0, "\(run)")
      let produced = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
      if ProcessInfo.processInfo.environment["GEOPIPE_UPDATE_GOLDENS"] != nil {
        try? FileManager.default.removeItem(at: golden)
        try FileManager.default.createDirectory(at: golden, withIntermediateDirectories: true)
        for output in produced {
          try Data(contentsOf: directory.appendingPathComponent(output))
            .write(to: golden.appendingPathComponent(output))
        }
      }
      let expected = try FileManager.default.contentsOfDirectory(atPath: golden.path).sorted()
      #expect(produced == expected)
      for output in expected {
        #expect(
          bytes(directory.appendingPathComponent(output))
            == bytes(golden.appendingPathComponent(output)), "\(file): \(output)")
      }
    }
  }

  /// A pipeline with a branch writes the same bytes as the same stages run as piped
  /// subcommands.
  @Test func runMatchesPipedSubcommands() throws {
    try withTemporaryDirectory { directory in
      try Data(contentsOf: CLI.fixtures("places/places.csv"))
        .write(to: directory.appendingPathComponent("places.csv"))
      let pipeline = """
        version: 1
        stages:
          - {id: src, read: {path: places.csv, infer-types: true}}
          - filter: {where: "population > 2000000 and country != 'CN'"}
          - select: {drop: [admin1], set: {label: "{name}, {country}"}}
          - style: {marker-color: "#d33", title: "{label}", marker-size: medium}
          - sort: {by: [country, population], desc: true}
          - write: {path: a.geojson}
          - {input: src, filter: {bbox: "-10,35,30,60"}}
          - head: {n: 7}
          - write: {path: b.csv}
          - {input: src, write: {path: c.geojsonl}}
        """
      try Data(pipeline.utf8).write(to: directory.appendingPathComponent("p.yaml"))
      let run = try geopipe(["run", "p.yaml"], in: directory)
      #expect(run.status == 0, "\(run)")
      let piped = try shell(
        """
        set -e
        $GEOPIPE read --infer-types places.csv > src.geojsonl
        $GEOPIPE filter --where "population > 2000000 and country != 'CN'" < src.geojsonl \
          | $GEOPIPE select --drop admin1 --set 'label={name}, {country}' \
          | $GEOPIPE style --marker-color '#d33' --title '{label}' --marker-size medium \
          | $GEOPIPE sort --by country,population --desc | $GEOPIPE write a2.geojson
        $GEOPIPE filter --bbox -10,35,30,60 < src.geojsonl | $GEOPIPE head 7 \
          | $GEOPIPE write b2.csv
        $GEOPIPE write c2.geojsonl < src.geojsonl
        """, in: directory)
      #expect(piped.status == 0, "\(piped)")
      for name in ["a.geojson", "b.csv", "c.geojsonl"] {
        let twin = name.replacingOccurrences(of: ".", with: "2.")
        let ours = bytes(directory.appendingPathComponent(name))
        #expect(!ours.isEmpty)
        #expect(ours == bytes(directory.appendingPathComponent(twin)), "\(name)")
      }
    }
  }

  /// Variables come from the file, `--var` and the environment; `$${` is a literal `${`; the
  /// last stage's features go to standard output when it does not write a file.
  @Test func variablesAndStandardOutput() throws {
    try withTemporaryDirectory { directory in
      try Data(contentsOf: CLI.fixtures("places/places.csv"))
        .write(to: directory.appendingPathComponent("places.csv"))
      let pipeline = """
        version: 1
        vars: {file: nothing.csv, country: "NO"}
        stages:
          - read: "${file}"
          - filter: {where: "country = '${country}'"}
          - select: {keep: [name], set: {note: "$${literal} {name}", home: "${env.PIPE_TEST_HOME}"}}
        """
      try Data(pipeline.utf8).write(to: directory.appendingPathComponent("p.yaml"))
      let run = try geopipe(
        ["run", "p.yaml", "--var", "file=places.csv"], in: directory,
        environment: ["PIPE_TEST_HOME": "h"])
      #expect(run.status == 0, "\(run)")
      #expect(run.outLines.count == 1)
      #expect(
        run.out.contains(#""properties":{"name":"Oslo","note":"${literal} Oslo","home":"h"}"#))
      let elsewhere = """
        version: 1
        vars: {file: "${pipeline_dir}/places.csv"}
        stages: [{read: "${file}"}, head: 1]
        """
      let folder = directory.appendingPathComponent("sub")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data(elsewhere.utf8).write(to: folder.appendingPathComponent("p.yaml"))
      try FileManager.default.moveItem(
        at: directory.appendingPathComponent("places.csv"),
        to: folder.appendingPathComponent("places.csv"))
      let dir = try geopipe(["run", "sub/p.yaml"], in: directory)
      #expect(dir.outLines.count == 1)
      #expect(dir.status == 0, "\(dir)")
    }
  }

  /// A run that fails on bad data exits 65 and leaves none of its output files.
  @Test func failedRunLeavesNoOutput() throws {
    try withTemporaryDirectory { directory in
      let csv = "name,lat,lon\nA,10,20\nB,95,20\n"
      try Data(csv.utf8).write(to: directory.appendingPathComponent("bad.csv"))
      let pipeline = """
        version: 1
        stages:
          - {id: src, read: bad.csv}
          - write: a.geojson
          - {input: src, write: b.csv}
        """
      try Data(pipeline.utf8).write(to: directory.appendingPathComponent("p.yaml"))
      let run = try geopipe(["run", "p.yaml"], in: directory)
      #expect(run.status == 65, "\(run)")
      #expect(run.err.contains("bad.csv:3:"))
      let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
      #expect(left == ["bad.csv", "p.yaml"])
    }
  }

  /// A missing pipeline file is exit 66, not a pipeline error.
  @Test func missingFileCannotBeOpened() throws {
    let run = try geopipe(["check", "no-such-pipeline.yaml"])
    #expect(run.status == 66)
    #expect(run.err.contains("no-such-pipeline.yaml: no such file"))
  }
}
