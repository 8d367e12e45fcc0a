import BenchSupport
import Foundation
import GeoPipeCore
import GeoPipeGeocoding

/// Times forward and reverse geocoding against a gazetteer, with everything in memory.
///
///     GeocodeBench forward [--name NAME] [--seed S] [--queries N] GAZETTEER
///     GeocodeBench reverse [--name NAME] [--threads N] [--answers FILE] GAZETTEER POINTS [RUNS]
///
/// `forward` draws places from the gazetteer with a seeded generator and times one
/// `ForwardGeocoder.geocode` call per query, one thread, in four sets: exact names, "Name,
/// Country", "Name, ST" (places in the United States, by state code) and typos (one random
/// edit — a substitution, deletion, insertion or swap of neighbours — after the first letter
/// of a name of 5 characters or more). Each set is warmed up first (the first typo query reads
/// the folded names into memory; that time is reported apart), then timed query by query:
/// queries per second and p50/p95/p99 latency, and how many queries found the place drawn.
///
/// `reverse` reads POINTS (one `latitude,longitude` per line), loads the gazetteer's places
/// into a `ReverseIndex` (timed apart), then times `nearest` for every point, best of RUNS (3),
/// on one thread and on `--threads` threads (2), checking that both give the same answers.
/// `--answers` writes the geonameid of each point's answer, one per line, for the oracle
/// check in `bench/geocode.sh`.
///
/// CPU time is user + system (`getrusage`). Output: one tab-separated line per measurement
/// (`NAME`, metric, value) on standard output, a summary on standard error.
@main
enum GeocodeBench {
  static let usage = """
    usage: GeocodeBench forward [--name NAME] [--seed S] [--queries N] GAZETTEER
           GeocodeBench reverse [--name NAME] [--threads N] [--answers FILE] GAZETTEER POINTS [RUNS]
    """

  static func main() {
    do {
      let arguments = Array(CommandLine.arguments.dropFirst())
      guard let mode = arguments.first, ["forward", "reverse"].contains(mode) else {
        throw BenchError(message: usage)
      }
      let settings = try Settings(Array(arguments.dropFirst()))
      let report = try mode == "forward" ? forward(settings) : reverse(settings)
      report.print()
    } catch let error as BenchError {
      FileHandle.standardError.write(Data("GeocodeBench: \(error.message)\n".utf8))
      exit(2)
    } catch {
      FileHandle.standardError.write(Data("GeocodeBench: \(error)\n".utf8))
      exit(1)
    }
  }

  // MARK: Forward

  struct Query {
    var text: String
    var geonameid: Int64
  }

