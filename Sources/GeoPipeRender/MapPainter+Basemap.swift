import Foundation
import GeoPipeCore
import GeoPipeMercator

extension MapPainter {
  /// A tile in view: which stored tile it shows, and its top-left corner as world points
  /// from the camera's centre (copies of the world to the east or west have their own).
  struct PlacedTile {
    var tile: TileID
    var dx: Double
    var dy: Double
  }

  /// At most this many tiles are drawn for one source: a zoom far below a source's lowest
  /// would need more.
  static let maxTilesInView = 4096

  /// Draws the basemap under the features.
  ///
  /// The background, then raster tiles, vector tiles or polygons as the map type says. Returns the labels to draw above the features' overlays.
  mutating func drawBasemap(_ basemap: Basemap) throws -> [BasemapLabel] {
    switch basemap.mapType {
    case .none:
      canvas.background(Self.plain)
      return []
    case .satellite, .hybrid:
      canvas.background(Self.plain)
      for source in basemap.raster { try drawRaster(source, warn: basemap.warn) }
      guard basemap.mapType == .hybrid else { return [] }
      for feature in basemap.polygons {
        guard let geometry = feature.geometry else { continue }
        drawArea(geometry, fill: nil, stroke: Stroke(color: Self.hybridLine, width: 1))
      }
      var labels: [BasemapLabel] = []
      for source in basemap.vector {
        labels += try drawVector(
          source, style: basemap.style, roles: [.boundary, .label], warn: basemap.warn)
      }
      return labels
    case .standard:
      guard !basemap.vector.isEmpty else {
        canvas.background(basemap.polygons.isEmpty ? Self.plain : Self.water)
        for feature in basemap.polygons {
          guard let geometry = feature.geometry else { continue }
          drawArea(geometry, fill: Self.land, stroke: Stroke(color: Self.coast, width: 0.6))
        }
        return []
      }
      canvas.background(Self.water)
      var labels: [BasemapLabel] = []
      for source in basemap.vector {
        labels += try drawVector(
          source, style: basemap.style, roles: [.area, .line, .boundary, .label],
          warn: basemap.warn)
      }
      return labels
    }
  }

  /// The tile zoom for a source: `floor(zoom + log2(pixelsPerPoint))` clamped to its zooms.
  func tileZoom(for zooms: ClosedRange<Int>, pixelsPerPoint: Double) -> Int {
    let ideal = Int((camera.zoom + log2(max(pixelsPerPoint, 1e-9))).rounded(.down))
    return min(max(ideal, zooms.lowerBound), zooms.upperBound)
  }

  /// The tiles of zoom `z` that cover the viewport (rotated by the bearing), west to east and
  /// north to south; columns past the antimeridian wrap to the world's other copies.
  func tilesInView(zoom z: Int, source: String) throws -> [PlacedTile] {
    let size = projector.size / Double(1 << z)
    var west = Double.infinity
    var east = -Double.infinity
    var north = Double.infinity
    var south = -Double.infinity
    let halfWidth = camera.width / 2
    let halfHeight = camera.height / 2
    for (x, y) in [
      (0.0, 0.0), (camera.width, 0), (0, camera.height), (camera.width, camera.height),
    ] {
      // The inverse of `Projector.screen`: viewport points back to world points.
      let sx = x - halfWidth
      let sy = y - halfHeight
      let dx = sx * projector.cosine - sy * projector.sine
      let dy = sx * projector.sine + sy * projector.cosine
      west = min(west, projector.centerX + dx)
      east = max(east, projector.centerX + dx)
      north = min(north, projector.centerY + dy)
      south = max(south, projector.centerY + dy)
    }
    let n = 1 << z
    let first = Int((west / size).rounded(.down))
    let last = Int((east / size).rounded(.down))
    let top = max(Int((north / size).rounded(.down)), 0)
    let bottom = min(Int((south / size).rounded(.down)), n - 1)
    guard top <= bottom else { return [] }
    let count = (last - first + 1) * (bottom - top + 1)
    guard count <= Self.maxTilesInView else {
      throw GeoPipeError(
        "render: \(source) would need \(count) tiles of zoom \(z) for this view (at most "
          + "\(Self.maxTilesInView)); raise --zoom or draw a smaller --size",
        status: .usage)
    }
    var tiles: [PlacedTile] = []
    for row in top...bottom {
      for column in first...last {
        let wrapped = ((column % n) + n) % n
        tiles.append(
          PlacedTile(
            tile: TileID(unchecked: z, wrapped, row),
            dx: Double(column) * size - projector.centerX,
            dy: Double(row) * size - projector.centerY))
      }
    }
    return tiles
  }

