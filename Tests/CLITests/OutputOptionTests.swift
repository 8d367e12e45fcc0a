import Foundation
import Testing

/// Options not covered elsewhere, run through the built binary.
@Suite struct OutputOptionTests {
  private let point = Data(
    #"{"type":"Feature","properties":{"n":1},"geometry":{"type":"Point","coordinates":[1,2]}}"#.utf8
  )

  @Test func rsWritesRecordSeparatorsOnStandardOutput() throws {
    let run = try geopipe(["read", "--rs", "-"], stdin: point)
    #expect(run.status == 0, "\(run)")
    #expect(run.stdout.first == 0x1E)
    #expect(
      run.out.dropFirst()
        == "{\"type\":\"Feature\",\"properties\":{\"n\":1},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}\n"
    )
  }

  @Test func writeRsWritesRecordSeparators() throws {
    try withTemporaryDirectory { dir in
      let out = dir.appendingPathComponent("out.geojsonl")
      let run = try geopipe(["write", "--rs", out.path], stdin: point)
      #expect(run.status == 0, "\(run)")
      #expect(bytes(out).first == 0x1E)
    }
  }

  @Test func progressPrintsCountsWhenAskedEvenWithoutATerminal() throws {
    let run = try geopipe(["read", "--progress", "-"], stdin: point)
    #expect(run.status == 0, "\(run)")
    #expect(run.err.contains("read: 1 features"), "\(run.err)")
    let quiet = try geopipe(["read", "-"], stdin: point)
    #expect(quiet.err.isEmpty, "progress appeared without --progress: \(quiet.err)")
  }

  @Test func geometryNamesTheWKTColumn() throws {
    let csv = Data("id,shape,wkt\n1,\"LINESTRING (1 2, 3 4)\",not wkt\n".utf8)
    let run = try geopipe(["read", "--geometry", "shape", "-"], stdin: csv)
    #expect(run.status == 0, "\(run)")
    #expect(
      run.out
        == "{\"type\":\"Feature\",\"properties\":{\"id\":\"1\",\"wkt\":\"not wkt\"},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2],[3,4]]}}\n"
    )
    let missing = try geopipe(["read", "--geometry", "nope", "-"], stdin: csv)
    #expect(missing.status == 64, "\(missing)")
    #expect(missing.err.contains("--geometry names column \"nope\""), "\(missing.err)")
  }
}
