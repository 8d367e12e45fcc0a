import GeoPipeCore
import GeoPipeIO

/// Reads the Placemarks of a KML 2.2 document, in document order, streaming through its
/// `Document` and `Folder` hierarchy.
///
/// The inverse of `KMLWriter`: `name` becomes `title`, `description` `description`, the
/// placemark's style (inline, or shared through `styleUrl`, a `StyleMap`'s `normal` style)
/// simplestyle-spec properties, and `ExtendedData` (`Data`/`value`, `SchemaData`/`SimpleData`)
/// properties, their values as text. The names of the enclosing folders, joined with `/`, are
/// the `folder` property. Geometry: `Point`, `LineString`, `LinearRing` and `Polygon` (outer
/// and inner boundaries), `MultiGeometry` (a `Multi*` when its members are of one kind, else a
/// GeometryCollection), `gx:Track` (a LineString, its `when`s the `times` property) and
/// `gx:MultiTrack`; a third coordinate is Z. Overlays, network links and models are skipped and
/// counted in a note.
public final class KMLReader: FeatureReader {
  private let stream: XMLStream
  private let checkRanges: Bool
  private let diagnostics: @Sendable (ReadDiagnostic) -> Void
  /// The open `Document`s and `Folder`s: depth, whether a folder, and its name.
  private var containers: [(depth: Int, isFolder: Bool, name: String?)] = []
  private var styles: [String: KMLStyle] = [:]
  private var styleMaps: [String: StyleReference] = [:]
  private var skipped: [String: Int] = [:]
  private var rootSeen = false
  private var text: [UInt8] = []
  /// How many MultiGeometry elements enclose the one being read.
  private var nesting = 0
  private static let maxNesting = 100
  /// The `when`s of the gx:Track read last.
  private var trackTimes: [JSONValue] = []

  /// Opens a reader on `source`, named `name` in messages.
  public init(source: ByteSource, name: String, options: ReadOptions = ReadOptions()) throws {
    stream = try XMLStream(source: source, name: name)
    checkRanges = options.checkRanges
    diagnostics = options.diagnostics
  }

  /// Decompressed bytes read so far.
  public var bytesRead: Int { stream.bytesRead }
  /// Nothing is skipped: a bad feature is an error.
  public var skippedCount: Int { 0 }
  /// The document's other elements are not kept.
  public var collectionMembers: JSONObject { JSONObject() }

  /// The next Placemark.
  public func next() throws -> Feature? {
    while try stream.read() {
      if stream.kind == .endElement {
        if let last = containers.last, last.depth == stream.depth { containers.removeLast() }
        continue
      }
      guard stream.kind == .element else { continue }
      let name = stream.localName
      let depth = stream.depth
      if !rootSeen {
        guard name == "kml" || name == "Document" || name == "Folder" || name == "Placemark"
        else {
          throw stream.error("the root element is <\(name)>, not <kml>: this is not a KML document")
        }
        rootSeen = true
        if name == "kml" { continue }
      }
      switch name {
      case "Document", "Folder":
        if !stream.isEmptyElement {
          containers.append((depth, name == "Folder", nil))
        }
      case "name" where containers.last?.depth == depth - 1:
        containers[containers.count - 1].name = try stream.text()
      case "Placemark":
        return try placemark()
      case "Style":
        let id = stream.attribute("id")
        let style = try self.style()
        if let id { styles[id] = style }
      case "StyleMap":
        let id = stream.attribute("id")
        let normal = try styleMap()
        if let id, let normal { styleMaps[id] = normal }
      case "NetworkLink", "GroundOverlay", "ScreenOverlay", "PhotoOverlay":
        skipped[name, default: 0] += 1
        try stream.skip()
      default:
        try stream.skip()
      }
    }
    if !rootSeen { throw stream.error("the document has no <kml> element") }
    if !skipped.isEmpty {
      let counts = skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
      diagnostics(
        ReadDiagnostic(
          severity: .note,
          message: "\(stream.name): skipped \(counts.joined(separator: ", ")) (geopipe reads "
            + "Placemarks)"))
      skipped = [:]
    }
    return nil
  }

