import GeoPipeCore
import GeoPipeIO

/// Reads GPX 1.1 (and 1.0): waypoints as Points, routes as LineStrings, tracks as
/// MultiLineStrings (one line per segment), in file order.
///
/// Positions take `ele` as their Z when every point of the feature has one. Routes and tracks
/// keep their points' `time` and `ele` as `times` and `elevations` arrays (null where a point
/// has none; for tracks one array per segment; left out when no point has any). With
/// `pointsOnly` (`--gpx-points`), each track point is a Point feature of its own instead. The
/// simple children of a waypoint, route or track (`name`, `desc`, `cmt`, `sym`, `type`, `time`,
/// `hdop`...) become properties, GPX's numeric ones as numbers; `link` becomes `link` (its
/// `href`) and `link_text`; `extensions` contribute their elements that hold only text, at any
/// depth, by local name.
public final class GPXReader: FeatureReader {
  /// The layers GDAL names in a GPX file; `--layer` picks one.
  public enum Layer: String, CaseIterable, Sendable {
    case waypoints
    case routes
    case tracks
    case trackPoints = "track_points"
  }

  private let stream: XMLStream
  private let checkRanges: Bool
  private let pointsOnly: Bool
  private let layer: Layer?
  private var rootSeen = false
  private var trackCount = 0
  /// The track whose points are being returned one by one (`pointsOnly`).
  private var track: (name: JSONValue?, index: Int, segment: Int, point: Int)?
  private var text: [UInt8] = []

  /// Opens a reader on `source`, named `name` in messages.
  public init(
    source: ByteSource, name: String, options: ReadOptions = ReadOptions(),
    pointsOnly: Bool = false
  ) throws {
    stream = try XMLStream(source: source, name: name)
    checkRanges = options.checkRanges
    if let given = options.layer {
      guard let layer = Layer(rawValue: given) else {
        throw GeoPipeError.usage(
          "\(name) has no layer '\(given)': a GPX file's layers are "
            + Layer.allCases.map(\.rawValue).joined(separator: ", "))
      }
      self.layer = layer
    } else {
      layer = nil
    }
    self.pointsOnly = pointsOnly || layer == .trackPoints
  }

  /// Decompressed bytes read so far.
  public var bytesRead: Int { stream.bytesRead }
  /// Nothing is skipped: a bad feature is an error.
  public var skippedCount: Int { 0 }
  /// The document's other elements are not kept.
  public var collectionMembers: JSONObject { JSONObject() }

  /// The next waypoint, route, track or track point.
  public func next() throws -> Feature? {
    if track != nil, let point = try nextTrackPoint() { return point }
    while try stream.read() {
      guard stream.kind == .element else { continue }
      let name = stream.localName
      if stream.depth == 0 {
        guard name == "gpx" else {
          throw stream.error("the root element is <\(name)>, not <gpx>: this is not a GPX file")
        }
        rootSeen = true
        continue
      }
      switch name {
      case "wpt" where wants(.waypoints): return try waypoint()
      case "rte" where wants(.routes): return try route()
      case "trk" where pointsOnly && wants(.trackPoints):
        trackCount += 1
        guard !stream.isEmptyElement else { continue }
        track = (nil, trackCount - 1, -1, 0)
        if let point = try nextTrackPoint() { return point }
      case "trk" where wants(.tracks):
        trackCount += 1
        return try trackLines()
      default:
        if name == "trk" { trackCount += 1 }
        try stream.skip()
      }
    }
    if !rootSeen { throw stream.error("the document has no <gpx> element") }
    return nil
  }

  private func wants(_ kind: Layer) -> Bool {
    guard let layer else { return true }
    return layer == kind || (kind == .tracks && layer == .trackPoints)
  }

  // MARK: Waypoints, routes, tracks

  private func waypoint() throws -> Feature {
    var properties: JSONObject = ["gpx_type": .string("waypoint")]
    let point = try self.point(keep: true, properties: &properties)
    return Feature(geometry: .point(point), properties: properties)
  }