  static func forward(_ settings: Settings) throws -> Report {
    guard settings.paths.count == 1 else { throw BenchError(message: usage) }
    var report = Report(name: settings.name)
    let ((geocoder, places), open) = try measure {
      let geocoder = try ForwardGeocoder(gazetteer: try Gazetteer(path: settings.paths[0]))
      return (geocoder, try geocoder.gazetteer.places())
    }
    report.add("open_s", open.wall, digits: 3)
    report.add("places", places.count)
    var random = SplitMix64(seed: settings.seed)
    let count = settings.queries
    func draw(_ keep: (Place) -> Bool) -> [Place] {
      let eligible = places.filter(keep)
      guard !eligible.isEmpty else { return [] }
      return (0..<count).map { _ in eligible[Int(random.next() % UInt64(eligible.count))] }
    }
    let countries = geocoder.countryNames
    let sets: [(String, [Query])] = [
      ("exact", draw { _ in true }.map { Query(text: $0.name, geonameid: $0.geonameid) }),
      (
        "country",
        draw { countries[$0.countryCode] != nil }.map {
          Query(text: $0.name + ", " + countries[$0.countryCode]!, geonameid: $0.geonameid)
        }
      ),
      (
        "state",
        draw { $0.countryCode == "US" && $0.admin1Code.count == 2 }.map {
          Query(text: $0.name + ", " + $0.admin1Code, geonameid: $0.geonameid)
        }
      ),
      (
        "typo",
        draw { $0.name.unicodeScalars.count >= 5 }.map {
          Query(text: typo(of: $0.name, &random), geonameid: $0.geonameid)
        }
      ),
    ]
    var summary: [String] = []
    for (name, queries) in sets where !queries.isEmpty {
      // Warm up: the caches of SQLite, and for typos the folded names (timed once).
      let (_, first) = try measure { try geocoder.geocode(queries[0].text) }
      if name == "typo" { report.add("typo_first_query_s", first.wall, digits: 3) }
      for query in queries.prefix(200) { _ = try geocoder.geocode(query.text) }
      var latencies: [Double] = []
      latencies.reserveCapacity(queries.count)
      var found = 0
      var same = 0
      let (_, total) = try measure {
        for query in queries {
          let start = wallSeconds()
          let result = try geocoder.geocode(query.text)
          latencies.append(wallSeconds() - start)
          if let result {
            found += 1
            if result.place.geonameid == query.geonameid { same += 1 }
          }
        }
      }
      latencies.sort()
      func percentile(_ p: Double) -> Double {
        latencies[min(latencies.count - 1, Int((p * Double(latencies.count)).rounded(.up)) - 1)]
          * 1000
      }
      let rate = Double(queries.count) / total.wall
      report.add("\(name)_queries", queries.count)
      report.add("\(name)_qps", rate, digits: 0)
      report.add("\(name)_cpu_s", total.cpu, digits: 3)
      report.add("\(name)_wall_s", total.wall, digits: 3)
      report.add("\(name)_p50_ms", percentile(0.50), digits: 3)
      report.add("\(name)_p95_ms", percentile(0.95), digits: 3)
      report.add("\(name)_p99_ms", percentile(0.99), digits: 3)
      report.add("\(name)_max_ms", latencies.last! * 1000, digits: 3)
      report.add("\(name)_found", found)
      report.add("\(name)_same_place", same)
      summary.append(
        "\(name): \(format(rate, digits: 0)) q/s, p95 \(format(percentile(0.95), digits: 2)) ms, "
          + "found \(found)/\(queries.count), the place drawn \(same)")
      if let example = queries.first { summary.append("  e.g. \(example.text.debugDescription)") }
    }
    FileHandle.standardError.write(Data((summary.joined(separator: "\n") + "\n").utf8))
    return report
  }

  /// `name` with one random edit after its first character.
  static func typo(of name: String, _ random: inout SplitMix64) -> String {
    var scalars = Array(name.unicodeScalars)
    let letters = Array("abcdefghijklmnopqrstuvwxyz".unicodeScalars)
    let letter = letters[Int(random.next() % 26)]
    let position = 1 + Int(random.next() % UInt64(scalars.count - 1))
    switch random.next() % 4 {
    case 0:
      // A substitution that changes the letter.
      scalars[position] =
        scalars[position] == letter ? letters[(Int(letter.value) - 96) % 26] : letter
    case 1: scalars.remove(at: position)
    case 2: scalars.insert(letter, at: position)
    default:
      let other = position == scalars.count - 1 ? position - 1 : position + 1
      scalars.swapAt(position, other)
    }
    return String(String.UnicodeScalarView(scalars))
  }

  // MARK: Reverse

