import GeoPipeCore

extension Camera {
  /// The camera and what it shows in `viewport`, as one line of JSON.
  ///
  /// The members are `center` [lon, lat], `zoom`, `bearing`, `tilt` and the visible `bounds`
  /// [W, S, E, N] (what `geopipe camera` prints). Numbers are rounded to nine decimals, whole
  /// ones written without a fraction.
  public func json(in viewport: Viewport) -> String {
    let box = visibleBox(in: viewport)
    let bounds = [box.west, box.south, box.east, box.north].map(Self.number)
      .joined(separator: ", ")
    return """
      {"center": [\(Self.number(longitude)), \(Self.number(latitude))], \
      "zoom": \(Self.number(zoom)), "bearing": \(Self.number(bearing)), \
      "tilt": \(Self.number(tilt)), "bounds": [\(bounds)]}
      """
  }

  private static func number(_ x: Double) -> String {
    let rounded = (x * 1e9).rounded() / 1e9
    return rounded == rounded.rounded() && abs(rounded) < 1e15
      ? String(Int64(rounded)) : "\(rounded)"
  }
}

extension Viewport {
  /// A viewport written `WxH` in points (`1024x768`); nil unless both are positive numbers.
  public init?(size text: String) {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w > 0, h > 0,
      w.isFinite, h.isFinite
    else { return nil }
    self.init(width: w, height: h)
  }
}
