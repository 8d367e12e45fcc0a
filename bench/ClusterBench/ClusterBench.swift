import BenchSupport
import Foundation
import GeoPipeClustering
import GeoPipeCore
import GeoPipeIO
import GeoPipeSpatialIndex

/// Times the cluster index on a file of points: building it, its peak memory, and world-box
/// queries at zooms 8 to 12.
///
///     ClusterBench [--name NAME] [--threads N] [--phases] FILE [RUNS]
///
/// Only the coordinates of the input are kept (each feature is dropped as soon as it is read),
/// so the memory measured is the index's. CPU time is user + system time from `getrusage`;
/// builds and queries are run RUNS times (3 by default) and the best run is reported. One
/// tab-separated line per measurement goes to standard output (`NAME`, metric, value) and a
/// summary to standard error. `--phases` also times the build level by level (projection,
/// kd-trees, clustering) with a copy of the index's algorithm built on the public `KDBush`.
@main
enum ClusterBench {
  static let usage =
    "usage: ClusterBench [--name NAME] [--threads N] [--phases] FILE [RUNS]"
  static let queryZooms = [8, 9, 10, 11, 12]

  static func main() {
    do {
      try run(Array(CommandLine.arguments.dropFirst()))
    } catch let error as BenchError {
      FileHandle.standardError.write(Data("ClusterBench: \(error.message)\n".utf8))
      exit(2)
    } catch {
      FileHandle.standardError.write(Data("ClusterBench: \(error)\n".utf8))
      exit(1)
    }
  }

  static func run(_ arguments: [String]) throws {
    let settings = try Settings(arguments)
    var report = Report(name: settings.name)

    // Reading: keep the coordinates only.
    var readOptions = ReadOptions()
    readOptions.threads = settings.threads
    let (coordinates, readTime) = try measure { try readCoordinates(settings.path, readOptions) }
    let points = coordinates.count { $0 != nil }
    report.add("features", coordinates.count)
    report.add("points", points)
    report.add("read_cpu_s", readTime.cpu, digits: 3)
    report.add("read_wall_s", readTime.wall, digits: 3)
    let rssBefore = currentRSS()
    report.add("rss_after_read_mib", maxRSS(), digits: 1)
    let resetPeak = resetPeakRSS()

    // The first build: its peak memory, then the queries on it.
    let options = ClusterOptions()
    var builds: [Sample] = []
    let (index, first) = measure { ClusterIndex(coordinates: coordinates, options: options) }
    builds.append(first)
    let peakRSS = maxRSS()
    report.add("peak_rss_mib", peakRSS, digits: 1)
    if resetPeak, let peak = peakRSSSinceReset() {
      report.add("build_peak_rss_mib", peak, digits: 1)
    }
    if let before = rssBefore, let after = currentRSS() {
      report.add("index_rss_mib", after - before, digits: 1)
    }
    var queries: [(zoom: Int, best: Sample, count: Int)] = []
    var firstQueries: [(zoom: Int, time: Sample)] = []
    for zoom in queryZooms {
      var best: Sample?
      var count = 0
      for run in 0..<(max(settings.runs, 3) + 1) {
        // Each item is visited, as the cluster stage does, without collecting them.
        let (items, time) = measure {
          var n = 0
          index.clusters(west: -180, south: -85, east: 180, north: 85, zoom: Double(zoom)) {
            if case .cluster = $0 { n += 1 } else { n += 1 }
          }
          return n
        }
        count = items
        // The first query at a zoom also builds that zoom's kd-tree.
        if run == 0 {
          firstQueries.append((zoom, time))
        } else {
          best = best.map { $0.best(time) } ?? time
        }
      }
      if let best { queries.append((zoom, best, count)) }
    }
    let allZooms = measure { index.itemsAcrossZooms().count }

    // More builds, each index freed before the next.
    for _ in 1..<max(settings.runs, 1) {
      let (_, time) = measure {
        ClusterIndex(coordinates: coordinates, options: options).inputCount
      }
      builds.append(time)
    }
    // Like supercluster's load(): clusters and every zoom's kd-tree; and with kdbush's
    // summation order.
    var withTrees: [Sample] = []
    var exact: [Sample] = []
    var exactOptions = options
    exactOptions.exactOrder = true
    for _ in 0..<max(settings.runs, 1) {
      withTrees.append(
        measure { () -> Int in
          let index = ClusterIndex(coordinates: coordinates, options: options)
          index.buildTrees()
          return index.inputCount
        }.1)
      exact.append(
        measure { ClusterIndex(coordinates: coordinates, options: exactOptions).inputCount }.1)
    }
    report.add("build_with_trees_cpu_s", withTrees.map(\.cpu).min() ?? 0, digits: 3)
    report.add("build_exact_order_cpu_s", exact.map(\.cpu).min() ?? 0, digits: 3)
    for query in firstQueries {
      report.add("query_z\(query.zoom)_first_cpu_ms", query.time.cpu * 1000, digits: 2)
    }
    let bestCPU = builds.map(\.cpu).min() ?? 0
    let bestWall = builds.map(\.wall).min() ?? 0
    report.add("build_runs", builds.count)
    report.add("build_cpu_s", bestCPU, digits: 3)
    report.add("build_wall_s", bestWall, digits: 3)
    report.add("build_cpu_s_runs", builds.map { format($0.cpu, digits: 3) }.joined(separator: ","))
    for query in queries {
      report.add("query_z\(query.zoom)_ms", query.best.wall * 1000, digits: 2)
      report.add("query_z\(query.zoom)_cpu_ms", query.best.cpu * 1000, digits: 2)
      report.add("query_z\(query.zoom)_features", query.count)
    }
    report.add("all_zooms_items", allZooms.0)
    report.add("all_zooms_ms", allZooms.1.wall * 1000, digits: 1)

    var summary = """
      \(settings.name): \(points) points (\(coordinates.count) features), read in \
      \(format(readTime.cpu, digits: 2)) s CPU (\(format(readTime.wall, digits: 2)) s wall)
        build: best \(format(bestCPU, digits: 3)) s CPU, \(format(bestWall, digits: 3)) s wall \
      of \(builds.count) runs
        peak RSS after one build: \(format(peakRSS, digits: 0)) MiB

      """
    for query in queries {
      summary +=
        "  z\(query.zoom) world box: \(format(query.best.wall * 1000, digits: 2)) ms, "
        + "\(query.count) features\n"
    }
    summary += "  every item with its zooms: \(allZooms.0) items, "
    summary += "\(format(allZooms.1.wall * 1000, digits: 0)) ms\n"
    if settings.phases {
      let phases = Phases.run(coordinates, options: options, index: index)
      phases.report(into: &report)
      summary += phases.summary
    }
    report.print()
    FileHandle.standardError.write(Data(summary.utf8))
  }