  /// Draws a raster source's tiles in view, each read and decoded once; a missing tile
  /// leaves the background and a tile that cannot be decoded is a warning.
  func drawRaster(_ source: any RasterTileSource, warn: (String) -> Void) throws {
    let z = tileZoom(for: source.zooms, pixelsPerPoint: pixelsPerPoint)
    let size = projector.size / Double(1 << z)
    var decoded: [TileID: RasterImage?] = [:]
    for placed in try tilesInView(zoom: z, source: source.name) {
      let image: RasterImage?
      if let known = decoded[placed.tile] {
        image = known
      } else {
        if let bytes = try source.imageData(of: placed.tile) {
          do {
            image = try RasterImage(bytes: bytes)
          } catch let error as RasterImageError {
            warn("\(source.name): tile \(placed.tile): \(error); drawn as background")
            image = nil
          }
        } else {
          image = nil
        }
        decoded[placed.tile] = image
      }
      guard let image else { continue }
      let origin = projector.screen(dx: placed.dx, dy: placed.dy)
      let right = projector.screen(dx: placed.dx + size, dy: placed.dy)
      let below = projector.screen(dx: placed.dx, dy: placed.dy + size)
      canvas.image(
        image, origin: origin, across: (right.x - origin.x, right.y - origin.y),
        down: (below.x - origin.x, below.y - origin.y))
    }
  }

  /// Draws a vector source's tiles in view (at the floor of the camera's zoom, clamped to
  /// the source's zooms), each tile's features clipped to the tile so that the edges tiles
  /// are cut along do not show, and returns the labels of points inside their tile.
  func drawVector(
    _ source: any VectorTileSource, style: BasemapStyle, roles: Set<BasemapRole>,
    warn: (String) -> Void
  ) throws -> [BasemapLabel] {
    let z = tileZoom(for: source.zooms, pixelsPerPoint: 1)
    let size = projector.size / Double(1 << z)
    var labels: [BasemapLabel] = []
    let hybrid = !roles.contains(.area)
    // Each tile is read once, also when copies of the world show it twice.
    var decoded: [TileID: [Feature]] = [:]
    for placed in try tilesInView(zoom: z, source: source.name) {
      let features: [Feature]
      if let known = decoded[placed.tile] {
        features = known
      } else {
        do {
          features = try source.features(of: placed.tile) ?? []
        } catch let error as GeoPipeError where error.status == .dataError {
          warn("\(error.message); drawn as background")
          features = []
        }
        decoded[placed.tile] = features
      }
      guard !features.isEmpty else { continue }
      let shift = placed.dx - projector.offset(placed.tile.bounds.west, 0).x
      let corners = [
        (placed.dx, placed.dy), (placed.dx + size, placed.dy),
        (placed.dx + size, placed.dy + size), (placed.dx, placed.dy + size),
      ].map { projector.screen(dx: $0.0, dy: $0.1) }
      var square: [PathStep] = [.move(corners[0].x, corners[0].y)]
      for corner in corners.dropFirst() { square.append(.line(corner.x, corner.y)) }
      square.append(.close)
      canvas.clip(square)
      let styles = features.map { style(Self.layerName($0), $0) }
      for pass in [BasemapRole.area, .line, .boundary] where roles.contains(pass) {
        for (feature, styled) in zip(features, styles) {
          guard let geometry = feature.geometry, let styled, styled.role == pass else { continue }
          let paint = styled.paint
          let stroke = paint.stroke.flatMap { RGBA(css: $0, alpha: paint.strokeOpacity) }.map {
            Stroke(color: hybrid ? Self.hybridLine : $0, width: paint.strokeWidth)
          }
          let fill = hybrid ? nil : paint.fill.flatMap { RGBA(css: $0, alpha: paint.fillOpacity) }
          guard fill != nil || stroke != nil else { continue }
          drawShape(geometry, fill: fill, stroke: stroke, shift: shift)
        }
      }
      canvas.unclip()
      guard roles.contains(.label) else { continue }
      let bounds = placed.tile.bounds
      for (feature, styled) in zip(features, styles) {
        guard case .point(let p)? = feature.geometry,
          p.x >= bounds.west && p.x < bounds.east && p.y <= bounds.north && p.y > bounds.south,
          let styled, styled.role == .label, let text = styled.paint.label
        else { continue }
        let offset = projector.offset(p.x, p.y)
        let point = projector.screen(dx: offset.x + shift, dy: offset.y)
        labels.append(
          BasemapLabel(text: text, x: point.x, y: point.y, size: styled.paint.labelSize))
      }
    }
    return labels
  }

