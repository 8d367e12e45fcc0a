import Foundation
import GeoPipeCore

/// One annotation to draw: a pin or a cluster marker.
struct Marker {
  enum Look {
    case pin(PinStyle)
    case cluster(label: String, radius: Double, color: RGBA, counts: [Double])
  }

  var x: Double
  var y: Double
  var look: Look
  /// MapKit's display priority: 1000 is required, 750 high, 250 low.
  var priority: Double
  var index: Int
  var title: String?

  /// The box the marker covers, as left, top, right, bottom.
  var box: (Double, Double, Double, Double) {
    switch look {
    case .pin(let style):
      let r = style.radius
      return (x - r, y - 3 * r, x + r, y)
    case .cluster(_, let radius, _, _):
      return (x - radius, y - radius, x + radius, y + radius)
    }
  }

  var isRequired: Bool { priority >= 1000 }
}

/// Boxes already taken on the map, bucketed in a grid for quick overlap tests.
struct CollisionGrid {
  private let cell = 64.0
  private let columns: Int
  private let rows: Int
  private var buckets: [[(Double, Double, Double, Double)]]

  init(width: Double, height: Double) {
    columns = max(Int((width / cell).rounded(.up)), 1)
    rows = max(Int((height / cell).rounded(.up)), 1)
    buckets = Array(repeating: [], count: columns * rows)
  }

  private func cells(_ box: (Double, Double, Double, Double)) -> (
    ClosedRange<Int>, ClosedRange<Int>
  ) {
    let c0 = min(max(Int((box.0 / cell).rounded(.down)), 0), columns - 1)
    let c1 = min(max(Int((box.2 / cell).rounded(.down)), 0), columns - 1)
    let r0 = min(max(Int((box.1 / cell).rounded(.down)), 0), rows - 1)
    let r1 = min(max(Int((box.3 / cell).rounded(.down)), 0), rows - 1)
    return (c0...c1, r0...r1)
  }

  func collides(_ box: (Double, Double, Double, Double)) -> Bool {
    let (cs, rs) = cells(box)
    for r in rs {
      for c in cs {
        for other in buckets[r * columns + c]
        where box.0 < other.2 && other.0 < box.2 && box.1 < other.3 && other.1 < box.3 {
          return true
        }
      }
    }
    return false
  }

  mutating func insert(_ box: (Double, Double, Double, Double)) {
    let (cs, rs) = cells(box)
    for r in rs { for c in cs { buckets[r * columns + c].append(box) } }
  }
}

extension MapPainter {
  static let pinRadii = ["small": 5.0, "medium": 7.0, "large": 9.0]
  static let titleSize = 11.0

