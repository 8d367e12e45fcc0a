/// Number text in the lenient form that text formats other than JSON use, for the format
/// modules.
public enum LenientDecimal {
  /// The nearest Double to `bytes`, or nil when the bytes are not a number.
  ///
  /// A number is an optional sign, digits with an optional '.' (".5" and "5." allowed) and an
  /// optional exponent; no whitespace, "nan", "inf" or hex. Correctly rounded, as `strtod` in
  /// the "C" locale.
  public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    parseDecimalLenient(bytes)
  }
}
