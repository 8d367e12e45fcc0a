/// A single-pass stream of features (the shape of GRDB's `Cursor`).
///
/// Sources hold a bounded amount of memory whatever the size of their input.
public protocol FeatureSource {
  /// The next feature, or nil at the end of the input.
  mutating func next() throws -> Feature?
}
