import GeoPipeCore

/// The `COPY (…) TO STDOUT (FORMAT binary)` statement that reads a table or a query: each
/// column selected so that its binary form is one a `PostgreSQLReader` decodes.
struct PostgreSQLQuery {
  /// How a column's binary values become JSON values (or the geometry).
  enum Decoding {
    case geometry, boolean, int2, int4, int8, float4, float8, text, json, jsonb
  }

  /// The selected columns: name and decoding.
  var columns: [(name: String, decoding: Decoding)] = []
  /// The statement.
  var copy = ""

  /// Type OIDs of the built-in types decoded as they are sent (pg_type.dat).
  private static let builtIn: [UInt32: Decoding] = [
    16: .boolean, 21: .int2, 23: .int4, 20: .int8, 700: .float4, 701: .float8, 25: .text,
    1043: .text, 1042: .text, 19: .text, 114: .json, 3802: .jsonb,
  ]

  /// Describes `source` (a quoted table name or a parenthesised query) and builds the
  /// statement: the geometry column (`geometryColumn`, else the first geometry or geography
  /// column) as EWKB in WGS84 (`ST_Transform` when its SRID is another), built-in scalar types
  /// as they are, and any other type as `to_jsonb` makes it (timestamps become ISO 8601
  /// strings, numeric a JSON number, arrays arrays); `bbox` becomes a `&&` filter, ANDed with
  /// `conditions` (on the source's columns as `q.name`), and the rows come in `order`.
  init(
    connection: PostgreSQLConnection, source: String, geometryColumn: String?, bbox: BBox?,
    conditions: [String] = [], order: String? = nil
  ) throws {
    let prefix = "SELECT * FROM "
    let described: [(name: String, type: UInt32, modifier: Int32)]
    do {
      described = try connection.describe(prefix + source + " AS q")
    } catch var error {
      // Positions count from the start of the query as given (a table name has none).
      let shift = prefix.count + 1
      error.position =
        source.hasPrefix("(") ? error.position.map { $0 > shift ? $0 - shift : $0 } : nil
      throw error
    }
    let spatial = try connection.execute(
      "SELECT typname, oid FROM pg_type WHERE typname IN ('geometry', 'geography')")
    let geometryType = spatial.first { $0[0] == "geometry" }?[1].flatMap { UInt32($0) }
    let geographyType = spatial.first { $0[0] == "geography" }?[1].flatMap { UInt32($0) }
    let isSpatial = { (type: UInt32) in type == geometryType || type == geographyType }
    let chosen: Int?
    if let geometryColumn {
      guard let k = described.firstIndex(where: { $0.name == geometryColumn }),
        isSpatial(described[k].type)
      else {
        throw PostgreSQLError(
          message: "no geometry or geography column '\(geometryColumn)' (columns: "
            + described.map(\.name).joined(separator: ", ") + ")")
      }
      chosen = k
    } else {
      chosen = described.firstIndex { isSpatial($0.type) }
    }
    var select: [String] = []
    var conditions = conditions
    for (k, column) in described.enumerated() {
      let name = "q." + (try connection.quote(column.name))
      if k == chosen {
        let srid = column.type == geographyType ? 4326 : Self.srid(column.modifier)
        let wgs84 =
          column.type == geographyType
          ? "\(name)::geometry"
          : srid == 4326
            ? name
            : "CASE WHEN ST_SRID(\(name)) IN (0, 4326) THEN \(name) "
              + "ELSE ST_Transform(\(name), 4326) END"
        select.append("ST_AsEWKB(\(wgs84))")
        columns.append((column.name, .geometry))
        if let bbox {
          conditions.append(
            "(" + Self.boxes(bbox).map { "\(wgs84) && \($0)" }.joined(separator: " OR ") + ")")
        }
      } else if let decoding = Self.builtIn[column.type] {
        select.append(name)
        columns.append((column.name, decoding))
      } else {
        select.append("to_jsonb(\(name))")
        columns.append((column.name, .jsonb))
      }
    }
    let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    copy =
      "COPY (SELECT \(select.joined(separator: ", ")) FROM \(source) AS q\(filter)"
      + "\(order.map { " ORDER BY \($0)" } ?? "")) TO STDOUT (FORMAT binary)"
  }

  /// The SRID in a PostGIS geometry type modifier (PostGIS's `TYPMOD_GET_SRID`); nil when
  /// there is none.
  static func srid(_ modifier: Int32) -> Int32? {
    guard modifier >= 0 else { return nil }
    let srid = ((modifier & 0x0FFF_FF00) - (modifier & 0x1000_0000)) >> 8
    return srid > 0 ? srid : nil
  }

  /// The envelopes of a box, two when it crosses the antimeridian.
  private static func boxes(_ box: BBox) -> [String] {
    func envelope(_ w: Double, _ e: Double) -> String {
      "ST_MakeEnvelope(\(w), \(box.south), \(e), \(box.north), 4326)"
    }
    return box.west <= box.east
      ? [envelope(box.west, box.east)] : [envelope(box.west, 180), envelope(-180, box.east)]
  }
}
