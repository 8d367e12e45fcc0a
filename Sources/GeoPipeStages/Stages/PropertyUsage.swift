import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// Watches for properties that a stage's options name and no feature has.
///
/// A misspelt name (`populaton`) would otherwise filter, sort or group as if every feature
/// lacked it, and the run would end well. At the end each such name is one warning, with the
/// closest name the features did have; with `--strict` it is an error (exit 65). Once every
/// name has been seen the check costs nothing more.
struct PropertyUsage {
  /// The `--strict` option of the stages that name properties.
  static let strictOption = OptionSpec(
    "strict", .flag,
    help: "Fail (exit 65) when a property the options name is on no feature, instead of "
      + "warning.")

  /// How many features give the names that suggestions are chosen from.
  private static let sampled = 10_000

  private let stage: String
  private let strict: Bool
  private var unseen: [String]
  private var features = 0
  private var names: [String] = []
  private var known: Set<String> = []

  /// Watches `names` for the stage called `stage` (the prefix of its messages).
  init(stage: String, names: [String], strict: Bool) {
    self.stage = stage
    self.strict = strict
    var distinct = Set<String>()
    unseen = names.filter { distinct.insert($0).inserted }
  }

  /// Notes the properties of one feature.
  mutating func observe(_ properties: JSONObject?) {
    guard !unseen.isEmpty else { return }
    features += 1
    guard let properties else { return }
    unseen.removeAll { properties[$0] != nil }
    guard !unseen.isEmpty, features <= Self.sampled else { return }
    for member in properties.members where known.insert(member.key).inserted {
      names.append(member.key)
    }
  }

  /// Whether `name` is one the features were watched for and none had.
  func isUnseen(_ name: String) -> Bool { features > 0 && unseen.contains(name) }

  /// Reports each name no feature had: a warning, or with `--strict` an error.
  ///
  /// Says nothing when there were no features.
  func finish(report: (ReadDiagnostic) -> Void) throws {
    guard features > 0 else { return }
    for name in unseen {
      var message = "\(stage): no feature has a property '\(name)'"
      if let close = Suggestions.closest(to: name, among: names) {
        message += "; did you mean '\(close)'?"
        if close.lowercased() == name.lowercased() { message += " (names are case-sensitive)" }
      }
      if strict { throw GeoPipeError(message, status: .dataError) }
      report(ReadDiagnostic(severity: .warning, message: message))
    }
  }
}
