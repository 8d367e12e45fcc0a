import Foundation

extension MapPainter {
  /// A scale bar at the bottom left: the longest round distance (1, 2 or 5 × 10^n metres)
  /// that fits in 100 points at the centre's latitude.
  func drawScaleBar() {
    let metresPerPoint = camera.metresPerPoint
    guard metresPerPoint > 0, metresPerPoint.isFinite else { return }
    let most = metresPerPoint * 100
    let magnitude = pow(10, log10(most).rounded(.down))
    let metres = [5.0, 2, 1].map { $0 * magnitude }.first { $0 <= most } ?? magnitude
    let length = metres / metresPerPoint
    let x = 12.0
    let y = camera.height - 12
    let steps: [PathStep] = [
      .move(x, y - 5), .line(x, y), .line(x + length, y), .line(x + length, y - 5),
    ]
    canvas.path(steps, fill: nil, stroke: Stroke(color: .white, width: 4))
    canvas.path(steps, fill: nil, stroke: Stroke(color: Self.ink, width: 1.5))
    canvas.text(
      Self.distanceText(metres), x: x + length / 2, y: y - 5, size: 10, bold: false,
      color: Self.ink, halo: .white, anchor: .middle)
  }

  static func distanceText(_ metres: Double) -> String {
    if metres >= 1000 { return "\(Int((metres / 1000).rounded())) km" }
    if metres >= 1 { return "\(Int(metres.rounded())) m" }
    return "\(Int((metres * 100).rounded())) cm"
  }

  /// A compass needle at the top right whose red half points north.
  func drawNorthArrow() {
    let cx = camera.width - 28
    let cy = 28.0
    let north = projector.north
    let across = (x: -north.y, y: north.x)
    canvas.circle(
      x: cx, y: cy, radius: 16, fill: RGBA.white.with(alpha: 0.9),
      stroke: Stroke(color: RGBA(rgb: 0x999999), width: 1))
    let tip = (x: cx + north.x * 12, y: cy + north.y * 12)
    let tail = (x: cx - north.x * 12, y: cy - north.y * 12)
    let left = (x: cx + across.x * 5, y: cy + across.y * 5)
    let right = (x: cx - across.x * 5, y: cy - across.y * 5)
    canvas.path(
      [.move(tip.x, tip.y), .line(left.x, left.y), .line(right.x, right.y), .close],
      fill: RGBA(rgb: 0xd33d33), stroke: nil)
    canvas.path(
      [.move(tail.x, tail.y), .line(left.x, left.y), .line(right.x, right.y), .close],
      fill: RGBA(rgb: 0x777777), stroke: nil)
  }

  /// The pie categories and their colours, at the bottom right.
  func drawLegend() {
    guard !categories.isEmpty else { return }
    let shown = categories.prefix(MapPainter.palette.count)
    let rowHeight = 15.0
    let widest = shown.map { Double($0.name.count) * 10 * 0.6 }.max() ?? 0
    let width = widest + 30
    let height = Double(shown.count) * rowHeight + 8
    let left = camera.width - 12 - width
    let top = camera.height - 12 - height
    canvas.path(
      [
        .move(left, top), .line(left + width, top), .line(left + width, top + height),
        .line(left, top + height), .close,
      ], fill: RGBA.white.with(alpha: 0.9), stroke: Stroke(color: RGBA(rgb: 0xbbbbbb), width: 1))
    for (k, category) in shown.enumerated() {
      let y = top + 4 + Double(k) * rowHeight
      canvas.circle(x: left + 11, y: y + 7, radius: 5, fill: category.color, stroke: nil)
      canvas.text(
        category.name, x: left + 21, y: y + 11, size: 10, bold: false, color: Self.ink, halo: nil,
        anchor: .start)
    }
  }
}
