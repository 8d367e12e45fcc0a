import Foundation
import Testing

/// `geopipe cluster` through the binary, on GeoNames cities15000 with supercluster 8.0.1's
/// answers (Fixtures/cluster/cities15000).
@Suite("cluster command")
struct ClusterTests {
  static let input = CLI.fixtures("cluster/cities15000/cities15000.geojson.gz")

  private func ids(_ run: Run, key: String) -> [Int] {
    run.outLines.compactMap { line in
      guard let data = line.data(using: .utf8),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let properties = object["properties"] as? [String: Any]
      else { return nil }
      return (properties[key] ?? properties["cluster_id"]) as? Int
    }
  }

  @Test func writesTheClustersOfAZoom() throws {
    let run = try geopipe(["cluster", "--zoom", "3"], stdinFile: Self.input)
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.count == 691)
    #expect(
      run.outLines.first?.hasPrefix(
        #"{"type":"Feature","id":39709,"properties":{"cluster":true,"cluster_id":39709,"point_count":58,"point_count_abbreviated":58}"#
      ) == true)
    #expect(run.err.contains("3 features without geometry left out"))
  }

  @Test func exactOrderWritesTheSameClusters() throws {
    let fast = try geopipe(["cluster", "--zoom", "5", "-q"], stdinFile: Self.input)
    let exact = try geopipe(
      ["cluster", "--zoom", "5", "--exact-order", "-q"], stdinFile: Self.input)
    #expect(fast.status == 0 && exact.status == 0, "\(fast) \(exact)")
    #expect(fast.outLines.count > 1000)
    #expect(fast.out == exact.out)
  }

  @Test func answersClusterQueries() throws {
    let leaves = try geopipe(
      ["cluster", "--leaves", "34650", "--limit", "5", "--offset", "3"], stdinFile: Self.input)
    #expect(leaves.status == 0, "\(leaves)")
    #expect(
      ids(leaves, key: "geonameid") == [1_281_105, 7_348_465, 7_348_380, 12_359_299, 1_802_441])
    let children = try geopipe(["cluster", "--children", "34650"], stdinFile: Self.input)
    #expect(ids(children, key: "cluster_id") == [36155, 36027, 35835])
    let zoom = try geopipe(["cluster", "--expansion-zoom", "34650"], stdinFile: Self.input)
    #expect(zoom.out == "{\"cluster_id\":34650,\"expansion_zoom\":1}\n")
    let all = try geopipe(["cluster", "--leaves", "34650", "-q"], stdinFile: Self.input)
    #expect(all.outLines.count == 5493)
  }

  /// Each cluster of --all-zooms carries its expansion zoom: 1 for cluster 34650, as
  /// supercluster's getClusterExpansionZoom answers, and for every cluster the zoom after the
  /// last one it is seen at.
  @Test func allZoomsCarriesExpansionZooms() throws {
    let run = try geopipe(["cluster", "--all-zooms", "-q"], stdinFile: Self.input)
    #expect(run.status == 0, "\(run)")
    var clusters = 0
    for line in run.outLines {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let properties = try #require(object["properties"] as? [String: Any])
      guard let id = properties["cluster_id"] as? Int else { continue }
      clusters += 1
      let zooms = try #require(object["tippecanoe"] as? [String: Int])
      let expansion = try #require(properties["expansion_zoom"] as? Int)
      #expect(expansion == (zooms["maxzoom"] ?? -1) + 1)
      if id == 34650 { #expect(expansion == 1) }
    }
    #expect(clusters > 20_000)
  }

  /// supercluster's getTile: 91 items in 3/4/2, none in 9/270/180, and 40 in 0/0/0, which
  /// wraps around the antimeridian on both sides.
  @Test(arguments: [("3/4/2", 91), ("9/270/180", 0), ("0/0/0", 40)])
  func writesTheItemsOfATile(tile: String, count: Int) throws {
    let run = try geopipe(["cluster", "--tile", tile, "-q"], stdinFile: Self.input)
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.count == count)
  }

  @Test func rejectsWhatItCannotAnswer() throws {
    let none = try geopipe(["cluster"], stdin: Data())
    #expect(none.status == 64)
    #expect(none.err.contains("give one of --zoom Z, --all-zooms"))
    let unknown = try geopipe(["cluster", "--children", "12"], stdinFile: Self.input)
    #expect(unknown.status == 65)
    #expect(unknown.err.contains("no cluster with id 12"))
    let polygon =
      #"{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}"#
    let refused = try geopipe(["cluster", "--zoom", "2"], stdin: Data(polygon.utf8))
    #expect(refused.status == 65)
    #expect(refused.err.contains("--points centroid"))
    let centroid = try geopipe(
      ["cluster", "--zoom", "2", "--points", "centroid"], stdin: Data(polygon.utf8))
    #expect(centroid.status == 0)
    #expect(centroid.outLines.count == 1)
  }
}
