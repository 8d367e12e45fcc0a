/// What `geocode` and `reverse-geocode` do with a feature they find no place for (`--on-miss`).
enum MissPolicy: String, CaseIterable, Sendable {
  /// Write it as it is, with `match = none`.
  case keep
  /// Leave it out.
  case drop
  /// Stop with a data error (exit 65).
  case fail
}
