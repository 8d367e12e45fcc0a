import GeoPipeCore
import GeoPipeFlatGeobuf
import GeoPipeStageKit

/// One property's value as `sort` orders it.
///
/// Ascending: numbers (and strings that hold one) in numeric order, then other strings by
/// UTF-8 bytes (the order of Unicode scalars), then `false`, `true`, then arrays and objects
/// (equal to one another). A missing or null value is ordered apart, always last.
enum SortValue: Equatable {
  case number(NumericValue)
  case text(String)
  case boolean(Bool)
  case structure
  case missing

  /// The sort value of a property's value (nil when the feature lacks the property).
  init(_ value: JSONValue?) {
    switch value {
    case nil, .null?: self = .missing
    case .bool(let b)?: self = .boolean(b)
    case .array?, .object?: self = .structure
    case .integer(let n)?: self = .number(.integer(n))
    case .double(let x)?: self = .number(.double(x))
    // Beyond the range of a double these become infinities, which still order correctly.
    case .bigInteger(let digits)?, .bigNumber(let digits)?:
      self = Double(digits).map { .number(.double($0)) } ?? .structure
    case .string(let text)?:
      self = NumericValue.parse(text).map(SortValue.number) ?? .text(text)
    }
  }

  /// Compares two values that are not missing: -1, 0 or 1 for ascending order.
  static func compare(_ a: SortValue, _ b: SortValue) -> Int {
    switch (a, b) {
    case (.number(let x), .number(let y)): compare(x, y)
    case (.text(let x), .text(let y)): compareBytes(x, y)
    case (.boolean(let x), .boolean(let y)): x == y ? 0 : (x ? 1 : -1)
    default: sign(a.rank - b.rank)
    }
  }

  private var rank: Int {
    switch self {
    case .number: 0
    case .text: 1
    case .boolean: 2
    case .structure: 3
    case .missing: 4
    }
  }

  /// Compares numbers exactly, integers beyond 2^53 included.
  static func compare(_ a: NumericValue, _ b: NumericValue) -> Int {
    switch (a, b) {
    case (.integer(let x), .integer(let y)): x < y ? -1 : (x > y ? 1 : 0)
    case (.double(let x), .double(let y)): x < y ? -1 : (x > y ? 1 : 0)
    case (.integer(let x), .double(let y)): compare(x, y)
    case (.double(let x), .integer(let y)): -compare(y, x)
    }
  }

  /// An integer against a double, without rounding the integer to a double.
  private static func compare(_ x: Int64, _ y: Double) -> Int {
    let twoTo63 = 9_223_372_036_854_775_808.0
    if y >= twoTo63 { return -1 }
    if y < -twoTo63 { return 1 }
    let whole = y.rounded(.down)
    let floor = Int64(whole)
    if x != floor { return x < floor ? -1 : 1 }
    return y > whole ? -1 : 0
  }

  /// Compares texts by their UTF-8 bytes.
  private static func compareBytes(_ a: String, _ b: String) -> Int {
    var i = a.utf8.makeIterator()
    var j = b.utf8.makeIterator()
    while true {
      switch (i.next(), j.next()) {
      case (nil, nil): return 0
      case (nil, _): return -1
      case (_, nil): return 1
      case (let x?, let y?) where x != y: return x < y ? -1 : 1
      default: continue
      }
    }
  }

  private static func sign(_ n: Int) -> Int { n < 0 ? -1 : (n > 0 ? 1 : 0) }
}

/// The order `sort --by … [--desc]` puts features in.
struct SortOrder: Sendable {
  /// The properties compared, first to last.
  let properties: [String]
  /// Whether values go from the last to the first; missing values stay last.
  let descending: Bool
  /// Whether features are first ordered along a Hilbert curve through their boxes' centres
  /// (`--by-hilbert`), features without geometry last.
  var hilbert = false

  /// A feature's values for the properties, in order (after its Hilbert value).
  func key(for feature: Feature) -> [SortValue] {
    let values = properties.map { SortValue(feature.properties?[$0]) }
    guard hilbert else { return values }
    var box = BBox.empty
    feature.geometry?.forEachXY { x, y in box.extend(x: x, y: y) }
    let position: SortValue =
      box.isEmpty
      ? .missing
      : .number(.integer(Int64(FlatGeobuf.hilbertValue(of: box, in: Self.world))))
    return [position] + values
  }

  /// The extent of the Hilbert grid: the WGS84 world (coordinates outside it are clamped).
  private static let world = BBox(west: -180, south: -90, east: 180, north: 90)

  /// -1 when a feature with key `a` goes before one with key `b`, 1 when after, 0 for a tie
  /// (which input order breaks).
  func compare(_ a: [SortValue], _ b: [SortValue]) -> Int {
    for (x, y) in zip(a, b) {
      switch (x, y) {
      case (.missing, .missing): continue
      case (.missing, _): return 1
      case (_, .missing): return -1
      default:
        let c = SortValue.compare(x, y)
        if c != 0 { return descending ? -c : c }
      }
    }
    return 0
  }
}
