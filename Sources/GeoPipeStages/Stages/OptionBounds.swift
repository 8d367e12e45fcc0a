import GeoPipeStageKit

/// Range checks for count options, shared by the stages' option tables.
///
/// Every count an option gives has an upper bound, so that a typo or an overflowing number is a
/// usage error (exit 64) before any work starts, never a crash or a run without end. The bound
/// is written into the option's help (`4 to 65536`).
enum OptionBounds {
  /// A check that the value is a whole number in `range`.
  static func integer(_ range: ClosedRange<Int>) -> @Sendable (String) -> ValueProblem? {
    { text in
      guard let n = Int(text), range.contains(n) else {
        return ValueProblem(
          "expected a whole number, \(range.lowerBound) or more and at most \(range.upperBound)")
      }
      return nil
    }
  }

  /// A check that the value is a number in `range` (`open` excludes the lower bound).
  static func number(_ range: ClosedRange<Double>, excludingLower open: Bool = false)
    -> @Sendable (String) -> ValueProblem?
  {
    { text in
      let low = Template.text(of: .double(range.lowerBound))
      let high = Template.text(of: .double(range.upperBound))
      let expected =
        open
        ? "expected a number above \(low), at most \(high)"
        : "expected a number from \(low) to \(high)"
      guard let x = Double(text), x.isFinite else {
        return ValueProblem(expected)
      }
      return range.contains(x) && !(open && x == range.lowerBound) ? nil : ValueProblem(expected)
    }
  }
}
