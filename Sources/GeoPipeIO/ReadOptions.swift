import GeoPipeCore

/// What to do with a feature that cannot be read.
public enum ErrorPolicy: String, CaseIterable, Sendable {
  /// Stop at the first bad feature.
  case fail
  /// Skip bad features where the format allows resuming, and count them.
  case skip
}

/// A warning or note that a reader reports without stopping.
public struct ReadDiagnostic: Sendable, CustomStringConvertible {
  /// How much a diagnostic matters, spelt as it is printed.
  public enum Severity: String, Sendable {
    /// Something the user may want to know; the output is as asked.
    case note
    /// Something that probably needs the user's attention.
    case warning
  }

  /// `note` or `warning`.
  public var severity: Severity
  /// The message.
  public var message: String
  /// Where, if known.
  public var location: SourceLocation?
  /// For a skipped feature, what kind of problem it had.
  public var problem: InputProblem?

  /// Creates a diagnostic.
  public init(
    severity: Severity, message: String, location: SourceLocation? = nil,
    problem: InputProblem? = nil
  ) {
    self.severity = severity
    self.message = message
    self.location = location
    self.problem = problem
  }

  /// `file:line:column: warning: message`.
  public var description: String {
    if let location {
      "\(location): \(severity.rawValue): \(message)"
    } else {
      "\(severity.rawValue): \(message)"
    }
  }
}

/// How readers interpret their input.
public struct ReadOptions: Sendable {
  /// Check that longitudes and latitudes are in range (off when a CRS is declared).
  public var checkRanges = true
  /// Fail on the first bad feature, or skip bad features.
  public var onError = ErrorPolicy.fail
  /// The deepest nesting of JSON arrays and objects accepted.
  public var maxDepth = 512
  /// The format, when not detected.
  public var format: FeatureFormat?
  /// The layer to read, for formats that hold several (a GeoPackage's tables, the shapefiles
  /// of a zip archive).
  public var layer: String?
  /// Only features whose bounding box meets this one (WGS84) are wanted: formats with a
  /// spatial index read only those; other readers may return more, and the caller filters.
  public var bbox: BBox?
  /// Values of the options formats add to `read` (`FeatureFormat.readOptions`).
  public var formatOptions = FormatOptionValues()
  /// CSV settings.
  public var csv = CSVOptions()
  /// Threads that parse GeoJSON; above 1, one more thread cuts the input into batches.
  ///
  /// Features still come out in input order, with the same errors.
  public var threads = 1
  /// Input bytes per batch when parsing on several threads.
  public var batchBytes = 1 << 20
  /// The CRS that a GeoJSON input's legacy `crs` member names, when not WGS84: set when the
  /// input is opened, which then turns `checkRanges` off (see `GeoJSONCRS`).
  public var declaredCRS: String?
  /// The most bytes one record (a feature, a CSV row) or one token may take: memory stays
  /// bounded by it, and a longer one is an error.
  public var maxRecordSize = Self.defaultMaxRecordSize
  /// 256 MiB.
  public static let defaultMaxRecordSize = 256 << 20
  /// The share of the input that one shard of a run reads (`--shard`); nil: all of it.
  public var share: InputShare?
  /// Receives notes and warnings (a dropped `crs` member, a skipped feature).
  public var diagnostics: @Sendable (ReadDiagnostic) -> Void = { _ in }

  /// Default options.
  public init() {}
}

/// How the CSV reader finds coordinates and types values.
public struct CSVOptions: Sendable {
  /// The field delimiter; detected from the header when nil.
  public var delimiter: UInt8?
  /// The latitude column's name, when not found by name.
  public var latitudeColumn: String?
  /// The longitude column's name, when not found by name.
  public var longitudeColumn: String?
  /// A WKT geometry column's name.
  public var geometryColumn: String?
  /// Turn numeric and boolean cells into numbers and booleans (never "007" into 7).
  public var inferTypes = false

  /// Default options.
  public init() {}
}
