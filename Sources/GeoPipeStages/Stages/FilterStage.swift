import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// `filter`: keeps the features that match all of the given conditions.
final class FilterStage: Stage {
  static let definition = StageDefinition(
    name: "filter",
    abstract: "Keep the features that match an expression, a box and/or geometry types.",
    discussion: """
      All given conditions must hold. --where takes an SQL expression over properties and
      the geometry (the full table is in docs/pipelines.md, "Expressions"):
        comparisons   = != <> < <= > >=, between A and B, in (...), is [not] null
        text          like 'San%' (% any run, _ one character, escape '!'), ilike (any
                      case), ~ 'regex' (POSIX extended; ~* any case, !~ and !~* negated),
                      || joins text
        logic         and, or, not, case when ... then ... else ... end
        arithmetic    + - * / and a leading -
        functions     lower upper length substr trim replace coalesce nullif abs round
                      floor ceil min max to_number to_text, and of the geometry
                      area_m2() length_m() (geodesic, WGS84) geometry_type() x() y()
                      num_points()
      Values are 'string' literals, numbers, true, false, null; property names are bare
      (population) or double-quoted ("marker-color", "geopipe:priority"), and
      case-sensitive. A string property that holds a number compares numerically with a
      number, so "population > 10000" works on CSV input. Nulls follow SQL: a comparison
      with null (or a missing property) is unknown, "not" keeps it unknown, and only
      features for which the expression is true are kept; test with "is null" to keep
      them.
      --bbox keeps features whose geometry intersects the box (W > E crosses the
      antimeridian); features without geometry are dropped. When no feature is in the box
      but some would be with its axes swapped (a box given as S,W,N,E, latitude first), a
      warning at the end says so.
      A property that --where names and no feature has (a misspelt name) is a warning at the
      end, with the closest name the features had; with --strict it is an error (exit 65).
      """,
    examples: [
      "geopipe read places.csv | geopipe filter --where \"population > 10000 and country in ('FR', 'BE')\"",
      "geopipe read world.geojson | geopipe filter --bbox -10,35,30,60",
      "geopipe read mixed.geojson | geopipe filter --geometry-type Polygon,MultiPolygon",
      "geopipe read places.geojson | geopipe filter --where '\"marker-color\" is not null'",
      "geopipe read places.csv | geopipe filter --where 'population > 10000' --strict",
      "geopipe read places.csv | geopipe filter --where \"name like 'San%' and length(name) > 5\"",
      "geopipe read places.csv | geopipe filter --where \"lower(name) = 'paris' or name ~ '^Par'\"",
      "geopipe read world.geojson | geopipe filter --where 'area_m2() between 1e9 and 1e11'",
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
      PropertyUsage.strictOption,
    ],
    role: .transform,
    make: { values, context in .stage(try FilterStage(values, context: context)) })

  private let expression: Expression?
  private let kinds: Set<GeometryKind>?
  private let keepNull: Bool
  private let report: @Sendable (ReadDiagnostic) -> Void
  private var usage: PropertyUsage
  private var boxCheck: SwappedBoxCheck?

  init(_ values: OptionValues, context: StageContext? = nil) throws {
    expression = try values.string("where").map(Expression.parse)
    report = context?.diagnostics ?? Self.ignore
    usage = PropertyUsage(
      stage: "filter", names: expression?.propertyNames ?? [], strict: values.flag("strict"))
    boxCheck = values.bbox("bbox").map { SwappedBoxCheck(stage: "filter", box: $0) }
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
    usage.observe(feature.properties)
    if let kinds {
      if let geometry = feature.geometry {
        guard kinds.contains(geometry.kind) else { return }
      } else if !keepNull {
        return
      }
    }
    if boxCheck != nil {
      guard let geometry = feature.geometry, boxCheck?.intersects(geometry) == true else {
        return
      }
    }
    if let expression, !expression.matches(feature) { return }
    try emit(feature)
  }

  func finish(emit: Emit) throws {
    try usage.finish(report: report)
    boxCheck?.finish(report: report)
  }

  private static let ignore: @Sendable (ReadDiagnostic) -> Void = { _ in }
}
