/// The column names that the CSV reader takes for coordinates.
///
/// A name is split into words at anything that is not a letter or digit and where a lower-case
/// letter is followed by an upper-case one (`decimalLatitude` is `decimal latitude`), and
/// compared without case. A latitude column has one word that is `lat` or `latitude` (or `y`),
/// a longitude column one that is `lon`, `long`, `lng` or `longitude` (or `x`); every other
/// word must be a qualifier such as `deg`, `dd`, `wgs84`, `coord` or `point` (see
/// `qualifiers`), also when written as one word with the axis (`latdeg`, `ycoord`). So
/// `lat_deg`, `Latitude (deg)`, `latitude_deg`, `y_coord`, `point_y` and `decimalLatitude` are
/// latitudes; `pickup_lat` and `lat_e7` are not.
///
/// When several columns qualify, the best kind wins: the axis word alone, then with
/// qualifiers, then `y`/`x` alone, then `y`/`x` with qualifiers; two of the same kind are
/// ambiguous.
enum CoordinateName {
  /// Which coordinate a column holds.
  enum Axis: String {
    case latitude, longitude

    /// The words that name the axis.
    var words: Set<String> {
      switch self {
      case .latitude: ["lat", "latitude"]
      case .longitude: ["lon", "long", "lng", "longitude"]
      }
    }

    /// The cartesian name of the axis, ranked below the geographic ones.
    var cartesian: String {
      switch self {
      case .latitude: "y"
      case .longitude: "x"
      }
    }
  }

  /// Words that may stand beside the axis word.
  static let qualifiers: Set<String> = [
    "deg", "degree", "degrees", "dd", "decimal", "wgs", "84", "wgs84", "4326", "epsg",
    "epsg4326", "coord", "coords", "coordinate", "coordinates", "point", "pt", "geo", "gps",
    "center", "centre", "centroid", "pos", "position", "loc", "location",
  ]

  /// How well `name` names `axis`: 0 (the axis word alone) to 3 (`y`/`x` with qualifiers), or
  /// nil when it does not.
  static func rank(_ name: String, as axis: Axis) -> Int? {
    let words = words(of: name)
    var axisWords = 0
    var cartesian = false
    var qualified = words.count > 1
    for word in words {
      if let (base, withQualifier) = split(word, axis) {
        axisWords += 1
        cartesian = base == axis.cartesian
        qualified = qualified || withQualifier
      } else if !qualifiers.contains(word) {
        return nil
      }
    }
    guard axisWords == 1 else { return nil }
    return (cartesian ? 2 : 0) + (qualified ? 1 : 0)
  }

  /// Whether a name that is not taken for a coordinate still looks like one (`pickup_lat`,
  /// `latitude_e7`, `easting`), for a warning when no coordinates were found.
  static func looksLikeCoordinate(_ name: String) -> Bool {
    let words = words(of: name)
    let bases = Axis.latitude.words.union(Axis.longitude.words).union([
      "x", "y", "easting", "northing",
    ])
    return words.contains { word in
      if bases.contains(word) || word.contains("latitude") || word.contains("longitude") {
        return true
      }
      // "lat1", "lon2": numbered coordinates.
      return ["lat", "lon", "lng"].contains { prefix in
        word.hasPrefix(prefix) && word.dropFirst(prefix.count).allSatisfy(\.isNumber)
      }
    }
  }

  /// The lower-case words of a column name.
  static func words(of name: String) -> [String] {
    var words: [String] = []
    var current = ""
    var previousIsLower = false
    for character in name {
      guard character.isLetter || character.isNumber else {
        if !current.isEmpty { words.append(current) }
        current = ""
        previousIsLower = false
        continue
      }
      if character.isUppercase && previousIsLower && !current.isEmpty {
        words.append(current)
        current = ""
      }
      current += character.lowercased()
      previousIsLower = character.isLowercase
    }
    if !current.isEmpty { words.append(current) }
    return words
  }

  /// The axis word that `word` is or holds, alone or joined to one qualifier (`latdeg`,
  /// `ycoord`, `decimallatitude`), and whether a qualifier was joined to it.
  private static func split(_ word: String, _ axis: Axis) -> (String, Bool)? {
    let bases = axis.words.union([axis.cartesian])
    if bases.contains(word) { return (word, false) }
    for base in bases {
      if word.hasPrefix(base), qualifiers.contains(String(word.dropFirst(base.count))) {
        return (base, true)
      }
      if word.hasSuffix(base), qualifiers.contains(String(word.dropLast(base.count))) {
        return (base, true)
      }
    }
    return nil
  }
}
