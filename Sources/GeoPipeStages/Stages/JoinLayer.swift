import GeoPipeCore
import GeoPipeGEOS
import GeoPipeIO
import GeoPipeSpatialIndex
import GeoPipeStageKit

/// The features of a second input (`join --with`, `clip --with`), held in memory with an
/// STR-packed R-tree of their bounding boxes.
final class JoinLayer: Sendable {
  /// The features with a geometry, in the order read.
  let features: [Feature]
  /// Their bounding boxes.
  let boxes: [BoxTree.Box]
  /// The index of the boxes.
  let tree: BoxTree
  /// For each Polygon or MultiPolygon feature, its point-in-polygon locator: points are
  /// tested against these rather than through GEOS (the same answers, exact, and without
  /// making a GEOS point for each test).
  let locators: [PointInAreaLocator?]
  /// Features of the file left out for having no geometry.
  let withoutGeometry: Int
  /// The file, for messages.
  let path: String

  /// Reads `path` (any readable format, reprojected to WGS84; `layer` picks one of several).
  init(path: String, layer: String?, context: StageContext) throws {
    let reader = try ReadStage.open(path, values: OptionValues(), context: context, layer: layer)
    var features: [Feature] = []
    var boxes: [BoxTree.Box] = []
    var withoutGeometry = 0
    while let feature = try reader.next() {
      guard let box = feature.geometry?.bbox else {
        withoutGeometry += 1
        continue
      }
      features.append(feature)
      boxes.append(BoxTree.Box(minX: box.west, minY: box.south, maxX: box.east, maxY: box.north))
    }
    self.features = features
    self.boxes = boxes
    tree = BoxTree(boxes)
    locators = features.map { feature in
      feature.geometry?.flatRings.map { PointInAreaLocator(rings: $0) }
    }
    self.withoutGeometry = withoutGeometry
    self.path = path
  }

  /// The indices of the features whose boxes meet `box`, in layer order.
  func candidates(_ box: BBox) -> [Int] {
    tree.search(BoxTree.Box(minX: box.west, minY: box.south, maxX: box.east, maxY: box.north))
  }
}

/// A worker's GEOS context and its prepared copies of a layer's geometries, made on first use.
final class PreparedLayer {
  let geos: GEOSContext
  private let layer: JoinLayer
  private var prepared: [Int: GEOSPreparedGeometry] = [:]

  init(_ layer: JoinLayer) throws {
    self.layer = layer
    do {
      geos = try GEOSContext()
    } catch {
      throw GeoPipeError("\(error)", status: .ioError)
    }
  }

  /// The layer's feature `index`, prepared in this worker's context.
  func geometry(_ index: Int) throws -> GEOSPreparedGeometry {
    if let done = prepared[index] { return done }
    guard let geometry = layer.features[index].geometry else {
      throw GeoPipeError("internal error: a layer feature without geometry", status: .ioError)
    }
    let made: GEOSPreparedGeometry
    do {
      made = try geos.prepare(geometry)
    } catch {
      throw GeoPipeError.data(
        "\(layer.path): feature \(index) of the layer: cannot use its geometry: \(error)", at: nil)
    }
    prepared[index] = made
    return made
  }
}