  /// The coordinates of every feature in order (nil for a feature without geometry).
  static func readCoordinates(_ path: String, _ options: ReadOptions) throws
    -> [(longitude: Double, latitude: Double)?]
  {
    let reader = try FeatureReaders.open(path, options: options)
    var coordinates: [(longitude: Double, latitude: Double)?] = []
    while let feature = try reader.next() {
      switch feature.geometry {
      case .point(let p)?: coordinates.append((p.x, p.y))
      case nil: coordinates.append(nil)
      case let geometry?:
        throw BenchError(
          message: "feature \(coordinates.count) is a \(geometry.typeName), not a Point")
      }
    }
    return coordinates
  }
}

/// The command line.
struct Settings {
  var path = ""
  var runs = 3
  var name = ""
  var threads = 1
  var phases = false

  init(_ arguments: [String]) throws {
    var positional: [String] = []
    var rest = arguments[...]
    while let word = rest.popFirst() {
      switch word {
      case "--name":
        guard let value = rest.popFirst() else { throw BenchError(message: ClusterBench.usage) }
        name = value
      case "--threads":
        guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else {
          throw BenchError(message: ClusterBench.usage)
        }
        threads = value
      case "--phases": phases = true
      case "-h", "--help": throw BenchError(message: ClusterBench.usage)
      default: positional.append(word)
      }
    }
    guard positional.count == 1 || positional.count == 2 else {
      throw BenchError(message: ClusterBench.usage)
    }
    path = positional[0]
    if positional.count == 2 {
      guard let runs = Int(positional[1]), runs > 0 else {
        throw BenchError(message: ClusterBench.usage)
      }
      self.runs = runs
    }
    if name.isEmpty {
      name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    }
  }
}

// MARK: Phases

/// The index's build, level by level, in a copy of its algorithm (supercluster's `_cluster`
/// over kdbush), to see where the time goes: projecting the points, building each level's
/// kd-tree, and clustering each level.
struct Phases {
  struct Level {
    var zoom: Int
    var items: Int
    var tree: Double
    var cluster: Double
    var matches: Bool
  }

  var projection = 0.0
  var levels: [Level] = []
  var total = 0.0

