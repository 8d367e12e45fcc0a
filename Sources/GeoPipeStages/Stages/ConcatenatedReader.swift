import GeoPipeCore
import GeoPipeIO

/// The features of several readers, one after another (`read a.geojson b.csv`).
///
/// Each feature keeps its own properties, so the schema is the union of the inputs'; writers
/// that need columns (CSV, GeoPackage) take every property of every feature. The collection
/// members (a FeatureCollection's `name`) are the first input's.
final class ConcatenatedReader: FeatureReader {
  private let readers: [any FeatureReader]
  private var current = 0

  init(_ readers: [any FeatureReader]) {
    self.readers = readers
  }

  var bytesRead: Int { readers.reduce(0) { $0 + $1.bytesRead } }
  var skippedCount: Int { readers.reduce(0) { $0 + $1.skippedCount } }
  var collectionMembers: JSONObject { readers.first?.collectionMembers ?? JSONObject() }
  var lastFeatureLocation: SourceLocation? {
    current < readers.count ? readers[current].lastFeatureLocation : nil
  }
  var declaredCRS: String? { readers.first?.declaredCRS }

  func next() throws -> Feature? {
    while current < readers.count {
      if let feature = try readers[current].next() { return feature }
      current += 1
    }
    return nil
  }
}
