import GeoPipeSQLite

/// Finds the names within a small edit distance of a folded query.
///
/// Candidates come from the trigram index (`names_trigram`). One edit destroys at most a run
/// of consecutive query trigrams: three for a substitution, an insertion or a deletion, four
/// for a swap of neighbours. So a name within d edits keeps at least one of any d + 1 query
/// trigrams that lie four positions apart or more (d runs cannot cover them all), and only
/// those are looked up: the cheapest such set by document counts (from an `fts5vocab`
/// table), which keeps common trigrams such as "ang" or " de" out of the search. When the
/// query is too short for that, trigrams three apart are used (a swap next to another edit
/// may then go unnoticed), and failing that every trigram (a name must share one). Each
/// candidate of about the right length is then checked with the optimal string alignment
/// distance (Levenshtein plus swaps of neighbours, so "Amsterdma" is one edit from
/// "Amsterdam") on its folded name. The folded names are read into memory on first use
/// (about 10 MB for a cities500 gazetteer) so that checking a candidate costs no query.
/// A gazetteer built without the trigram index (`--no-typo-index`) has no typo matches.
final class TypoMatcher {
  private let database: SQLiteDatabase
  /// Every folded name's UTF-8 bytes, back to back, and where each name id's bytes start.
  private var bytes: [UInt8] = []
  private var offsets: [Int32] = []
  private var isLoaded = false
  /// Whether the gazetteer has the trigram index.
  private var hasIndex = false
  /// How many names hold each trigram looked up lately.
  private var frequencies: [String: Int] = [:]
  /// Which name ids the current query has seen, and their list, reset after each query.
  private var seen: [Bool] = []
  private var touched: [Int] = []
  private var scalars: [UInt32] = []
  private var scratch = AlignmentScratch()

  init(database: SQLiteDatabase) {
    self.database = database
  }

  /// The ids of the names within `maxDistance` edits of `query` (folded), with their
  /// distances.
  func matches(_ query: String, maxDistance: Int) throws -> [(id: Int64, distance: Int)] {
    try load()
    guard hasIndex else { return [] }
    let characters = Array(query.unicodeScalars)
    let target = characters.map(\.value)
    guard target.count >= 3 else { return [] }
    var trigrams: [String] = []
    var costs: [Int] = []
    for k in 0...(target.count - 3) {
      let trigram = String(String.UnicodeScalarView(characters[k..<(k + 3)]))
      trigrams.append(trigram)
      costs.append(try frequency(of: trigram))
    }
    let probes =
      Self.cheapestSpread(costs, count: maxDistance + 1, gap: 4)
      ?? Self.cheapestSpread(costs, count: maxDistance + 1, gap: 3)
      ?? Array(trigrams.indices)
    let statement = try database.statement(
      "SELECT rowid FROM names_trigram WHERE names_trigram MATCH ?1")
    defer {
      for id in touched { seen[id] = false }
      touched.removeAll(keepingCapacity: true)
    }
    for trigram in Set(probes.map { trigrams[$0] }) {
      statement.reset()
      try statement.bind(.text("\"" + trigram + "\""))
      while try statement.step() {
        let id = Int(statement.int64(0))
        guard id >= 0, id < seen.count, !seen[id] else { continue }
        seen[id] = true
        touched.append(id)
      }
    }
    var found: [(id: Int64, distance: Int)] = []
    let queryIsASCII = target.allSatisfy { $0 < 0x80 }
    for id in touched {
      guard id + 1 < offsets.count else { continue }
      let start = Int(offsets[id])
      let end = Int(offsets[id + 1])
      // Cheap bounds first: the length in scalars, and, for an ASCII query, the scalars
      // beyond ASCII, each of which costs an edit.
      var length = 0
      var beyondASCII = 0
      for k in start..<end {
        let byte = bytes[k]
        if byte & 0xC0 != 0x80 { length += 1 }
        if byte >= 0xC0 { beyondASCII += 1 }
      }
      guard abs(length - target.count) <= maxDistance,
        queryIsASCII ? beyondASCII <= maxDistance : true
      else { continue }
      decode(start..<end, isASCII: beyondASCII == 0)
      guard
        let distance = Self.alignmentDistance(
          target, scalars, limit: maxDistance, scratch: &scratch)
      else { continue }
      found.append((Int64(id), distance))
    }
    return found
  }