  private func route() throws -> Feature {
    var properties: JSONObject = ["gpx_type": .string("route")]
    var line = Line()
    try stream.forEachChild { name in
      if name == "rtept" {
        try self.linePoint(into: &line)
      } else {
        try self.property(name, into: &properties)
      }
    }
    line.finish()
    if line.anyTime { properties.appendUnchecked("times", .array(line.times)) }
    if line.anyElevation { properties.appendUnchecked("elevations", .array(line.elevations)) }
    return Feature(
      geometry: .lineString(line.coordinates(z: line.allElevations)), properties: properties)
  }

  private func trackLines() throws -> Feature {
    var properties: JSONObject = ["gpx_type": .string("track")]
    var segments: [Line] = []
    try stream.forEachChild { name in
      if name == "trkseg" {
        var line = Line()
        try self.stream.forEachChild { name in
          if name == "trkpt" { try self.linePoint(into: &line) }
        }
        line.finish()
        segments.append(line)
      } else {
        try self.property(name, into: &properties)
      }
    }
    let z = !segments.isEmpty && segments.allSatisfy(\.allElevations)
    if segments.contains(where: \.anyTime) {
      properties.appendUnchecked("times", .array(segments.map { .array($0.times) }))
    }
    if segments.contains(where: \.anyElevation) {
      properties.appendUnchecked("elevations", .array(segments.map { .array($0.elevations) }))
    }
    return Feature(
      geometry: .multiLineString(segments.map { $0.coordinates(z: z) }), properties: properties)
  }

  /// The next point of the current track as a feature; nil (and no current track) at its end.
  private func nextTrackPoint() throws -> Feature? {
    while try stream.read() {
      guard var current = track else { return nil }
      if stream.kind == .endElement && stream.depth == 1 {
        track = nil
        return nil
      }
      guard stream.kind == .element else { continue }
      let name = stream.localName
      switch (stream.depth, name) {
      case (2, "name"):
        current.name = try stream.text().map { .string($0) }
        track = current
      case (2, "trkseg"):
        current.segment += 1
        current.point = 0
        track = current
      case (3, "trkpt"):
        var properties: JSONObject = ["gpx_type": .string("track_point")]
        if let name = current.name { properties.appendUnchecked("track_name", name) }
        properties.appendUnchecked("track_index", .integer(Int64(current.index)))
        properties.appendUnchecked("segment_index", .integer(Int64(current.segment)))
        properties.appendUnchecked("point_index", .integer(Int64(current.point)))
        let point = try self.point(keep: true, properties: &properties)
        current.point += 1
        track = current
        return Feature(geometry: .point(point), properties: properties)
      default:
        try stream.skip()
      }
    }
    throw stream.error("the document ends inside a <trk>")
  }

  // MARK: Points and properties

  /// The time of the point read last.
  private var pointTime: JSONValue = .null

  /// Reads a `wpt`, `rtept` or `trkpt`: its position (with `ele` as Z) and its time into
  /// `pointTime`, and when `keep` is set, its children as properties (`ele` and `time` too).
  private func point(keep: Bool, properties: inout JSONObject) throws -> Position {
    let x = try coordinate("lon")
    let y = try coordinate("lat")
    try XMLValues.checkRange(x: x, y: y, check: checkRanges, stream: stream)
    var z = Double.nan
    pointTime = .null
    try stream.forEachChild { name in
      switch name {
      case "ele":
        guard try stream.readText(into: &text), let ele = XMLValues.number(text) else {
          throw stream.error("<ele> is not a number")
        }
        z = ele
        if keep { properties.appendUnchecked("ele", .double(ele)) }
      case "time":
        if let time = try stream.text() {
          pointTime = .string(XMLValues.trimmed(time))
          if keep { properties.appendUnchecked("time", pointTime) }
        }
      default:
        if keep { try property(name, into: &properties) }
      }
    }
    return Position(x: x, y: y, z: z)
  }

  /// A route or track point: its position and time only.
  private func linePoint(into line: inout Line) throws {
    var unused = JSONObject()
    let p = try point(keep: false, properties: &unused)
    line.append(p, time: pointTime)
  }

