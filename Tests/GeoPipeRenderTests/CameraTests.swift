import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeRender

/// The Web Mercator camera against hand-computed values (256-point world).
@Suite struct CameraTests {
  @Test func theWholeWorldFitsAt256PointsAtZoomZero() {
    let camera = MapCamera.fitting(
      BBox(west: -180, south: -MapCamera.maxLatitude, east: 180, north: MapCamera.maxLatitude),
      width: 256, height: 256, padding: 0, maxZoom: 18)
    #expect(abs(camera.zoom) < 1e-9)
    #expect(abs(camera.longitude) < 1e-9)
    #expect(abs(camera.latitude) < 1e-9)
  }

  @Test func aQuarterOfTheWorldFitsTwoZoomsIn() {
    // x from 0.5 to 0.75 and y from 0.25 to 0.5 of the world: 64 points at zoom 0.
    let north = atan(sinh(Double.pi / 2)) * 180 / .pi
    let camera = MapCamera.fitting(
      BBox(west: 0, south: 0, east: 90, north: north), width: 256, height: 256, padding: 0,
      maxZoom: 18)
    #expect(abs(camera.zoom - 2) < 1e-9)
    #expect(abs(camera.longitude - 45) < 1e-9)
    // The centre is the midpoint in projected space (y = 0.375), not in degrees.
    #expect(abs(camera.latitude - 40.979_898_069_620_134) < 1e-9)
  }

  @Test func paddingAndTheNarrowerSideChooseTheZoom() {
    // 64 points wide at zoom 0 into 256 - 2·32 = 192 points: log2(3).
    let camera = MapCamera.fitting(
      BBox(west: 0, south: -10, east: 90, north: 10), width: 256, height: 800, padding: 32,
      maxZoom: 18)
    #expect(abs(camera.zoom - log2(3)) < 1e-9)
  }

  @Test func aSinglePointFitsAtTheMaximumZoom() {
    let camera = MapCamera.fitting(
      BBox(west: 2.35, south: 48.85, east: 2.35, north: 48.85), width: 100, height: 100,
      padding: 10,
      maxZoom: 18)
    #expect(camera.zoom == 18)
    #expect(abs(camera.longitude - 2.35) < 1e-9)
    #expect(abs(camera.latitude - 48.85) < 1e-9)
  }

  @Test func boxesAcrossTheAntimeridianAreCentredOnIt() {
    let camera = MapCamera.fitting(
      BBox(west: 170, south: -10, east: -170, north: 10), width: 512, height: 1024, padding: 0,
      maxZoom: 18)
    #expect(abs(abs(camera.longitude) - 180) < 1e-9)
    // 20 degrees are 256·20/360 points at zoom 0.
    #expect(abs(camera.zoom - log2(512 / (256 * 20 / 360))) < 1e-9)
  }

  @Test func projectionPutsTheCentreInTheMiddleAndRotatesByBearing() {
    let camera = MapCamera(
      longitude: 0, latitude: 0, zoom: 1, bearing: 90, width: 200, height: 100)
    let projector = camera.projector
    let centre = projector.point(0, 0)
    #expect(abs(centre.x - 100) < 1e-9 && abs(centre.y - 50) < 1e-9)
    // 90 degrees east is 128 points east at zoom 1; facing east, that is straight up.
    let east = projector.point(90, 0)
    #expect(abs(east.x - 100) < 1e-9 && abs(east.y - (50 - 128)) < 1e-9)
    #expect(abs(projector.north.x + 1) < 1e-12 && abs(projector.north.y) < 1e-12)
  }

  @Test func metresPerPointFollowTheLatitude() {
    let equator = MapCamera(longitude: 0, latitude: 0, zoom: 0, bearing: 0, width: 1, height: 1)
    #expect(abs(equator.metresPerPoint - 40_075_016.685_578_49 / 256) < 1e-6)
    let sixty = MapCamera(longitude: 0, latitude: 60, zoom: 3, bearing: 0, width: 1, height: 1)
    #expect(abs(sixty.metresPerPoint - 40_075_016.685_578_49 * 0.5 / 2048) < 1e-6)
    #expect(sixty.tileZoom == 3)
  }
}
