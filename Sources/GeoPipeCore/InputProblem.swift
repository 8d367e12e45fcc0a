/// What kind of problem an input error is, for tools that sort errors (such as `validate`'s
/// rule codes) rather than only print them.
public enum InputProblem: String, CaseIterable, Hashable, Sendable {
  /// The text is not well-formed JSON or CSV.
  case syntax
  /// Well-formed text that is not valid GeoJSON or does not fit the table's shape.
  case structure
  /// A coordinate is NaN, infinite or not a number.
  case nonFiniteCoordinate
  /// A longitude or latitude is outside [-180, 180] or [-90, 90].
  case coordinateOutOfRange
  /// A line with fewer than two positions or a ring with fewer than four.
  case tooFewPositions
  /// A polygon ring whose first and last positions differ.
  case unclosedRing
  /// A Point with `"coordinates": []`, which some tools write for an empty point and RFC 7946
  /// cannot express.
  case emptyPoint
}
