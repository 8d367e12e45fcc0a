import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeXML

/// The repository's `Fixtures/<relative>`.
func fixture(_ relative: String) -> URL {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(relative)
}

/// Every feature of a GPX document.
func readGPX(
  _ bytes: [UInt8], options: ReadOptions = ReadOptions(), pointsOnly: Bool = false,
  chunk: Int = .max
) throws -> [Feature] {
  let reader = try GPXReader(
    source: MemoryByteSource(bytes, chunkLimit: chunk), name: "test.gpx", options: options,
    pointsOnly: pointsOnly)
  var features: [Feature] = []
  while let feature = try reader.next() { features.append(feature) }
  return features
}

/// Every feature of a KML document.
func readKML(_ bytes: [UInt8], options: ReadOptions = ReadOptions(), chunk: Int = .max) throws
  -> [Feature]
{
  let reader = try KMLReader(
    source: MemoryByteSource(bytes, chunkLimit: chunk), name: "test.kml", options: options)
  var features: [Feature] = []
  while let feature = try reader.next() { features.append(feature) }
  return features
}

/// GDAL's reading of a file: for each feature of each layer, its name and its geometry's
/// coordinates as nested arrays, through Debian's python3-gdal; nil when it is not installed.
func gdalFeatures(_ path: String, layers: [String]? = nil) throws -> [(
  name: String?, coordinates: Any
)]? {
  let python = "/usr/bin/python3"
  guard FileManager.default.isExecutableFile(atPath: python) else { return nil }
  let script = """
    import json, sys
    try:
        from osgeo import ogr
    except ImportError:
        print("null"); sys.exit(0)
    ds = ogr.Open(sys.argv[1])
    wanted = sys.argv[2:]
    out = []
    for i in range(ds.GetLayerCount()):
        layer = ds.GetLayer(i)
        if wanted and layer.GetName() not in wanted: continue
        for f in layer:
            g = f.GetGeometryRef()
            k = f.GetFieldIndex("name")
            if k < 0: k = f.GetFieldIndex("Name")
            name = f.GetField(k) if k >= 0 else None
            out.append([name, json.loads(g.ExportToJson())["coordinates"] if g else None])
    print(json.dumps(out))
    """
  let process = Process()
  process.executableURL = URL(fileURLWithPath: python)
  process.arguments = ["-c", script, path] + (layers ?? [])
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0,
    let rows = try JSONSerialization.jsonObject(with: data) as? [[Any]]
  else { return nil }
  return rows.map { ($0[0] as? String, $0[1]) }
}

/// A geometry's coordinates as nested arrays of doubles, as GeoJSON writes them.
///
/// With `z` false, only x and y.
func nested(_ geometry: Geometry?, z: Bool = true) -> Any {
  func position(_ p: Position) -> [Double] { z && p.hasZ ? [p.x, p.y, p.z] : [p.x, p.y] }
  func run(_ c: CoordinateArray) -> [[Double]] { c.map(position) }
  switch geometry {
  case .point(let p)?: return position(p)
  case .multiPoint(let c)?, .lineString(let c)?: return run(c)
  case .multiLineString(let lines)?, .polygon(let lines)?: return lines.map(run)
  case .multiPolygon(let polygons)?: return polygons.map { $0.map(run) }
  default: return NSNull()
  }
}

/// Whether two nested coordinate arrays agree within `tolerance`.
func close(_ a: Any, _ b: Any, tolerance: Double = 1e-9) -> Bool {
  if let x = a as? Double, let y = (b as? Double) ?? (b as? Int).map(Double.init) {
    return abs(x - y) <= tolerance
  }
  if let x = a as? Int, let y = b as? Double { return abs(Double(x) - y) <= tolerance }
  if let x = a as? Int, let y = b as? Int { return x == y }
  if let xs = a as? [Any], let ys = b as? [Any] {
    return xs.count == ys.count && zip(xs, ys).allSatisfy { close($0, $1, tolerance: tolerance) }
  }
  return a is NSNull && b is NSNull
}
