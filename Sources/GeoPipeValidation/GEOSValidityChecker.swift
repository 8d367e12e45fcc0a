import GeoPipeCore
import GeoPipeGEOS

/// Validity and repair by GEOS: `GEOSisValidDetail_r` for the reason and location,
/// `GEOSMakeValid_r` for `--fix`.
///
/// It owns one GEOS context, so use one checker per thread.
public final class GEOSValidityChecker: ValidityChecker {
  private let context: GEOSContext

  /// Creates a checker with its own GEOS context.
  public init() throws {
    context = try GEOSContext()
  }

  /// GEOS's reason, verbatim, as the issue's `reason`; the message adds the location.
  public func invalidity(of geometry: Geometry) throws -> GeometryIssue? {
    let problem: (reason: String, location: Position?)?
    do {
      problem = try context.validityProblem(geometry)
    } catch let error as GEOSError {
      return GeometryIssue(.invalidGeometry, "GEOS could not check the geometry: \(error)")
    }
    guard let problem else { return nil }
    let rule = Rule.forGEOSReason(problem.reason)
    guard let location = problem.location else {
      return GeometryIssue(rule, problem.reason, reason: problem.reason)
    }
    return GeometryIssue(
      rule, "\(problem.reason) at \(describe(location.x, location.y))", reason: problem.reason,
      position: [location.x, location.y])
  }

  /// The geometry made valid by GEOS.
  public func makeValid(_ geometry: Geometry) throws -> Geometry {
    try context.makeValid(geometry)
  }
}
