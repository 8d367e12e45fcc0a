/// A single-pass stream of features (the shape of GRDB's `Cursor`).
///
/// Sources hold a bounded amount of memory whatever the size of their input.
public protocol FeatureSource {
  /// The next feature, or nil at the end of the input.
  mutating func next() throws -> Feature?
}

/// A source over features already in memory, mostly for tests and the Swift API.
public struct ArrayFeatureSource: FeatureSource {
  private var iterator: IndexingIterator<[Feature]>

  /// Creates a source that yields `features` in order.
  public init(_ features: [Feature]) {
    iterator = features.makeIterator()
  }

  /// The next feature, or nil after the last one.
  public mutating func next() throws -> Feature? { iterator.next() }
}
