import Foundation
import GeoPipeCore
import GeoPipeStageKit

/// A length given on the command line: `500`, `500m`, `2km` (metres unless a unit says).
struct Metres: Hashable, Sendable {
  var value: Double

  /// Parses `text`; `option` names the option in the error.
  init(_ text: String, option: String) throws {
    let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
    let (number, scale): (Substring, Double) =
      if trimmed.hasSuffix("km") {
        (trimmed.dropLast(2), 1000)
      } else if trimmed.hasSuffix("m") {
        (trimmed.dropLast(), 1)
      } else {
        (Substring(trimmed), 1)
      }
    guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite else {
      throw GeoPipeError.usage(
        "invalid value '\(text)' for --\(option): expected a distance such as 500m or 2km")
    }
    self.value = value * scale
  }

  init(metres: Double) { value = metres }
}

/// A simplification tolerance: degrees, metres on the ground, or pixels at a zoom level.
enum Tolerance: Hashable, Sendable {
  /// In the coordinates' own units (degrees for WGS84).
  case degrees(Double)
  /// In metres, applied in a local projection chosen per feature.
  case metres(Double)
  /// In Web Mercator pixels at a zoom level (256-pixel tiles).
  case pixels(Double, zoom: Double)

  /// Parses `0.01`, `0.01deg`, `100m`, `2km` or `1px` (which needs `zoom`).
  init(_ text: String, zoom: Double?) throws {
    let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
    func number(_ digits: Substring) throws -> Double {
      guard let value = Double(digits.trimmingCharacters(in: .whitespaces)), value.isFinite,
        value >= 0
      else {
        throw GeoPipeError.usage(
          "invalid value '\(text)' for --tolerance: expected a number of degrees (0.01), metres "
            + "(100m, 2km) or pixels (1px, with --zoom)")
      }
      return value
    }
    if lowered.hasSuffix("px") {
      guard let zoom else {
        throw GeoPipeError.usage("--tolerance \(text) is in pixels: give the zoom with --zoom")
      }
      self = .pixels(try number(lowered.dropLast(2)), zoom: zoom)
    } else if lowered.hasSuffix("deg") {
      self = .degrees(try number(lowered.dropLast(3)))
    } else if lowered.hasSuffix("km") {
      self = .metres(try number(lowered.dropLast(2)) * 1000)
    } else if lowered.hasSuffix("m") {
      self = .metres(try number(lowered.dropLast()))
    } else {
      self = .degrees(try number(Substring(lowered)))
    }
  }
}

/// An area given on the command line: `5000`, `5000m2`, `2ha`, `1km2` (square metres unless a
/// unit says).
struct SquareMetres: Hashable, Sendable {
  var value: Double

  init(_ text: String, option: String) throws {
    let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
    let units: [(String, Double)] = [("km2", 1e6), ("m2", 1), ("ha", 1e4)]
    var digits = Substring(lowered)
    var scale = 1.0
    for (suffix, factor) in units where lowered.hasSuffix(suffix) {
      digits = lowered.dropLast(suffix.count)
      scale = factor
      break
    }
    guard let value = Double(digits.trimmingCharacters(in: .whitespaces)), value.isFinite,
      value >= 0
    else {
      throw GeoPipeError.usage(
        "invalid value '\(text)' for --\(option): expected an area such as 5000m2, 2ha or 1km2")
    }
    self.value = value * scale
  }
}

extension Geometry {
  /// How many positions the geometry has.
  var positionCount: Int {
    switch self {
    case .point: 1
    case .multiPoint(let c), .lineString(let c): c.count
    case .multiLineString(let lines), .polygon(let lines): lines.reduce(0) { $0 + $1.count }
    case .multiPolygon(let polygons):
      polygons.reduce(0) { sum, rings in rings.reduce(sum) { $0 + $1.count } }
    case .geometryCollection(let members): members.reduce(0) { $0 + $1.positionCount }
    }
  }

  /// Whether the geometry is a polygon or multipolygon, or a collection holding one.
  var hasArea: Bool {
    switch self {
    case .polygon, .multiPolygon: true
    case .geometryCollection(let members): members.contains(where: \.hasArea)
    default: false
    }
  }
}