  private func coordinate(_ attribute: String) throws -> Double {
    let value = stream.withAttribute(attribute) { bytes in bytes.map { XMLValues.number($0) } }
    guard let value else { throw stream.error("a point has no \(attribute) attribute") }
    guard let value else { throw stream.error("the \(attribute) attribute is not a number") }
    return value
  }

  /// GPX's numeric elements, read as numbers.
  private static let integers: Set<String> = ["sat", "dgpsid", "number"]
  private static let reals: Set<String> = [
    "magvar", "geoidheight", "hdop", "vdop", "pdop", "ageofdgpsdata", "course", "speed",
  ]

  /// A child of a waypoint, route or track as a property (its first occurrence wins).
  private func property(_ name: String, into properties: inout JSONObject) throws {
    switch name {
    case "link":
      let href = stream.attribute("href")
      var linkText: String?
      try stream.forEachChild { child in
        if child == "text" { linkText = try stream.text() }
      }
      if let href, properties["link"] == nil { properties.appendUnchecked("link", .string(href)) }
      if let linkText, properties["link_text"] == nil {
        properties.appendUnchecked("link_text", .string(linkText))
      }
    case "extensions":
      try extensions(into: &properties)
    default:
      guard let text = try stream.text(), properties[name] == nil else { return }
      var value = JSONValue.string(text)
      if Self.integers.contains(name), let n = Int64(XMLValues.trimmed(text)) {
        value = .integer(n)
      } else if Self.reals.contains(name), let n = XMLValues.number(Array(text.utf8)) {
        value = .double(n)
      }
      properties.appendUnchecked(name, value)
    }
  }

  /// The elements inside `extensions` that hold only text, at any depth, by local name.
  private func extensions(into properties: inout JSONObject) throws {
    guard !stream.isEmptyElement else { return }
    let base = stream.depth
    var open: [(name: String, hasChildren: Bool)] = []
    text.removeAll(keepingCapacity: true)
    while try stream.read() {
      switch stream.kind {
      case .element:
        if !open.isEmpty { open[open.count - 1].hasChildren = true }
        if !stream.isEmptyElement { open.append((stream.localName, false)) }
        text.removeAll(keepingCapacity: true)
      case .text:
        stream.appendValue(to: &text)
      case .endElement:
        if stream.depth == base { return }
        guard let element = open.popLast() else { continue }
        let value = XMLValues.trimmed(String(decoding: text, as: UTF8.self))
        if !element.hasChildren, !value.isEmpty, properties[element.name] == nil {
          properties.appendUnchecked(element.name, .string(value))
        }
        text.removeAll(keepingCapacity: true)
      case .other: break
      }
    }
    throw stream.error("the document ends inside <extensions>")
  }
}

/// The points of a route or track segment as they are read.
private struct Line {
  var storage: [Double] = []
  var times: [JSONValue] = []
  var elevations: [JSONValue] = []
  var anyTime = false
  var anyElevation = false
  var allElevations = true

  mutating func append(_ p: Position, time: JSONValue) {
    storage.append(p.x)
    storage.append(p.y)
    storage.append(p.z)
    times.append(time)
    if !time.isNull { anyTime = true }
    if p.hasZ {
      anyElevation = true
      elevations.append(.double(p.z))
    } else {
      allElevations = false
      elevations.append(.null)
    }
  }

  /// An empty line has no elevations to speak of.
  mutating func finish() {
    if storage.isEmpty { allElevations = false }
  }

  /// The positions, with Z or without.
  func coordinates(z: Bool) -> CoordinateArray {
    if z { return CoordinateArray(storage: storage, dimension: 3) }
    var flat: [Double] = []
    flat.reserveCapacity(storage.count / 3 * 2)
    var k = 0
    while k < storage.count {
      flat.append(storage[k])
      flat.append(storage[k + 1])
      k += 3
    }
    return CoordinateArray(storage: flat, dimension: 2)
  }
}