  /// The markers of point features in the viewport (with a margin), in input order.
  func collectMarkers(_ features: [Feature]) -> [Marker] {
    var markers: [Marker] = []
    let margin = 40.0
    for (index, feature) in features.enumerated() {
      let properties = feature.properties ?? JSONObject()
      if properties["geopipe:radius_m"]?.numberValue != nil { continue }
      var points: [Position] = []
      switch feature.geometry {
      case .point(let p)?: points = [p]
      case .multiPoint(let c)?: points = Array(c)
      default: continue
      }
      let look = look(of: properties)
      let priority = Self.priority(properties["geopipe:priority"])
      let title = properties["title"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
      for p in points {
        let at = projector.point(p.x, p.y)
        guard at.x >= -margin, at.y >= -margin, at.x <= camera.width + margin,
          at.y <= camera.height + margin
        else { continue }
        markers.append(
          Marker(x: at.x, y: at.y, look: look, priority: priority, index: index, title: title))
      }
    }
    return markers
  }

  private func look(of properties: JSONObject) -> Marker.Look {
    let color = properties["marker-color"]?.stringValue.flatMap { RGBA(css: $0) }
    let isCluster =
      properties["cluster"] == .bool(true) || properties["point_count"]?.numberValue != nil
    guard isCluster, let count = properties["point_count"]?.numberValue else {
      let size = properties["marker-size"]?.stringValue.flatMap { Self.pinRadii[$0] } ?? 7
      return .pin(PinStyle(color: color ?? Self.defaultMarker, radius: size))
    }
    let label =
      properties["point_count_abbreviated"].map { value in
        value.stringValue ?? value.numberValue.map { String(Int($0)) } ?? String(Int(count))
      } ?? String(Int(count))
    let radius = 13 + 4 * log10(max(count, 1))
    var counts: [Double] = []
    if let object = countsObject(properties) {
      counts = categories.map { object[$0.name]?.numberValue ?? 0 }
    }
    return .cluster(label: label, radius: radius, color: color ?? Self.clusterColor, counts: counts)
  }

  /// `PROP_counts` of a cluster, for --count-by PROP or the first `*_counts` object.
  func countsObject(_ properties: JSONObject) -> JSONObject? {
    if let countBy {
      if case .object(let object)? = properties["\(countBy)_counts"] { return object }
      return nil
    }
    for member in properties where member.key.hasSuffix("_counts") {
      if case .object(let object) = member.value { return object }
    }
    return nil
  }

  /// The pie categories of the visible clusters, most members first, then by name; each
  /// has the marker-color of the first point whose PROP is that category, else a palette
  /// colour.
  func pieCategories(_ features: [Feature]) -> [(name: String, color: RGBA)] {
    var totals: [String: Double] = [:]
    var property = countBy
    for feature in features {
      guard let properties = feature.properties, let object = countsObject(properties) else {
        continue
      }
      if property == nil {
        property = properties.first { $0.key.hasSuffix("_counts") }.map {
          String($0.key.dropLast("_counts".count))
        }
      }
      for member in object { totals[member.key, default: 0] += member.value.numberValue ?? 0 }
    }
    var colors: [String: RGBA] = [:]
    if let property {
      for feature in features {
        guard let properties = feature.properties,
          let category = properties[property].map(Self.categoryName), colors[category] == nil,
          let color = properties["marker-color"]?.stringValue.flatMap({ RGBA(css: $0) })
        else { continue }
        colors[category] = color
      }
    }
    let names = totals.keys.sorted { a, b in
      totals[a, default: 0] != totals[b, default: 0]
        ? totals[a, default: 0] > totals[b, default: 0] : a < b
    }
    return names.enumerated().map { k, name in
      (name, colors[name] ?? Self.palette[k % Self.palette.count])
    }
  }

  /// A property value as `cluster --count-by` names it: text as it is, others as JSON.
  static func categoryName(_ value: JSONValue) -> String {
    switch value {
    case .string(let text): text
    case .integer(let n): String(n)
    case .bool(let b): String(b)
    case .null: "null"
    default: value.numberValue.map { String($0) } ?? ""
    }
  }

  /// MapKit's display priority from `geopipe:priority`: required, high, low or a number;
  /// required when absent, as MapKit's default is.
  static func priority(_ value: JSONValue?) -> Double {
    if let number = value?.numberValue { return number }
    switch value?.stringValue {
    case "high": return 750
    case "low": return 250
    default: return 1000
    }
  }

  /// Places markers by priority (required ones always, others only where nothing placed
  /// before covers them), draws them lowest priority first, then their titles where they
  /// fit.
  func placeAndDraw(_ markers: [Marker]) {
    let order = markers.indices.sorted { a, b in
      markers[a].priority != markers[b].priority
        ? markers[a].priority > markers[b].priority : a < b
    }
    var grid = CollisionGrid(width: camera.width, height: camera.height)
    var placed: [Int] = []
    placed.reserveCapacity(markers.count)
    for k in order {
      let box = markers[k].box
      if !markers[k].isRequired && grid.collides(box) { continue }
      grid.insert(box)
      placed.append(k)
    }
    for k in placed.reversed() { drawMarker(markers[k]) }
    for k in placed {
      let marker = markers[k]
      guard let title = marker.title else { continue }
      let width = Double(title.count) * Self.titleSize * 0.6
      let top = marker.box.3 + 2
      let box = (marker.x - width / 2, top, marker.x + width / 2, top + Self.titleSize + 2)
      if grid.collides(box) { continue }
      grid.insert(box)
      canvas.text(
        title, x: marker.x, y: top + Self.titleSize, size: Self.titleSize, bold: true,
        color: Self.ink, halo: .white, anchor: .middle)
    }
  }

  private func drawMarker(_ marker: Marker) {
    switch marker.look {
    case .pin(let style):
      canvas.pin(x: marker.x, y: marker.y, style: style)
    case .cluster(let label, let radius, let color, let counts):
      let total = counts.reduce(0, +)
      if total > 0 {
        var start = 0.0
        for (k, count) in counts.enumerated() where count > 0 {
          let end = start + 2 * .pi * count / total
          canvas.wedge(
            x: marker.x, y: marker.y, radius: radius, start: start, end: end,
            fill: categories[k].color)
          start = end
        }
      } else {
        canvas.circle(x: marker.x, y: marker.y, radius: radius, fill: color, stroke: nil)
      }
      canvas.circle(
        x: marker.x, y: marker.y, radius: radius, fill: nil,
        stroke: Stroke(color: .white, width: 1.5))
      let inner = radius * 0.62
      canvas.circle(x: marker.x, y: marker.y, radius: inner, fill: .white, stroke: nil)
      let size = (inner * (label.count > 3 ? 0.8 : 1)).rounded()
      canvas.text(
        label, x: marker.x, y: marker.y + size * 0.36, size: size, bold: true, color: Self.ink,
        halo: nil, anchor: .middle)
    }
  }
}