  /// Draws basemap labels where they do not overlap one drawn before, biggest first.
  func drawLabels(_ labels: [BasemapLabel], hybrid: Bool) {
    var taken: [(x0: Double, y0: Double, x1: Double, y1: Double)] = []
    let ordered = labels.enumerated().sorted {
      ($0.element.size, -$0.offset) > ($1.element.size, -$1.offset)
    }.map(\.element)
    for label in ordered {
      let half = Double(label.text.count) * label.size * 0.3
      let box = (
        x0: label.x - half, y0: label.y - label.size, x1: label.x + half, y1: label.y + 2
      )
      guard box.x1 > 0, box.x0 < camera.width, box.y1 > 0, box.y0 < camera.height,
        !taken.contains(where: {
          $0.x0 < box.x1 && box.x0 < $0.x1 && $0.y0 < box.y1 && box.y0 < $0.y1
        })
      else { continue }
      taken.append(box)
      canvas.text(
        label.text, x: label.x, y: label.y + label.size / 3, size: label.size, bold: false,
        color: hybrid ? .white : Self.labelInk, halo: hybrid ? Self.ink : .white,
        anchor: .middle)
    }
  }

  /// The attribution at the bottom right, on a pale band.
  func drawAttribution(_ text: String) {
    let plain = Self.withoutMarkup(text)
    guard !plain.isEmpty else { return }
    let size = 9.0
    let width = Double(plain.count) * size * 0.55 + 8
    let right = camera.width
    let bottom = camera.height
    canvas.path(
      [
        .move(right - width, bottom - size - 5), .line(right, bottom - size - 5),
        .line(right, bottom), .line(right - width, bottom), .close,
      ], fill: RGBA.white.with(alpha: 0.75), stroke: nil)
    canvas.text(
      plain, x: right - 4, y: bottom - 4, size: size, bold: false, color: Self.ink, halo: nil,
      anchor: .end)
  }

  /// Text without HTML tags (attributions are often links) and with `&copy;` as ©.
  static func withoutMarkup(_ text: String) -> String {
    var out = ""
    var inTag = false
    for character in text {
      if character == "<" {
        inTag = true
      } else if character == ">" {
        inTag = false
      } else if !inTag {
        out.append(character)
      }
    }
    return out.replacingOccurrences(of: "&copy;", with: "©")
      .replacingOccurrences(of: "&amp;", with: "&")
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The layer a decoded tile feature came from (its `tippecanoe` member's `layer`).
  static func layerName(_ feature: Feature) -> String {
    guard case .object(let member)? = feature.foreignMembers["tippecanoe"] else { return "" }
    return member["layer"]?.stringValue ?? ""
  }

  static let hybridLine = RGBA(1, 1, 1, 0.8)
  static let labelInk = RGBA(rgb: 0x333333)
}

/// A place name of the vector basemap, at its viewport point.
struct BasemapLabel {
  var text: String
  var x: Double
  var y: Double
  var size: Double
}
