import Foundation
import Testing

/// `geopipe layers` and `--layer` on files with one layer.
@Suite("Layers")
struct LayersTests {
  @Test func aSingleLayerFileIsDescribedByReadingIt() throws {
    let run = try geopipe(["layers", CLI.fixtures("overlay/squares.geojson").path])
    #expect(run.status == 0, "\(run)")
    #expect(
      run.out.hasSuffix(
        """
        squares.geojson: GeoJSON, 1 layer
          squares: Mixed (Polygon, MultiPolygon), 3 features, EPSG:4326
            bounds: 0,0,6,1
            name: string
            zone: integer
            pop: integer

        """))
    let json = try geopipe(["layers", "--json", CLI.fixtures("overlay/squares.geojson").path])
    let layers = try #require(
      JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
    #expect(layers.count == 1)
    #expect(layers[0]["count"] as? Int == 3)
    #expect((layers[0]["fields"] as? [String: String])?["zone"] == "integer")
  }

  @Test func aLayerThatIsNotThereIsAnErrorNotIgnored() throws {
    let path = CLI.fixtures("overlay/squares.geojson").path
    let wrong = try geopipe(["info", "--layer", "roads", path])
    #expect(wrong.status == 64)
    #expect(wrong.err.contains("has one layer, 'squares'; --layer 'roads' names none"))
    let right = try geopipe(["info", "--layer", "squares", path])
    #expect(right.status == 0)
    let read = try geopipe(["read", "--layer", "roads", path])
    #expect(read.status == 64)
  }

  @Test func aGeoPackageListsItsTablesAndLayerPicksOne() throws {
    try withTemporaryDirectory { dir in
      let file = dir.appendingPathComponent("two.gpkg").path
      let squares = try geopipe(
        ["convert", "--layer", "squares", CLI.fixtures("overlay/squares.geojson").path, file])
      #expect(squares.status == 0, "\(squares)")
      let points = try geopipe(
        ["write", "--layer", "points", "--append-layer", file],
        stdinFile: CLI.fixtures("overlay/points.geojsonl"))
      #expect(points.status == 0, "\(points)")
      let run = try geopipe(["layers", file])
      #expect(run.status == 0, "\(run)")
      #expect(run.out.contains("GeoPackage, 2 layers"))
      #expect(run.out.contains("  squares: ") && run.out.contains("3 features"))
      #expect(run.out.contains("  points: Point, 4 features"))
      let info = try geopipe(["info", "--layer", "points", file])
      #expect(info.status == 0 && info.out.contains("features: 4"), "\(info)")
      let neither = try geopipe(["read", file])
      #expect(neither.status == 64 && neither.err.contains("squares"), "\(neither)")
      let joined = try geopipe(
        ["join", "--with", file, "--with-layer", "squares", "--fields", "name"],
        stdinFile: CLI.fixtures("overlay/points.geojsonl"))
      #expect(joined.status == 0 && joined.out.contains(#""name":"A""#), "\(joined)")
    }
  }
}
