import Foundation
import Testing

/// `geopipe camera` run as a binary; the numbers behind it are checked in MercatorTests.
@Suite struct CameraTests {
  @Test func fitsBoundsAndPrintsJSON() throws {
    let run = try geopipe([
      "camera", "--fit-bounds", "2.22,48.81,2.47,48.90", "--size", "800x600", "--padding", "20",
    ])
    #expect(run.status == 0)
    // Expected values from Fixtures/mercator/cameras.json (mercantile metre arithmetic).
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
    let center = try #require(object["center"] as? [Double])
    #expect(abs(center[0] - 2.345) < 1e-8 && abs(center[1] - 48.85502022509454) < 1e-8)
    #expect(abs((object["zoom"] as? Double ?? 0) - 12.061708704660623) < 1e-8)
    #expect(object["bearing"] as? Double == 0 && object["tilt"] as? Double == 0)
    let bounds = try #require(object["bounds"] as? [Double])
    #expect(abs(bounds[0] - 2.213421052631579) < 1e-8 && abs(bounds[3] - 48.91990903790866) < 1e-8)
  }

  @Test func clampsToMaxZoom() throws {
    let run = try geopipe([
      "camera", "--fit-bounds", "2.35,48.85,2.35,48.85", "--size", "400x300", "--max-zoom", "15",
    ])
    #expect(run.status == 0)
    #expect(run.out.contains("\"zoom\": 15,"))
  }

  @Test func showsWhatACenteredCameraSees() throws {
    let run = try geopipe(["camera", "--center", "0,0", "--zoom", "1", "--size", "512x512"])
    #expect(run.status == 0)
    // The whole world at zoom 1 is 512 points wide: the view is the square world.
    #expect(
      run.out
        == "{\"center\": [0, 0], \"zoom\": 1, \"bearing\": 0, \"tilt\": 0, "
        + "\"bounds\": [-180, -85.05112878, 180, 85.05112878]}\n")
  }

  @Test func rejectsBadSizesAndMissingCameras() throws {
    let size = try geopipe(["camera", "--fit-bounds", "0,0,1,1", "--size", "800by600"])
    #expect(size.status == 64)
    #expect(size.err.contains("--size"))
    let none = try geopipe(["camera", "--size", "800x600"])
    #expect(none.status == 64)
    #expect(none.err.contains("--fit-bounds"))
    let zoomless = try geopipe(["camera", "--center", "0,0"])
    #expect(zoomless.status == 64)
    #expect(zoomless.err.contains("--zoom"))
  }
}
