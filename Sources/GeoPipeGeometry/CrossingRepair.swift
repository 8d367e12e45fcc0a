/// Puts back removed vertices where simplified arcs come to cross, as mapshaper's repair after
/// simplification does: for each pair of kept segments that meet other than at a shared end,
/// the highest-ranked removed vertex under each goes back, until no such pair is left (or only
/// pairs that crossed in the input).
enum CrossingRepair {
  /// A kept segment: its arc, and the arc positions of its ends.
  private struct Segment {
    var arc: Int32
    var from: Int32
    var to: Int32
  }

  static func repair(
    arcs: [[Int32]], xs: [Double], ys: [Double], thresholds: [Double], keep: inout [Bool]
  ) {
    // Each round only adds vertices, so the loop ends; the bound is a guard against pathological
    // input that keeps crossing as vertices come back.
    for _ in 0..<64 {
      let segments = keptSegments(arcs, keep)
      var restored = false
      for (a, b) in crossings(segments, arcs: arcs, xs: xs, ys: ys) {
        for s in [a, b] {
          let segment = segments[s]
          let arc = arcs[Int(segment.arc)]
          var best: Int32 = -1
          var bestThreshold = -Double.infinity
          var k = Int(segment.from) + 1
          while k < Int(segment.to) {
            let id = arc[k]
            if !keep[Int(id)] && thresholds[Int(id)] > bestThreshold {
              best = id
              bestThreshold = thresholds[Int(id)]
            }
            k += 1
          }
          if best >= 0 {
            keep[Int(best)] = true
            restored = true
          }
        }
      }
      if !restored { return }
    }
  }

  private static func keptSegments(_ arcs: [[Int32]], _ keep: [Bool]) -> [Segment] {
    var segments: [Segment] = []
    for (a, arc) in arcs.enumerated() {
      var from = 0
      for k in 1..<arc.count where keep[Int(arc[k])] || k == arc.count - 1 {
        segments.append(Segment(arc: Int32(a), from: Int32(from), to: Int32(k)))
        from = k
      }
    }
    return segments
  }

  /// Pairs of segments (indices) that meet at a point interior to either, found through a
  /// uniform grid of about one cell per segment.
  private static func crossings(
    _ segments: [Segment], arcs: [[Int32]], xs: [Double], ys: [Double]
  ) -> [(Int, Int)] {
    guard segments.count > 1 else { return [] }
    func ends(_ s: Segment) -> (Int, Int) {
      let arc = arcs[Int(s.arc)]
      return (Int(arc[Int(s.from)]), Int(arc[Int(s.to)]))
    }
    var minX = Double.infinity
    var minY = Double.infinity
    var maxX = -Double.infinity
    var maxY = -Double.infinity
    for s in segments {
      let (p, q) = ends(s)
      minX = min(minX, xs[p], xs[q])
      maxX = max(maxX, xs[p], xs[q])
      minY = min(minY, ys[p], ys[q])
      maxY = max(maxY, ys[p], ys[q])
    }
    let side = max(1, min(2048, Int(Double(segments.count).squareRoot())))
    let cellX = max(maxX - minX, .leastNormalMagnitude) / Double(side)
    let cellY = max(maxY - minY, .leastNormalMagnitude) / Double(side)
    // Written so that a span too wide for a Double (inf / inf) lands in a cell, not a trap.
    func cell(_ t: Double) -> Int { t > 0 ? (t < Double(side - 1) ? Int(t) : side - 1) : 0 }
    func column(_ x: Double) -> Int { cell((x - minX) / cellX) }
    func row(_ y: Double) -> Int { cell((y - minY) / cellY) }
    var cells = [[Int32]](repeating: [], count: side * side)
    for (n, s) in segments.enumerated() {
      let (p, q) = ends(s)
      for r in row(min(ys[p], ys[q]))...row(max(ys[p], ys[q])) {
        for c in column(min(xs[p], xs[q]))...column(max(xs[p], xs[q])) {
          cells[r * side + c].append(Int32(n))
        }
      }
    }
    var found = Set<Int64>()
    var pairs: [(Int, Int)] = []
    for cell in cells where cell.count > 1 {
      for i in 0..<(cell.count - 1) {
        let a = Int(cell[i])
        let (p1, p2) = ends(segments[a])
        for j in (i + 1)..<cell.count {
          let b = Int(cell[j])
          let key = Int64(min(a, b)) << 32 | Int64(max(a, b))
          guard !found.contains(key) else { continue }
          let (q1, q2) = ends(segments[b])
          guard
            Planar.hasInteriorIntersection(
              xs[p1], ys[p1], xs[p2], ys[p2], xs[q1], ys[q1], xs[q2], ys[q2])
          else { continue }
          found.insert(key)
          pairs.append((a, b))
        }
      }
    }
    return pairs
  }
}
