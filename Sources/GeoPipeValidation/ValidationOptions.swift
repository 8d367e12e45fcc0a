import GeoPipeCore
import GeoPipeIO

/// What `validate` checks and how it reports.
public struct ValidationOptions {
  /// Rules to run; nil runs all of them (`--select`).
  public var selected: Set<Rule>?
  /// Rules to leave out (`--ignore`).
  public var ignored: Set<Rule> = []
  /// Report warnings as errors (`--warnings-as-errors`).
  public var warningsAsErrors = false
  /// Coordinates are WGS84 degrees: ranges and antimeridian crossings are checked (off with
  /// `--crs`).
  public var geographic = true
  /// The input format, when not detected.
  public var format: FeatureFormat?
  /// How CSV files are read.
  public var csv = CSVOptions()
  /// Property rules (`--schema`).
  public var schema: PropertySchema?
  /// Write a repaired copy of each file beside it (`--fix`).
  public var fix = false

  /// Default options: every rule, default severities.
  public init() {}

  /// Whether findings of `rule` are reported.
  public func isEnabled(_ rule: Rule) -> Bool {
    !ignored.contains(rule) && (selected?.contains(rule) ?? true)
  }
}

/// What one file held and what was found in it.
public struct FileSummary: Sendable {
  /// The file as named on the command line.
  public var path: String
  /// Features read (including unreadable ones that were stepped over).
  public var features = 0
  /// Error-severity findings reported.
  public var errors = 0
  /// Warning-severity findings reported.
  public var warnings = 0
  /// The repaired copy written by `--fix`, if any.
  public var fixedPath: String?
  /// Features changed in the repaired copy.
  public var repaired = 0
  /// Unreadable features left out of the repaired copy.
  public var dropped = 0
  /// Why `--fix` wrote no copy, when it could not.
  public var fixSkipped: String?

  /// An empty summary for `path`.
  public init(path: String) {
    self.path = path
  }
}