  static func run(
    _ coordinates: [(longitude: Double, latitude: Double)?], options: ClusterOptions,
    index: ClusterIndex
  ) -> Phases {
    var phases = Phases()
    var xs: [Double] = []
    var ys: [Double] = []
    var counts: [Int] = []
    var idents: [Int] = []
    var parents: [Int] = []
    var visited: [Int8] = []
    var members: [UInt32] = []
    let (_, projection) = measure {
      xs.reserveCapacity(coordinates.count * 2)
      ys.reserveCapacity(coordinates.count * 2)
      counts.reserveCapacity(coordinates.count * 2)
      idents.reserveCapacity(coordinates.count * 2)
      parents.reserveCapacity(coordinates.count * 2)
      visited.reserveCapacity(coordinates.count * 2)
      for (i, point) in coordinates.enumerated() {
        guard let point else { continue }
        members.append(UInt32(xs.count))
        xs.append(Double(Float(Projection.x(longitude: point.longitude))))
        ys.append(Double(Float(Projection.y(latitude: point.latitude))))
        counts.append(1)
        idents.append(i)
        parents.append(-1)
        visited.append(Int8.max)
      }
    }
    phases.projection = projection.cpu
    let inputCount = coordinates.count
    var zoom = options.maxZoom + 1
    while true {
      let (tree, treeTime) = measure {
        KDBush(
          xs: members.lazy.map { xs[Int($0)] }, ys: members.lazy.map { ys[Int($0)] },
          nodeSize: options.nodeSize)
      }
      let expected = index.clusters(
        west: -180, south: -90, east: 180, north: 90, zoom: Double(zoom))
      var level = Level(
        zoom: zoom, items: members.count, tree: treeTime.cpu, cluster: 0,
        matches: expected.count == members.count)
      if zoom == options.minZoom {
        phases.levels.append(level)
        break
      }
      zoom -= 1
      let (next, clusterTime) = measure { () -> [UInt32] in
        let r = options.radius / (options.extent * pow(2, Double(zoom)))
        let mark = Int8(zoom)
        var next: [UInt32] = []
        next.reserveCapacity(members.count)
        var neighbours: [Int] = []
        for i in 0..<members.count {
          let e = Int(members[i])
          if visited[e] <= mark { continue }
          visited[e] = mark
          let x = xs[e]
          let y = ys[e]
          neighbours.removeAll(keepingCapacity: true)
          tree.within(x: x, y: y, radius: r) { neighbours.append(Int(members[$0])) }
          let originCount = counts[e]
          var count = originCount
          for k in neighbours where visited[k] > mark { count += counts[k] }
          if count > originCount && count >= options.minPoints {
            var wx = x * Double(originCount)
            var wy = y * Double(originCount)
            let id = (i << 5) + (zoom + 1) + inputCount
            for k in neighbours where visited[k] > mark {
              visited[k] = mark
              let n = Double(counts[k])
              wx += xs[k] * n
              wy += ys[k] * n
              parents[k] = id
            }
            parents[e] = id
            next.append(UInt32(xs.count))
            xs.append(wx / Double(count))
            ys.append(wy / Double(count))
            counts.append(count)
            idents.append(id)
            parents.append(-1)
            visited.append(Int8.max)
          } else {
            next.append(UInt32(e))
            if count > 1 {
              for k in neighbours where visited[k] > mark {
                visited[k] = mark
                next.append(UInt32(k))
              }
            }
          }
        }
        return next
      }
      level.cluster = clusterTime.cpu
      phases.levels.append(level)
      members = next
    }
    phases.total =
      phases.projection + phases.levels.map { $0.tree + $0.cluster }.reduce(0, +)
    return phases
  }

  func report(into report: inout Report) {
    report.add("phase_projection_s", projection, digits: 3)
    report.add("phase_trees_s", levels.map(\.tree).reduce(0, +), digits: 3)
    report.add("phase_clustering_s", levels.map(\.cluster).reduce(0, +), digits: 3)
    for level in levels {
      report.add("phase_z\(level.zoom)_items", level.items)
      report.add("phase_z\(level.zoom)_tree_ms", level.tree * 1000, digits: 1)
      report.add("phase_z\(level.zoom)_cluster_ms", level.cluster * 1000, digits: 1)
    }
    report.add("phase_copy_matches_index", levels.allSatisfy(\.matches) ? "yes" : "no")
  }

  var summary: String {
    let trees = levels.map(\.tree).reduce(0, +)
    let clustering = levels.map(\.cluster).reduce(0, +)
    var text = """
        phases (a copy of the build, CPU s): projection \(format(projection, digits: 3)), \
      kd-trees \(format(trees, digits: 3)), clustering \(format(clustering, digits: 3)), \
      total \(format(total, digits: 3))\(levels.allSatisfy(\.matches) ? "" : " (LEVELS DIFFER)")
          zoom  items     tree ms  cluster ms (into the zoom below)

      """
    for level in levels {
      text += "    "
      text += String(level.zoom).padding(toLength: 6, withPad: " ", startingAt: 0)
      text += String(level.items).padding(toLength: 10, withPad: " ", startingAt: 0)
      text += format(level.tree * 1000, digits: 1).padding(toLength: 9, withPad: " ", startingAt: 0)
      text += format(level.cluster * 1000, digits: 1) + "\n"
    }
    return text
  }
}
