import Foundation
import Testing

/// A command stopped by a signal while its features go to standard output ends that output
/// with the error record, so the `write` at the end of the pipe fails instead of committing a
/// truncated file; an interrupted `write` removes its temporary file and the folders it made.
@Suite("signals")
struct SignalTests {
  static let point =
    #"{"type":"Feature","properties":{"name":"Paris"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}"#
    + "\n"

  /// Shell lines that wait (up to 20 s) until the process `$pid` has set up its signal
  /// handling (libdispatch's signalfd), so that a signal sent next meets geopipe's handlers.
  static let waitForHandlers = """
    for i in $(seq 200); do
      ls -l /proc/$pid/fd 2>/dev/null | grep -q signalfd && break
      sleep 0.1
    done
    sleep 0.3
    """

  /// `read` of a stream that stays open, stopped by `signal` once it runs.
  private func stoppedRead(_ signal: String, in dir: URL) throws -> Run {
    try write(Self.point, to: dir.appendingPathComponent("one.geojsonl"))
    // The backtracer is turned off so a crash signal ends the process at once.
    let script = """
      ( cat one.geojsonl; sleep 30 ) | SWIFT_BACKTRACE=enable=no "$GEOPIPE" read > out &
      pid=$!
      \(Self.waitForHandlers)
      kill -\(signal) $pid
      wait $pid
      echo "status=$?"
      """
    return try shell(script, in: dir)
  }

  @Test(arguments: [("INT", 130), ("TERM", 143), ("HUP", 129)])
  func interruptEndsTheStreamWithTheErrorRecord(_ signal: String, _ status: Int) throws {
    try withTemporaryDirectory { dir in
      let run = try stoppedRead(signal, in: dir)
      #expect(run.out.contains("status=\(status)"), "\(run)")
      let last = lines(of: text(dir.appendingPathComponent("out"))).last ?? ""
      #expect(
        last == #"!geopipe-error {"status":74,"message":"error: interrupted by SIG\#(signal)"}"#,
        "\(last)")
    }
  }

  @Test(arguments: [("SEGV", 139), ("ABRT", 134), ("BUS", 135)])
  func crashEndsTheStreamWithTheErrorRecord(_ signal: String, _ status: Int) throws {
    try withTemporaryDirectory { dir in
      let run = try stoppedRead(signal, in: dir)
      // The signal still ends the process (128 + its number).
      #expect(run.out.contains("status=\(status)"), "\(run)")
      let last = lines(of: text(dir.appendingPathComponent("out"))).last ?? ""
      #expect(
        last == #"!geopipe-error {"status":74,"message":"error: geopipe crashed (SIG\#(signal))"}"#,
        "\(last)")
    }
  }

  @Test func interruptedProducerMakesWriteFailAndKeepTheOldFile() throws {
    try withTemporaryDirectory { dir in
      try write(Self.point, to: dir.appendingPathComponent("one.geojsonl"))
      let good = #"{"type":"FeatureCollection","features":[]}"# + "\n"
      try write(good, to: dir.appendingPathComponent("good.geojson"))
      let script = """
        mkfifo pipe
        "$GEOPIPE" write good.geojson < pipe &
        w=$!
        ( cat one.geojsonl; sleep 2 ) | "$GEOPIPE" read > pipe &
        pid=$!
        \(Self.waitForHandlers)
        kill -INT $pid
        wait $w
        echo "write=$?"
        rm pipe
        """
      let run = try shell(script, in: dir)
      #expect(run.out.contains("write=74"), "\(run)")
      #expect(run.err.contains("the input ends with an error from an earlier geopipe stage"))
      #expect(text(dir.appendingPathComponent("good.geojson")) == good)
      #expect(try contents(of: dir) == ["good.geojson", "one.geojsonl"])
    }
  }

  @Test(arguments: ["INT", "TERM", "HUP"])
  func interruptedWriteRemovesItsTemporaryFileAndFolders(_ signal: String) throws {
    try withTemporaryDirectory { dir in
      // More than the first read of input detection (64 KiB), so `write` gets to open its
      // output while its input stays open.
      try write(
        String(repeating: Self.point, count: 2000), to: dir.appendingPathComponent("one.geojsonl"))
      let script = """
        ( cat one.geojsonl; sleep 30 ) | "$GEOPIPE" write new/deeper/x.geojson &
        pid=$!
        \(Self.waitForHandlers)
        for i in $(seq 200); do
          ls -a new/deeper 2>/dev/null | grep -q geopipe- && break
          sleep 0.1
        done
        ls -a new/deeper > before
        kill -\(signal) $pid
        wait $pid
        echo "status=$?"
        """
      let run = try shell(script, in: dir)
      #expect(!run.out.contains("status=0"), "\(run)")
      let before = lines(of: text(dir.appendingPathComponent("before")))
      #expect(before.contains { $0.hasPrefix(".x.geojson.geopipe-") }, "\(before)")
      #expect(try contents(of: dir) == ["before", "one.geojsonl"])
    }
  }
}
