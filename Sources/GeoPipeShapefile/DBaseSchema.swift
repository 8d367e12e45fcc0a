import GeoPipeCore
import GeoPipeIO

/// The dBASE fields a shapefile writer makes from the features' properties: one per property
/// name, in the order first seen, typed and sized from every value (so rows wait in a scratch
/// file until all are known).
struct DBaseSchema {
  /// What a field has held so far.
  struct Column {
    var name: String
    var integers = false
    var reals = false
    var bools = false
    var texts = false
    /// The widest integer, in characters.
    var integerWidth = 1
    /// The longest value as text, in bytes.
    var textWidth = 1
  }

  private(set) var columns: [Column] = []
  private var index: [String: Int] = [:]
  /// The names and columns of the properties at each position of the last feature: features
  /// of one file mostly list the same properties in the same order, and comparing a name with
  /// the same string is cheaper than hashing it.
  private var recent: [(name: String, column: Int)] = []

  /// The column of property `name`, the `position`-th of its feature, added when new.
  mutating func column(_ name: String, position: Int) -> Int {
    if position < recent.count, recent[position].name == name { return recent[position].column }
    let k = column(name)
    if position < recent.count {
      recent[position] = (name, k)
    } else if position == recent.count {
      recent.append((name, k))
    }
    return k
  }

  /// The column of property `name`, added when new.
  mutating func column(_ name: String) -> Int {
    if let k = index[name] { return k }
    index[name] = columns.count
    columns.append(Column(name: name))
    return columns.count - 1
  }

  mutating func noteInteger(_ k: Int, width: Int) {
    columns[k].integers = true
    columns[k].integerWidth = max(columns[k].integerWidth, width)
    columns[k].textWidth = max(columns[k].textWidth, width)
  }

  mutating func noteReal(_ k: Int, width: Int) {
    columns[k].reals = true
    columns[k].textWidth = max(columns[k].textWidth, width)
  }

  mutating func noteBool(_ k: Int, value: Bool) {
    columns[k].bools = true
    columns[k].textWidth = max(columns[k].textWidth, value ? 4 : 5)
  }

  mutating func noteText(_ k: Int, width: Int) {
    columns[k].texts = true
    columns[k].textWidth = max(columns[k].textWidth, width)
  }

  /// The fields to write, with names cut to dBASE's 10 bytes and made unique as GDAL does
  /// (`name_1` … `name_9`, then `name10` … `name99`), and the renames made.
  func fields() throws -> (fields: [Field], renames: [(from: String, to: String)]) {
    var fields: [Field] = []
    var renames: [(from: String, to: String)] = []
    var taken = Set<String>()
    for column in columns {
      var name = Self.prefix(column.name, bytes: 10)
      var suffix = 1
      while taken.contains(name.uppercased()) && suffix < 100 {
        let stem = Self.prefix(column.name, bytes: 8)
        name = suffix < 10 ? "\(stem)_\(suffix)" : "\(stem)\(suffix)"
        suffix += 1
      }
      guard !taken.contains(name.uppercased()) else {
        throw GeoPipeError.data(
          "too many properties share the first 8 bytes of '\(column.name)' for dBASE's 10-byte "
            + "field names", at: nil)
      }
      taken.insert(name.uppercased())
      if name != column.name { renames.append((column.name, name)) }
      let kind: Field.Kind
      let width: Int
      let decimals: Int
      switch (column.integers, column.reals, column.bools, column.texts) {
      case (true, false, false, false):
        (kind, width, decimals) = (.integer, column.integerWidth, 0)
      case (_, true, false, false):
        (kind, width, decimals) = (.real, max(24, column.integerWidth), 15)
      case (false, false, true, false):
        (kind, width, decimals) = (.logical, 1, 0)
      default:
        (kind, width, decimals) = (.text, min(max(column.textWidth, 1), 254), 0)
      }
      fields.append(Field(name: name, kind: kind, width: width, decimals: decimals))
    }
    return (fields, renames)
  }

  /// The longest prefix of `text` of at most `bytes` UTF-8 bytes that ends between characters.
  static func prefix(_ text: String, bytes: Int) -> String {
    var result = ""
    var used = 0
    for character in text {
      let size = character.utf8.count
      if used + size > bytes { break }
      used += size
      result.append(character)
    }
    return result
  }

  /// A field as written.
  struct Field {
    enum Kind { case integer, real, logical, text }
    var name: String
    var kind: Kind
    var width: Int
    var decimals: Int

    /// The dBASE type letter.
    var letter: UInt8 {
      switch kind {
      case .integer, .real: UInt8(ascii: "N")
      case .logical: UInt8(ascii: "L")
      case .text: UInt8(ascii: "C")
      }
    }
  }
}
