import GeoPipeCore
import GeoPipeIO

extension FlatGeobufReader {
  /// Opens the features of a shard's share: the `k`th of the header's `n` features is at
  /// position `k · size / n` (`InputShare.records(count:)`); those before the share are
  /// stepped over without being decoded, and reading stops after the share's last.
  ///
  /// A file whose header does not give the count, or read through its index (`--bbox`), does
  /// not split: the shard whose share holds its start reads it whole.
  @Sendable
  static func openShare(_ path: String, options given: ReadOptions, share: InputShare) throws
    -> any FeatureReader
  {
    var options = given
    options.threads = 1
    let reader = try FeatureReaders.open(path, options: options)
    guard let fgb = reader as? FlatGeobufReader, fgb.featuresCount > 0,
      let input = fgb.sequentialInput
    else {
      return share.readsWhole ? reader : EmptyFeatureReader()
    }
    let records = share.records(count: fgb.featuresCount)
    for _ in 0..<records.lowerBound {
      guard let size = try fgb.nextRecord(input) else { break }
      input.consume(4 + size)
      fgb.index += 1
    }
    return RecordRangeReader(fgb, count: records.count)
  }
}
