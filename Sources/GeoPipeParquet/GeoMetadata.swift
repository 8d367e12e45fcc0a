import GeoPipeCore
import GeoPipeIO

/// The GeoParquet `geo` file metadata (GeoParquet 1.0 and 1.1): the primary geometry column,
/// and per geometry column its encoding, CRS, bounding box and covering columns.
struct GeoMetadata {
  /// One geometry column's description.
  struct Column {
    var encoding: String
    var geometryTypes: [String] = []
    var bbox: [Double]?
    /// The CRS when it is not WGS84 longitude/latitude: `EPSG:n`, or PROJJSON text.
    var crs: String?
    /// Whether `crs` is given as null (an undefined CRS).
    var crsUndefined = false
    /// The covering bbox columns' paths: xmin, ymin, xmax, ymax.
    var covering: [[String]]?
  }

  var version: String
  var primaryColumn: String
  var columns: [String: Column]

  /// Parses the metadata's JSON text; `name` names the file in errors.
  init(json text: String, name: String) throws {
    func fail(_ message: String) -> GeoPipeError {
      .data("\(name): the GeoParquet 'geo' metadata \(message)", at: nil)
    }
    let value: JSONValue
    do {
      value = try JSONText.parse(Array(text.utf8), name: "\(name) 'geo' metadata")
    } catch let error as GeoPipeError {
      throw fail("is not JSON: \(error.message)")
    }
    guard case .object(let root) = value else { throw fail("is not a JSON object") }
    guard let primary = root["primary_column"]?.stringValue else {
      throw fail("has no primary_column")
    }
    guard case .object(let columns)? = root["columns"] else { throw fail("has no columns") }
    version = root["version"]?.stringValue ?? ""
    primaryColumn = primary
    self.columns = [:]
    for member in columns {
      guard case .object(let object) = member.value,
        let encoding = object["encoding"]?.stringValue
      else { throw fail("gives column \(member.key) no encoding") }
      var column = Column(encoding: encoding)
      if case .array(let types)? = object["geometry_types"] {
        column.geometryTypes = types.compactMap(\.stringValue)
      }
      if case .array(let box)? = object["bbox"] {
        column.bbox = box.compactMap(\.numberValue)
      }
      switch object["crs"] {
      case nil: break
      case .null?: column.crsUndefined = true
      case let crs?: column.crs = Self.crs(crs)
      }
      if case .object(let covering)? = object["covering"], case .object(let box)? = covering["bbox"]
      {
        let paths = ["xmin", "ymin", "xmax", "ymax"].map { key -> [String]? in
          guard case .array(let path)? = box[key] else { return nil }
          let names = path.compactMap(\.stringValue)
          return names.count == path.count ? names : nil
        }
        if paths.allSatisfy({ $0 != nil }) { column.covering = paths.compactMap { $0 } }
      }
      self.columns[member.key] = column
    }
    guard self.columns[primary] != nil else {
      throw fail("names primary column \(primary), which it does not describe")
    }
  }

  /// The CRS as `declaredCRS` gives it: nil for WGS84 longitude/latitude (OGC:CRS84,
  /// EPSG:4326), `EPSG:n` for another EPSG code, else the PROJJSON text (PROJ reads it).
  static func crs(_ value: JSONValue) -> String? {
    if case .string(let text) = value {
      let upper = text.uppercased()
      return upper == "OGC:CRS84" || upper == "EPSG:4326" ? nil : text
    }
    guard case .object(let object) = value else { return nil }
    if case .object(let id)? = object["id"], let authority = id["authority"]?.stringValue {
      let code = id["code"].flatMap { code in
        code.stringValue ?? code.numberValue.flatMap { Int(exactly: $0) }.map { String($0) }
      }
      if let code {
        switch (authority.uppercased(), code.uppercased()) {
        case ("OGC", "CRS84"), ("EPSG", "4326"): return nil
        case ("EPSG", _): return "EPSG:\(code)"
        default: break
        }
      }
    }
    var writer = JSONTextWriter()
    writer.writeValue(value)
    return String(decoding: writer.bytes, as: UTF8.self)
  }
}