  /// Reads every folded name, once.
  private func load() throws {
    guard !isLoaded else { return }
    hasIndex =
      try database.scalarText(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'names_trigram'") != nil
    guard hasIndex else {
      isLoaded = true
      return
    }
    // The temporary schema is writable on a read-only connection.
    try database.execute(
      """
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.names_trigram_vocab
        USING fts5vocab(main, names_trigram, row)
      """)
    let statement = try database.statement("SELECT id, folded FROM names ORDER BY id")
    while try statement.step() {
      let id = Int(statement.int64(0))
      guard id >= 0 else { continue }
      while offsets.count <= id { offsets.append(Int32(bytes.count)) }
      bytes.append(contentsOf: statement.text(1).utf8)
    }
    offsets.append(Int32(bytes.count))
    seen = [Bool](repeating: false, count: offsets.count)
    isLoaded = true
  }

  /// How many names hold a trigram, from the index's vocabulary.
  private func frequency(of trigram: String) throws -> Int {
    if let known = frequencies[trigram] { return known }
    let statement = try database.statement(
      "SELECT doc FROM temp.names_trigram_vocab WHERE term = ?1")
    try statement.bind(.text(trigram))
    let count = try statement.step() ? Int(statement.int64(0)) : 0
    if frequencies.count >= 100_000 { frequencies.removeAll(keepingCapacity: true) }
    frequencies[trigram] = count
    return count
  }

  /// Decodes the bytes of a name into `scalars`.
  private func decode(_ range: Range<Int>, isASCII: Bool) {
    scalars.removeAll(keepingCapacity: true)
    if isASCII {
      for k in range { scalars.append(UInt32(bytes[k])) }
    } else {
      for scalar in String(decoding: bytes[range], as: UTF8.self).unicodeScalars {
        scalars.append(scalar.value)
      }
    }
  }

  /// The indices of `count` entries of `costs`, each `gap` or more after the one before, whose
  /// costs add up to the least; nil when there are too few entries.
  static func cheapestSpread(_ costs: [Int], count: Int, gap: Int) -> [Int]? {
    guard count > 0, (count - 1) * gap < costs.count else { return nil }
    // best[j][i]: the cheapest choice of j + 1 entries ending at entry i, and its previous.
    var best = [[(cost: Int, previous: Int)]](
      repeating: [(Int, Int)](repeating: (Int.max, -1), count: costs.count), count: count)
    for i in costs.indices { best[0][i] = (costs[i], -1) }
    for j in 1..<count {
      var cheapest = (cost: Int.max, index: -1)
      for i in costs.indices {
        if i - gap >= 0, best[j - 1][i - gap].cost < cheapest.cost {
          cheapest = (best[j - 1][i - gap].cost, i - gap)
        }
        if cheapest.index >= 0 { best[j][i] = (cheapest.cost + costs[i], cheapest.index) }
      }
    }
    guard var last = costs.indices.min(by: { best[count - 1][$0].cost < best[count - 1][$1].cost }),
      best[count - 1][last].cost < Int.max
    else { return nil }
    var chosen = [last]
    for j in stride(from: count - 1, to: 0, by: -1) {
      last = best[j][last].previous
      chosen.append(last)
    }
    return chosen.reversed()
  }

  /// The optimal string alignment distance between `a` and `b` (insertions, deletions,
  /// substitutions and swaps of neighbours, each substring edited once), or nil when it
  /// exceeds `limit`.
  static func alignmentDistance(
    _ a: [UInt32], _ b: [UInt32], limit: Int, scratch: inout AlignmentScratch
  ) -> Int? {
    let n = a.count
    let m = b.count
    guard abs(n - m) <= limit else { return nil }
    if n == 0 || m == 0 { return max(n, m) }
    // Three rows of the table, taken out of the scratch space so that they are not copied.
    var before: [Int] = []
    var previous: [Int] = []
    var current: [Int] = []
    swap(&before, &scratch.before)
    swap(&previous, &scratch.previous)
    swap(&current, &scratch.current)
    defer {
      swap(&before, &scratch.before)
      swap(&previous, &scratch.previous)
      swap(&current, &scratch.current)
    }
    if current.count < m + 1 {
      before = [Int](repeating: 0, count: m + 1)
      previous = before
      current = before
    }
    for j in 0...m { previous[j] = j }
    for i in 1...n {
      current[0] = i
      var smallest = i
      for j in 1...m {
        var value = min(
          previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          value = min(value, before[j - 2] + 1)
        }
        current[j] = value
        smallest = min(smallest, value)
      }
      // Every cell of the next row costs at least the smallest of this one or, through a
      // swap, one more than a cell of the row before, which bounds this row's smallest too.
      if smallest > limit { return nil }
      swap(&before, &previous)
      swap(&previous, &current)
    }
    return previous[m] <= limit ? previous[m] : nil
  }
}

/// Reusable rows for `TypoMatcher.alignmentDistance`.
struct AlignmentScratch {
  var before: [Int] = []
  var previous: [Int] = []
  var current: [Int] = []
}
