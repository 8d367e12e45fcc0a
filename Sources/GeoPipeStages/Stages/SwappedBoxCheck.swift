import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// Tests geometries against a `--bbox` and notices a box given latitude first.
///
/// A box is W,S,E,N in GeoJSON order; one typed as S,W,N,E (as many map sites show it) is a
/// valid box elsewhere on the globe that usually holds nothing. When no geometry met the box
/// and some met the box with its axes swapped, a warning at the end names that box.
struct SwappedBoxCheck {
  /// The box as given.
  let box: BBox
  private let stage: String
  private let swapped: BBox?
  private var matched = false
  private var swappedMatches = 0

  /// A check of `box` for the stage called `stage` (the prefix of its warning).
  init(stage: String, box: BBox) {
    self.stage = stage
    self.box = box
    // Read as S,W,N,E, the given west and east are latitudes and must be a valid range.
    let (south, north) = (box.west, box.east)
    let (west, east) = (box.south, box.north)
    let other = BBox(west: west, south: south, east: east, north: north)
    swapped = south >= -90 && north <= 90 && south <= north && other != box ? other : nil
  }

  /// Whether `geometry` meets the box.
  mutating func intersects(_ geometry: Geometry) -> Bool {
    if GeometryIntersection.intersects(geometry, box) {
      matched = true
      return true
    }
    if !matched, let swapped, GeometryIntersection.intersects(geometry, swapped) {
      swappedMatches += 1
    }
    return false
  }

  /// Warns when nothing met the box and something met the swapped one.
  func finish(report: (ReadDiagnostic) -> Void) {
    guard !matched, swappedMatches > 0, let swapped else { return }
    let count = swappedMatches == 1 ? "1 feature" : "\(swappedMatches) features"
    report(
      ReadDiagnostic(
        severity: .warning,
        message: "\(stage): no feature is in the box \(Self.text(box)); the box is W,S,E,N; "
          + "did you mean \(Self.text(swapped))? (\(count) would be in it)"))
  }

  private static func text(_ box: BBox) -> String {
    [box.west, box.south, box.east, box.north].map { Template.text(of: .double($0)) }
      .joined(separator: ",")
  }
}
