/// One way to read a query: the folded name to look up, and the qualifiers that say where
/// it is (each a set of areas, any of which will do).
struct QueryReading: Sendable {
  /// The folded name.
  var name: String
  /// Each qualifier's areas; a result must lie in one area of every qualifier.
  var qualifiers: [[Area]]
  /// Whether the qualifiers were split off the end of the name ("Portland Oregon") rather
  /// than given after commas: such a reading is only a guess, tried after the literal one.
  var isGuess: Bool

  /// Whether a row lies in one area of every qualifier.
  func admits(_ place: Place) -> Bool {
    qualifiers.allSatisfy { areas in areas.contains { $0.contains(place) } }
  }
}

/// Splits a query into readings.
///
/// Text after a comma qualifies the name: "Springfield, IL", "Paris, Texas", "London,
/// Ontario, Canada". Each such part must name one or more areas (a country by name or ISO
/// code, an admin1 area by name or US state code), else the query has no reading and finds
/// nothing. The name part may also end in qualifiers without a comma ("Portland Oregon",
/// "Paris France"): those readings come after the literal one, longest name first, and are
/// used only when the literal name does not match.
enum QueryParser {
  /// The most words one area name may have ("united states of america" has four).
  static let maxAreaWords = 4

  /// The readings of a query, the literal one first; empty when a qualifier names no area or
  /// the name is empty.
  static func readings(of text: String, areas: AreaDirectory) -> [QueryReading] {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
      NameFolding.fold(String($0))
    }
    guard let first = parts.first, !first.isEmpty else { return [] }
    var qualifiers: [[Area]] = []
    for part in parts.dropFirst() where !part.isEmpty {
      let whole = areas.areas(named: part)
      if !whole.isEmpty {
        qualifiers.append(whole)
      } else if let sequence = phrases(part.split(separator: " ").map(String.init), areas) {
        qualifiers += sequence
      } else {
        return []
      }
    }
    var readings = [QueryReading(name: first, qualifiers: qualifiers, isGuess: false)]
    let words = first.split(separator: " ").map(String.init)
    for cut in stride(from: words.count - 1, to: 0, by: -1) {
      guard let tail = phrases(Array(words[cut...]), areas) else { continue }
      readings.append(
        QueryReading(
          name: words[..<cut].joined(separator: " "), qualifiers: qualifiers + tail,
          isGuess: true))
    }
    return readings
  }

  /// Reads words as a sequence of area names, longest names first; nil when some word is
  /// left over.
  private static func phrases(_ words: [String], _ areas: AreaDirectory) -> [[Area]]? {
    guard !words.isEmpty else { return [] }
    for length in stride(from: min(maxAreaWords, words.count), through: 1, by: -1) {
      let named = areas.areas(named: words[..<length].joined(separator: " "))
      guard !named.isEmpty, let rest = phrases(Array(words[length...]), areas) else { continue }
      return [named] + rest
    }
    return nil
  }
}
