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
}
