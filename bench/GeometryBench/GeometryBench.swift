import BenchSupport
import Foundation
import GeoPipeCore
import GeoPipeGEOS
import GeoPipeGeometry
import GeoPipeIO

/// Times geopipe's simplify step on the geometries of a file, on one thread, as the stage runs
/// it: `dp` is geopipe's own Douglas-Peucker for lines and, for polygons, a `Geometry` to GEOS,
/// GEOSSimplify and back; `topology` is geopipe's own topology-preserving simplifier;
/// `topology-geos` is GEOSTopologyPreserveSimplify through the GEOS wrapper, for comparison.
///
///     GeometryBench FILE TOLERANCE RUNS [--wkt OUT] [--method dp|topology|topology-geos]
///
/// Prints one tab-separated line per method: method, best CPU seconds of RUNS runs, and the
/// total vertex count of the results (so that a C harness calling GEOS directly on the same
/// geometries can be checked against it). With `--wkt OUT` it first writes the geometries as
/// WKT, one per line, for that harness; `--method` times one method only (for profiling).
@main
enum GeometryBench {
  static func main() {
    do {
      try run(Array(CommandLine.arguments.dropFirst()))
    } catch {
      FileHandle.standardError.write(Data("GeometryBench: \(error)\n".utf8))
      exit(1)
    }
  }

  static func run(_ arguments: [String]) throws {
    guard arguments.count >= 3, let tolerance = Double(arguments[1]), let runs = Int(arguments[2])
    else {
      throw GeoPipeError.usage(
        "usage: GeometryBench FILE TOLERANCE RUNS [--wkt OUT] [--method dp|topology|topology-geos]"
      )
    }
    let reader = try FeatureReaders.open(arguments[0])
    var geometries: [Geometry] = []
    while let feature = try reader.next() {
      if let geometry = feature.geometry { geometries.append(geometry) }
    }
    var methods = ["dp", "topology", "topology-geos"]
    var k = 3
    while k + 1 < arguments.count {
      if arguments[k] == "--wkt" {
        var text = ""
        for geometry in geometries { text += WKTWriter.string(geometry) + "\n" }
        try Data(text.utf8).write(to: URL(fileURLWithPath: arguments[k + 1]))
      } else if arguments[k] == "--method" {
        methods = [arguments[k + 1]]
      }
      k += 2
    }
    let context = try GEOSContext()
    for method in methods {
      var best = Double.infinity
      var vertices = 0
      for _ in 0..<max(runs, 1) {
        let start = cpuSeconds()
        var count = 0
        for geometry in geometries {
          let result =
            switch method {
            case "dp":
              try LineSimplifier.douglasPeucker(geometry, tolerance: tolerance)
                ?? context.simplify(geometry, tolerance: tolerance, method: .douglasPeucker)
            case "topology": TopologyPreservingSimplifier.simplify(geometry, tolerance: tolerance)
            default:
              try context.simplify(geometry, tolerance: tolerance, method: .topologyPreserving)
            }
          count += result.map(vertexCount) ?? 0
        }
        best = min(best, cpuSeconds() - start)
        vertices = count
      }
      print("\(method)\t\(String(format: "%.4f", best))\t\(vertices)")
    }
  }

  static func vertexCount(_ geometry: Geometry) -> Int {
    switch geometry {
    case .point: 1
    case .multiPoint(let c), .lineString(let c): c.count
    case .multiLineString(let lines), .polygon(let lines): lines.reduce(0) { $0 + $1.count }
    case .multiPolygon(let polygons):
      polygons.reduce(0) { sum, rings in rings.reduce(sum) { $0 + $1.count } }
    case .geometryCollection(let members): members.reduce(0) { $0 + vertexCount($1) }
    }
  }
}
