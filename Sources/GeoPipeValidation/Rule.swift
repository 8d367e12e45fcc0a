import GeoPipeCore

/// How much a finding matters: errors fail a validation, warnings do not.
public enum Severity: String, CaseIterable, Comparable, Hashable, Sendable {
  /// Reported; fails only with `--warnings-as-errors`.
  case warning
  /// Fails the validation (exit 1).
  case error

  /// Warnings sort before errors.
  public static func < (a: Severity, b: Severity) -> Bool { a == .warning && b == .error }
}

/// One check of `validate`, with a stable code (`GP012`), a name and a default severity.
///
/// Codes never change meaning once published; docs/validate.md has the table.
public struct Rule: Hashable, Sendable, CustomStringConvertible {
  /// The stable code, `GP` and three digits.
  public let code: String
  /// A short kebab-case name, accepted wherever a code is.
  public let name: String
  /// The severity findings have unless `--warnings-as-errors` raises it.
  public let severity: Severity
  /// One sentence saying what the rule checks.
  public let summary: String

  init(_ code: String, _ name: String, _ severity: Severity, _ summary: String) {
    self.code = code
    self.name = name
    self.severity = severity
    self.summary = summary
  }

  /// The code.
  public var description: String { code }
}

extension Rule {
  /// GP001 `syntax`.
  public static let syntax = Rule(
    "GP001", "syntax", .error,
    "The file is not well-formed JSON or CSV, or is not text at all (unreadable content).")
  /// GP002 `structure`.
  public static let structure = Rule(
    "GP002", "structure", .error,
    "Well-formed JSON that is not valid GeoJSON (RFC 7946), or a CSV row that does not fit the header."
  )
  /// GP003 `non-finite-coordinate`.
  public static let nonFiniteCoordinate = Rule(
    "GP003", "non-finite-coordinate", .error,
    "A coordinate is not a finite number (GEOS: Invalid Coordinate).")
  /// GP004 `out-of-range`.
  public static let outOfRange = Rule(
    "GP004", "out-of-range", .error,
    "A longitude outside [-180, 180] or a latitude outside [-90, 90].")
  /// GP005 `too-few-points`.
  public static let tooFewPoints = Rule(
    "GP005", "too-few-points", .error,
    "A line with fewer than two positions or a ring with fewer than four "
      + "(GEOS: Too few points in geometry component).")
  /// GP006 `unclosed-ring`.
  public static let unclosedRing = Rule(
    "GP006", "unclosed-ring", .error,
    "A polygon ring whose first and last positions differ (GEOS: Ring is not closed).")
  /// GP010 `self-intersection`.
  public static let selfIntersection = Rule(
    "GP010", "self-intersection", .error,
    "Polygon rings cross or touch each other improperly (GEOS: Self-intersection).")
  /// GP011 `ring-self-intersection`.
  public static let ringSelfIntersection = Rule(
    "GP011", "ring-self-intersection", .error,
    "A polygon ring touches itself at a point (GEOS: Ring Self-intersection).")
  /// GP012 `hole-outside-shell`.
  public static let holeOutsideShell = Rule(
    "GP012", "hole-outside-shell", .error,
    "A hole is not inside its exterior ring (GEOS: Hole lies outside shell).")
  /// GP013 `nested-holes`.
  public static let nestedHoles = Rule(
    "GP013", "nested-holes", .error, "A hole lies inside another hole (GEOS: Holes are nested).")
  /// GP014 `disconnected-interior`.
  public static let disconnectedInterior = Rule(
    "GP014", "disconnected-interior", .error,
    "Holes split the polygon's interior in parts (GEOS: Interior is disconnected).")
  /// GP015 `nested-shells`.
  public static let nestedShells = Rule(
    "GP015", "nested-shells", .error,
    "A MultiPolygon part lies inside another part (GEOS: Nested shells).")
  /// GP016 `duplicate-rings`.
  public static let duplicateRings = Rule(
    "GP016", "duplicate-rings", .error, "Two rings are identical (GEOS: Duplicate Rings).")
  /// GP019 `invalid-geometry`.
  public static let invalidGeometry = Rule(
    "GP019", "invalid-geometry", .error, "Any other reason GEOS gives for an invalid geometry.")
  /// GP020 `winding`.
  public static let winding = Rule(
    "GP020", "winding", .warning,
    "Polygon rings are not wound as RFC 7946 §3.1.6 asks (exteriors counter-clockwise, holes "
      + "clockwise).")
  /// GP021 `antimeridian`.
  public static let antimeridian = Rule(
    "GP021", "antimeridian", .warning,
    "A line or ring crosses the antimeridian without being split there (RFC 7946 §3.1.9).")
  /// GP022 `duplicate-points`.
  public static let duplicatePoints = Rule(
    "GP022", "duplicate-points", .warning,
    "The same position appears twice in a row in a line or ring.")
  /// GP023 `empty-geometry`.
  public static let emptyGeometry = Rule(
    "GP023", "empty-geometry", .warning, "A geometry with no positions.")
  /// GP024 `duplicate-id`.
  public static let duplicateID = Rule(
    "GP024", "duplicate-id", .error, "Two features in a file have the same id.")
  /// GP030 `schema`.
  public static let schema = Rule(
    "GP030", "schema", .error, "A feature's properties break a rule of the --schema file.")

  /// Every rule, in code order.
  public static let all: [Rule] = [
    .syntax, .structure, .nonFiniteCoordinate, .outOfRange, .tooFewPoints, .unclosedRing,
    .selfIntersection, .ringSelfIntersection, .holeOutsideShell, .nestedHoles,
    .disconnectedInterior, .nestedShells, .duplicateRings, .invalidGeometry, .winding,
    .antimeridian, .duplicatePoints, .emptyGeometry, .duplicateID, .schema,
  ]

  /// The rules that GEOS validity can report.
  public static let fromGEOS: Set<Rule> = [
    .nonFiniteCoordinate, .tooFewPoints, .unclosedRing, .selfIntersection, .ringSelfIntersection,
    .holeOutsideShell, .nestedHoles, .disconnectedInterior, .nestedShells, .duplicateRings,
    .invalidGeometry,
  ]

  /// The rule with this code or name (case-insensitive), or nil.
  public static func named(_ text: String) -> Rule? {
    let key = text.lowercased()
    return all.first { $0.code.lowercased() == key || $0.name == key }
  }

  /// The rule for a problem a reader reported.
  public static func forInput(_ problem: InputProblem?) -> Rule {
    switch problem {
    case .syntax, nil: .syntax
    case .structure: .structure
    case .nonFiniteCoordinate: .nonFiniteCoordinate
    case .coordinateOutOfRange: .outOfRange
    case .tooFewPositions: .tooFewPoints
    case .unclosedRing: .unclosedRing
    case .emptyPoint: .emptyGeometry
    }
  }

  /// The rule for a reason text of GEOSisValidDetail_r (GEOS 3.11's IsValidOp).
  public static func forGEOSReason(_ reason: String) -> Rule {
    switch reason {
    case "Self-intersection": .selfIntersection
    case "Ring Self-intersection": .ringSelfIntersection
    case "Hole lies outside shell": .holeOutsideShell
    case "Holes are nested": .nestedHoles
    case "Interior is disconnected": .disconnectedInterior
    case "Nested shells": .nestedShells
    case "Duplicate Rings": .duplicateRings
    case "Too few points in geometry component": .tooFewPoints
    case "Ring is not closed": .unclosedRing
    case "Invalid Coordinate": .nonFiniteCoordinate
    default: .invalidGeometry
    }
  }
}