  static func reverse(_ settings: Settings) throws -> Report {
    guard settings.paths.count == 2 else { throw BenchError(message: usage) }
    var report = Report(name: settings.name)
    let text = try String(contentsOfFile: settings.paths[1], encoding: .utf8)
    var points: [(latitude: Double, longitude: Double)] = []
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: ",")
      guard fields.count == 2, let latitude = Double(fields[0]), let longitude = Double(fields[1])
      else {
        throw BenchError(message: "\(settings.paths[1]): expected latitude,longitude: \(line)")
      }
      points.append((latitude, longitude))
    }
    report.add("points", points.count)
    let ((places, index), load) = try measure {
      let places = try Gazetteer(path: settings.paths[0]).places()
      return (places, ReverseIndex(places: places))
    }
    report.add("places", places.count)
    report.add("load_cpu_s", load.cpu, digits: 3)
    report.add("load_wall_s", load.wall, digits: 3)

    var answers = [Int32](repeating: -1, count: points.count)
    var best: Sample?
    for _ in 0..<settings.runs {
      let (_, time) = measure {
        answers.withUnsafeMutableBufferPointer { answers in
          for k in points.indices {
            let point = points[k]
            answers[k] = Int32(
              index.nearest(latitude: point.latitude, longitude: point.longitude)?.index ?? -1)
          }
        }
      }
      best = best.map { $0.best(time) } ?? time
    }
    report.add("lookup_1thread_cpu_s", best!.cpu, digits: 3)
    report.add("lookup_1thread_wall_s", best!.wall, digits: 3)

    let threads = settings.threads
    let shared = points
    var parallel = [Int32](repeating: -1, count: points.count)
    var bestParallel: Sample?
    for _ in 0..<settings.runs {
      let (_, time) = measure {
        parallel.withUnsafeMutableBufferPointer { answers in
          let answers = UnsafeSendable(answers)
          let chunk = (shared.count + threads - 1) / threads
          DispatchQueue.concurrentPerform(iterations: threads) { part in
            for k in (part * chunk)..<min(shared.count, (part + 1) * chunk) {
              let point = shared[k]
              answers.value[k] = Int32(
                index.nearest(latitude: point.latitude, longitude: point.longitude)?.index ?? -1)
            }
          }
        }
      }
      bestParallel = bestParallel.map { $0.best(time) } ?? time
    }
    guard parallel == answers else {
      throw BenchError(message: "the threaded lookups disagree with the one-thread lookups")
    }
    report.add("lookup_threads", threads)
    report.add("lookup_threads_cpu_s", bestParallel!.cpu, digits: 3)
    report.add("lookup_threads_wall_s", bestParallel!.wall, digits: 3)
    if let path = settings.answers {
      var out = ""
      out.reserveCapacity(points.count * 9)
      for answer in answers {
        out += answer >= 0 ? String(places[Int(answer)].geonameid) : "-"
        out += "\n"
      }
      try out.write(toFile: path, atomically: true, encoding: .utf8)
    }
    FileHandle.standardError.write(
      Data(
        ("\(points.count) points, \(places.count) places: load \(format(load.wall, digits: 2)) s, "
          + "lookups \(format(best!.wall, digits: 3)) s on one thread, "
          + "\(format(bestParallel!.wall, digits: 3)) s on \(threads)\n").utf8))
    return report
  }
}

/// A buffer shared by the threads of a lookup, each writing its own part.
struct UnsafeSendable<T>: @unchecked Sendable {
  var value: T
  init(_ value: T) { self.value = value }
}

/// The command line.
struct Settings {
  var paths: [String] = []
  var runs = 3
  var name = ""
  var seed: UInt64 = 500
  var queries = 20_000
  var threads = 2
  var answers: String?

  init(_ arguments: [String]) throws {
    var rest = arguments[...]
    func value() throws -> String {
      guard let value = rest.popFirst() else { throw BenchError(message: GeocodeBench.usage) }
      return value
    }
    func number() throws -> Int {
      guard let number = Int(try value()), number > 0 else {
        throw BenchError(message: GeocodeBench.usage)
      }
      return number
    }
    while let word = rest.popFirst() {
      switch word {
      case "--name": name = try value()
      case "--seed": seed = UInt64(try number())
      case "--queries": queries = try number()
      case "--threads": threads = try number()
      case "--answers": answers = try value()
      case "-h", "--help": throw BenchError(message: GeocodeBench.usage)
      default: paths.append(word)
      }
    }
    // A trailing number is the runs.
    if paths.count == 3, let runs = Int(paths[2]), runs > 0 {
      self.runs = runs
      paths.removeLast()
    }
    if name.isEmpty, let first = paths.first {
      name = URL(fileURLWithPath: first).deletingPathExtension().lastPathComponent
    }
  }
}
