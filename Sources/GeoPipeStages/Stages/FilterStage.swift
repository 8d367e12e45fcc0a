import GeoPipeCore

/// `filter`: keeps the features that match all of the given conditions.
final class FilterStage: Stage {
  static let definition = StageDefinition(
    name: "filter",
    abstract: "Keep the features that match an expression, a box and/or geometry types.",
    discussion: """
      All given conditions must hold. --where takes an expression over properties:
      comparisons (= != < <= > >=), arithmetic (+ - * /), and, or, not, parentheses,
      in (...), is null, is not null, 'string' literals, numbers, true, false; property names bare
      (population) or double-quoted ("marker-color", "geopipe:priority"). A string property
      that holds a number compares numerically with a number, so "population > 10000" works
      on CSV input; a comparison between values that cannot be compared (a missing property,
      a word and a number) is false, and "not" turns it true.
      --bbox keeps features whose geometry intersects the box (W > E crosses the
      antimeridian); features without geometry are dropped.
      """,
    examples: [
      "geopipe read places.csv | geopipe filter --where \"population > 10000 and country in ('FR', 'BE')\"",
      "geopipe read world.geojson | geopipe filter --bbox -10,35,30,60",
      "geopipe read mixed.geojson | geopipe filter --geometry-type Polygon,MultiPolygon",
      "geopipe read places.geojson | geopipe filter --where '\"marker-color\" is not null'",
    ],
    options: [
      OptionSpec(
        "where", .string, expression: true,
        validate: { text in
          do throws(ExpressionError) {
            _ = try Expression.parseCondition(text)
            return nil
          } catch {
            return ValueProblem(error.message, offset: error.offset)
          }
        }, help: "Keep features for which this expression is true."),
      OptionSpec("bbox", .bbox, help: "Keep features whose geometry intersects W,S,E,N."),
      OptionSpec(
        "geometry-type", .list,
        help: "Keep features with these geometry types (Point, LineString, Polygon, Multi..., "
          + "GeometryCollection, or null for none)."),
    ],
    role: .transform,
    make: { values, _ in .stage(try FilterStage(values)) })

  private let expression: Expression?
  private let box: BBox?
  private let kinds: Set<GeometryKind>?
  private let keepNull: Bool

  init(_ values: OptionValues) throws {
    expression = try values.string("where").map(Expression.parse)
    box = values.bbox("bbox")
    if let names = values.list("geometry-type") {
      var kinds = Set<GeometryKind>()
      var keepNull = false
      for name in names {
        if name.lowercased() == "null" || name.lowercased() == "none" {
          keepNull = true
        } else if let kind = GeometryKind(caseInsensitive: name) {
          kinds.insert(kind)
        } else {
          throw GeoPipeError.usage(
            "invalid value '\(name)' for --geometry-type: expected one of "
              + GeometryKind.allCases.map(\.rawValue).joined(separator: ", ") + " or null")
        }
      }
      self.kinds = kinds
      self.keepNull = keepNull
    } else {
      kinds = nil
      keepNull = false
    }
  }

  func process(_ feature: Feature, emit: Emit) throws {
    if let kinds {
      if let geometry = feature.geometry {
        guard kinds.contains(geometry.kind) else { return }
      } else if !keepNull {
        return
      }
    }
    if let box {
      guard let geometry = feature.geometry, GeometryIntersection.intersects(geometry, box) else {
        return
      }
    }
    if let expression, !expression.matches(feature) { return }
    try emit(feature)
  }

  func finish(emit: Emit) throws {}
}