  // MARK: Placemarks

  private func placemark() throws -> Feature {
    let id = stream.attribute("id").map { JSONValue.string($0) }
    var title: String?
    var description: String?
    var styleURL: String?
    var inline: KMLStyle?
    var extended = JSONObject()
    var geometry: Geometry?
    trackTimes = []
    try stream.forEachChild { name in
      switch name {
      case "name": title = try stream.text()
      case "description": description = try stream.text()
      case "styleUrl": styleURL = try stream.text()
      case "Style": inline = try self.style()
      case "ExtendedData": try extendedData(into: &extended)
      case "TimeStamp":
        try stream.forEachChild { child in
          if child == "when", let when = try stream.text() {
            extended["timestamp"] = .string(XMLValues.trimmed(when))
          }
        }
      case "TimeSpan":
        try stream.forEachChild { child in
          if child == "begin" || child == "end", let value = try stream.text() {
            extended[child] = .string(XMLValues.trimmed(value))
          }
        }
      case "Model":
        skipped["Model", default: 0] += 1
      default:
        if geometry == nil, let read = try self.geometry(name) { geometry = read }
      }
    }
    var properties = JSONObject()
    if let title { properties.appendUnchecked("title", .string(title)) }
    if let description { properties.appendUnchecked("description", .string(description)) }
    var style = styleURL.flatMap { resolve($0, depth: 0) } ?? KMLStyle()
    if let inline { style = style.merged(with: inline) }
    style.append(to: &properties)
    for member in extended where properties[member.key] == nil {
      properties.appendUnchecked(member.key, member.value)
    }
    if !trackTimes.isEmpty, properties["times"] == nil {
      properties.appendUnchecked("times", .array(trackTimes))
    }
    let folders = containers.filter(\.isFolder).compactMap(\.name)
    if !folders.isEmpty, properties["folder"] == nil {
      properties.appendUnchecked("folder", .string(folders.joined(separator: "/")))
    }
    return Feature(id: id, geometry: geometry, properties: properties)
  }

  private func extendedData(into properties: inout JSONObject) throws {
    try stream.forEachChild { name in
      switch name {
      case "Data":
        guard let key = stream.attribute("name") else { return }
        var value: String?
        try stream.forEachChild { child in
          if child == "value" { value = try stream.text() }
        }
        if let value, properties[key] == nil { properties.appendUnchecked(key, .string(value)) }
      case "SchemaData":
        try stream.forEachChild { child in
          guard child == "SimpleData", let key = stream.attribute("name") else { return }
          if let value = try stream.text(), properties[key] == nil {
            properties.appendUnchecked(key, .string(value))
          }
        }
      default: break
      }
    }
  }

  // MARK: Styles

  /// A StyleMap's `normal` pair: a style URL or an inline style.
  private enum StyleReference {
    case url(String)
    case inline(KMLStyle)
  }

  private func style() throws -> KMLStyle {
    var style = KMLStyle()
    try stream.forEachChild { name in
      switch name {
      case "IconStyle":
        try stream.forEachChild { child in
          switch child {
          case "color": style.iconColor = try stream.text()
          case "scale": style.iconScale = try stream.text()
          default: break
          }
        }
      case "LineStyle":
        try stream.forEachChild { child in
          switch child {
          case "color": style.lineColor = try stream.text()
          case "width": style.lineWidth = try stream.text()
          default: break
          }
        }
      case "PolyStyle":
        try stream.forEachChild { child in
          switch child {
          case "color": style.polyColor = try stream.text()
          case "fill":
            if let fill = try stream.text() { style.polyFill = XMLValues.trimmed(fill) != "0" }
          default: break
          }
        }
      default: break
      }
    }
    return style
  }

