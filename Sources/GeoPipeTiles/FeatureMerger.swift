/// The features of one tile held back one per layer, so that the features after them that
/// `coalesce-densest-as-needed` takes out can be merged into their geometry.
///
/// A merged feature's MVT commands (§4.3) are appended to the held feature's: points join its
/// MoveTo, lines and polygons become further parts; the first position of the appended
/// commands is moved to be relative to where the held commands end.
struct FeatureMerger {
  struct Held {
    var id: UInt64?
    var kind: UInt8
    var tags: [Int32]
    var commands: [UInt32]
  }

  private var held: [Int32: Held] = [:]

  /// Merges `commands` into the feature held in `layer` when it has the same kind; false when
  /// there is none to merge into.
  mutating func merge(_ commands: [UInt32], kind: UInt8, layer: Int32) -> Bool {
    guard var target = held[layer], target.kind == kind, commands.count >= 3 else { return false }
    let (cx, cy) = Self.end(of: target.commands)
    var appended = commands
    appended[1] = ProtobufWriter.zigzag(ProtobufDecoder.unzigzag(commands[1]) &- cx)
    appended[2] = ProtobufWriter.zigzag(ProtobufDecoder.unzigzag(commands[2]) &- cy)
    if kind == WorldGeometry.Kind.point.rawValue {
      // One MoveTo holds every point of a (multi)point feature.
      let total = Int(target.commands[0] >> 3) + Int(commands[0] >> 3)
      target.commands[0] = CommandWriter.command(1, total)
      target.commands += appended.dropFirst()
    } else {
      target.commands += appended
    }
    held[layer] = target
    return true
  }

  /// Holds `feature` in `layer` and returns the feature it replaces, to be written.
  mutating func hold(_ feature: Held, layer: Int32) -> Held? {
    held.updateValue(feature, forKey: layer)
  }

  /// The features still held, by layer.
  var remaining: [(layer: Int32, feature: Held)] {
    held.keys.sorted().compactMap { layer in held[layer].map { (layer, $0) } }
  }

  /// The cursor position after `commands`.
  private static func end(of commands: [UInt32]) -> (Int32, Int32) {
    var x: Int32 = 0
    var y: Int32 = 0
    var k = 0
    while k < commands.count {
      let id = commands[k] & 7
      let count = Int(commands[k] >> 3)
      k += 1
      guard id == 1 || id == 2 else { continue }
      for _ in 0..<count where k + 1 < commands.count {
        x &+= ProtobufDecoder.unzigzag(commands[k])
        y &+= ProtobufDecoder.unzigzag(commands[k + 1])
        k += 2
      }
    }
    return (x, y)
  }
}
