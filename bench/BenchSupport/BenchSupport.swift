import Foundation

/// What the benchmark harnesses share: timing (CPU from `getrusage`, wall from the monotonic
/// clock), memory readings, and the tab-separated report they print.

/// A usage or input error.
public struct BenchError: Error {
  public var message: String

  /// An error with this message.
  public init(message: String) { self.message = message }
}

/// Tab-separated measurements: name, metric, value.
public struct Report {
  public let name: String
  public var lines: [String] = []

  /// A report whose lines start with `name`.
  public init(name: String) { self.name = name }

  public mutating func add(_ metric: String, _ value: Int) { add(metric, String(value)) }

  public mutating func add(_ metric: String, _ value: Double, digits: Int) {
    add(metric, format(value, digits: digits))
  }

  public mutating func add(_ metric: String, _ value: String) {
    lines.append("\(name)\t\(metric)\t\(value)")
  }

  public func print() {
    Swift.print(lines.joined(separator: "\n"))
  }
}

/// CPU (user + system) and wall time in seconds.
public struct Sample {
  public var cpu: Double
  public var wall: Double

  /// A sample of these times.
  public init(cpu: Double, wall: Double) {
    self.cpu = cpu
    self.wall = wall
  }

  /// The better of two runs in each measure.
  public func best(_ other: Sample) -> Sample {
    Sample(cpu: min(cpu, other.cpu), wall: min(wall, other.wall))
  }
}

/// `getrusage` for this process.
public func resourceUsage() -> rusage {
  var usage = rusage()
  #if canImport(Glibc)
  getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  #else
  getrusage(RUSAGE_SELF, &usage)
  #endif
  return usage
}

public func cpuSeconds() -> Double {
  let usage = resourceUsage()
  let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
  let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
  return user + system
}

public func wallSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Runs `body` once and times it.
public func measure<T>(_ body: () throws -> T) rethrows -> (T, Sample) {
  let cpu0 = cpuSeconds()
  let wall0 = wallSeconds()
  let result = try body()
  let wall1 = wallSeconds()
  let cpu1 = cpuSeconds()
  return (result, Sample(cpu: cpu1 - cpu0, wall: wall1 - wall0))
}

/// The process's peak resident memory so far (`ru_maxrss`), in MiB.
public func maxRSS() -> Double {
  Double(resourceUsage().ru_maxrss) / 1024
}

/// The resident memory now, in MiB (Linux only).
public func currentRSS() -> Double? {
  guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
    return nil
  }
  let fields = statm.split(separator: " ")
  guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
  return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// Resets the kernel's resident-memory high-water mark (`VmHWM`), on Linux.
public func resetPeakRSS() -> Bool {
  let fd = open("/proc/self/clear_refs", O_WRONLY)
  guard fd >= 0 else { return false }
  defer { close(fd) }
  return write(fd, "5", 1) == 1
}

/// `VmHWM`: the peak resident memory since the last reset, in MiB.
public func peakRSSSinceReset() -> Double? {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
    return nil
  }
  for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
    let kib = line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
    return kib.map { $0 / 1024 }
  }
  return nil
}

public func format(_ value: Double, digits: Int) -> String {
  String(format: "%.\(digits)f", value)
}