  private func styleMap() throws -> StyleReference? {
    var normal: StyleReference?
    try stream.forEachChild { name in
      guard name == "Pair" else { return }
      var key: String?
      var reference: StyleReference?
      try stream.forEachChild { child in
        switch child {
        case "key": key = try stream.text().map(XMLValues.trimmed)
        case "styleUrl": reference = try stream.text().map { .url(XMLValues.trimmed($0)) }
        case "Style": reference = .inline(try style())
        default: break
        }
      }
      if key == "normal", let reference { normal = reference }
    }
    return normal
  }

  /// The shared style a `styleUrl` names (`#id`, in this document), through style maps.
  private func resolve(_ url: String, depth: Int) -> KMLStyle? {
    let trimmed = XMLValues.trimmed(url)
    guard depth < 4, trimmed.hasPrefix("#") else { return nil }
    let id = String(trimmed.dropFirst())
    if let style = styles[id] { return style }
    switch styleMaps[id] {
    case .inline(let style): return style
    case .url(let next): return resolve(next, depth: depth + 1)
    case nil: return nil
    }
  }

  // MARK: Geometry

  /// The geometry element `name` (the stream on its start), or nil when `name` is not one (it
  /// is then left for the caller to skip) or has no coordinates.
  private func geometry(_ name: String) throws -> Geometry? {
    switch name {
    case "Point":
      let coordinates = try coordinatesChild()
      guard let first = coordinates.first else { return nil }
      return .point(first)
    case "LineString":
      return .lineString(try coordinatesChild())
    case "LinearRing":
      return .polygon([try coordinatesChild()])
    case "Polygon":
      var outer: CoordinateArray?
      var inner: [CoordinateArray] = []
      try stream.forEachChild { child in
        guard child == "outerBoundaryIs" || child == "innerBoundaryIs" else { return }
        try stream.forEachChild { ring in
          guard ring == "LinearRing" else { return }
          let coordinates = try coordinatesChild()
          if child == "outerBoundaryIs" { outer = coordinates } else { inner.append(coordinates) }
        }
      }
      guard let outer else { return inner.isEmpty ? .polygon([]) : .polygon(inner) }
      return .polygon([outer] + inner)
    case "MultiGeometry":
      // Each level is a call: a bound keeps a hostile document off the end of the stack.
      guard nesting < Self.maxNesting else {
        throw stream.error("MultiGeometry nested more than \(Self.maxNesting) deep")
      }
      nesting += 1
      defer { nesting -= 1 }
      var members: [Geometry] = []
      try stream.forEachChild { child in
        if let member = try geometry(child) { members.append(member) }
      }
      return Self.collection(members)
    case "Track":
      trackTimes = []
      var positions = CoordinateArray()
      try stream.forEachChild { child in
        switch child {
        case "when":
          trackTimes.append(try stream.text().map { .string(XMLValues.trimmed($0)) } ?? .null)
        case "coord":
          guard try stream.readText(into: &text) else { return }
          let p = try position(spaceSeparated: text)
          positions.append(p)
        default: break
        }
      }
      return .lineString(positions)
    case "MultiTrack":
      var lines: [CoordinateArray] = []
      var times: [JSONValue] = []
      try stream.forEachChild { child in
        if child == "Track", case .lineString(let line) = try geometry(child) {
          lines.append(line)
          times.append(.array(trackTimes))
        }
      }
      trackTimes = times.contains { $0 != .array([]) } ? times : []
      return .multiLineString(lines)
    default:
      return nil
    }
  }

  /// A MultiGeometry's members as the Multi* type they share, else a GeometryCollection.
  private static func collection(_ members: [Geometry]) -> Geometry {
    guard let first = members.first else { return .geometryCollection([]) }
    switch first {
    case .point:
      let points = members.compactMap { if case .point(let p) = $0 { p } else { nil } }
      if points.count == members.count {
        return .multiPoint(CoordinateArray(points))
      }
    case .lineString:
      let lines = members.compactMap { if case .lineString(let c) = $0 { c } else { nil } }
      if lines.count == members.count { return .multiLineString(lines) }
    case .polygon:
      let polygons = members.compactMap { if case .polygon(let r) = $0 { r } else { nil } }
      if polygons.count == members.count { return .multiPolygon(polygons) }
    default: break
    }
    return .geometryCollection(members)
  }

