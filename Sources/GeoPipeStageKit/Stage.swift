import GeoPipeCore

/// Where a stage sends the features it produces.
public typealias Emit = (Feature) throws -> Void

/// A step of a pipeline, driven by the runner: it is handed features one at a time and emits
/// zero or more for each, then is told the input has ended.
///
/// Because the runner pushes features through, one stage can feed several consumers without
/// buffering. A stage that must see every feature before emitting (sort, cluster) buffers
/// explicitly and says so in its help.
public protocol Stage: AnyObject {
  /// Handles one feature.
  func process(_ feature: Feature, emit: Emit) throws
  /// Called once after the last feature; emits anything held back and commits outputs.
  func finish(emit: Emit) throws
  /// Called instead of `finish` when the run fails: discards partial outputs.
  func abort()
  /// Whether the stage will ignore any further input (`head` once it has its N features), so
  /// that the runner may stop reading early.
  var isSatisfied: Bool { get }
}

extension Stage {
  /// Nothing to discard by default.
  public func abort() {}

  /// Most stages want every feature.
  public var isSatisfied: Bool { false }
}

/// A stage that emits nothing and can take many features at once (`write`): when it is the
/// only reader of a source that decodes in batches (`BatchFeatureReader`), the runner hands
/// it each batch whole instead of one feature at a time.
public protocol BatchConsumingStage: Stage {
  /// Handles features in order, as many calls of `process(_:emit:)` would.
  func process(contentsOf features: [Feature]) throws
}

/// A stage that writes a FeatureCollection and keeps the input collection's own members
/// (such as a `name`); the runner hands them over before `finish`.
public protocol CollectionMembersReceiver {
  /// Receives the input FeatureCollection's members other than its features.
  func receive(collectionMembers: JSONObject)
}

/// A stage that changes the input collection's own members (`rename-layer` renames its
/// `name`); the runner passes the result on to the stages it feeds.
public protocol CollectionMembersTransformer {
  /// The members the stages after this one receive, given those of its input.
  func transform(collectionMembers: JSONObject) -> JSONObject
}

/// What a stage definition builds: a source of features, a stage that is handed features, or
/// a stage that consumes features and writes something (a file, a report).
public enum StageRole: Sendable {
  /// Produces features from an input (`read`).
  case source
  /// Transforms features (`filter`).
  case transform
  /// Consumes features and writes a file or report (`write`, `info`).
  case sink
}