  /// The `coordinates` child of the current element.
  private func coordinatesChild() throws -> CoordinateArray {
    var result = CoordinateArray()
    try stream.forEachChild { name in
      guard name == "coordinates" else { return }
      guard try stream.readText(into: &text) else {
        throw stream.error("<coordinates> holds elements, not coordinate text")
      }
      result = try coordinates(text)
    }
    return result
  }

  /// KML's `lon,lat[,alt]` tuples separated by whitespace (spaces around a comma allowed); in
  /// a list where some tuples have an altitude, the others have none (NaN), as in GeoJSON.
  private func coordinates(_ text: [UInt8]) throws -> CoordinateArray {
    var storage: [Double] = []
    var anyZ = false
    try text.withUnsafeBufferPointer { bytes in
      var k = 0
      let n = bytes.count
      while true {
        while k < n && XMLValues.isSpace(bytes[k]) { k += 1 }
        if k == n { break }
        var values = (Double.nan, Double.nan, Double.nan)
        var count = 0
        while true {
          let start = k
          while k < n && bytes[k] != 0x2C && !XMLValues.isSpace(bytes[k]) { k += 1 }
          guard k > start,
            let value = bytes.baseAddress.flatMap({
              LenientDecimal.parse(UnsafeBufferPointer(start: $0 + start, count: k - start))
            })
          else {
            let token = String(decoding: bytes[start..<min(max(k, start + 1), n)], as: UTF8.self)
            throw stream.error(
              "<coordinates> holds '\(token)' where a number belongs (tuples are lon,lat[,alt])")
          }
          switch count {
          case 0: values.0 = value
          case 1: values.1 = value
          case 2: values.2 = value
          default:
            throw stream.error("a <coordinates> tuple has more than three numbers")
          }
          count += 1
          // A comma, perhaps with whitespace around it, continues the tuple.
          var look = k
          while look < n && XMLValues.isSpace(bytes[look]) { look += 1 }
          guard look < n, bytes[look] == 0x2C else { break }
          k = look + 1
          while k < n && XMLValues.isSpace(bytes[k]) { k += 1 }
        }
        guard count >= 2 else {
          throw stream.error("a <coordinates> tuple has one number; it needs lon,lat[,alt]")
        }
        try XMLValues.checkRange(x: values.0, y: values.1, check: checkRanges, stream: stream)
        if count == 3 { anyZ = true }
        storage.append(values.0)
        storage.append(values.1)
        storage.append(values.2)
      }
    }
    var result = CoordinateArray(dimension: anyZ ? 3 : 2)
    result.reserveCapacity(storage.count / 3)
    var k = 0
    while k < storage.count {
      let z = anyZ ? storage[k + 2] : .nan
      result.append(Position(x: storage[k], y: storage[k + 1], z: z))
      k += 3
    }
    return result
  }

  /// A `gx:coord`: `lon lat [alt]`, separated by whitespace.
  private func position(spaceSeparated text: [UInt8]) throws -> Position {
    let fields = text.split(whereSeparator: XMLValues.isSpace)
    let numbers = fields.map { XMLValues.number(Array($0)) }
    guard numbers.count == 2 || numbers.count == 3, numbers.allSatisfy({ $0 != nil }) else {
      throw stream.error(
        "<gx:coord> holds '\(String(decoding: text, as: UTF8.self))'; it needs 'lon lat [alt]'")
    }
    let x = numbers[0] ?? 0
    let y = numbers[1] ?? 0
    try XMLValues.checkRange(x: x, y: y, check: checkRanges, stream: stream)
    return Position(x: x, y: y, z: numbers.count == 3 ? numbers[2] ?? .nan : .nan)
  }
}
