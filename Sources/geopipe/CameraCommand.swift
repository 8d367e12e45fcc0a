import Foundation
import GeoPipeCore
import GeoPipeMercator
import GeoPipeStageKit
import GeoPipeStages

/// `geopipe camera`: the camera that fits a box in a view, or what a given camera shows.
enum CameraCommand {

  static let abstract = "Compute a map camera: fit a box in a view, or what a camera shows."

  /// The view's size when --size is not given.
  static let defaultSize = "1024x768"

  static let options: [OptionSpec] = [
    OptionSpec("fit-bounds", .bbox, help: "Fit this box (W,S,E,N) in the view."),
    OptionSpec(
      "center", .point, help: "The camera's target, with --zoom (instead of --fit-bounds)."),
    OptionSpec("zoom", .number, help: "The camera's zoom, with --center."),
    OptionSpec(
      "bearing", .number, default: "0", help: "Degrees clockwise from north, with --center."),
    OptionSpec(
      "tilt", .number, default: "0", help: "Degrees from straight down (kept, not drawn)."),
    OptionSpec(
      "size", .string, default: defaultSize,
      validate: {
        Viewport(size: $0) == nil ? ValueProblem("expected WxH, e.g. 1024x768") : nil
      },
      help: "The view's size in points, WxH."),
    OptionSpec(
      "padding", .number, default: "0", help: "Points kept clear at every edge when fitting."),
    OptionSpec(
      "insets", .list,
      help:
        "Points kept clear at each edge when fitting: TOP,LEFT,BOTTOM,RIGHT (overrides --padding)."),
    OptionSpec(
      "min-zoom", .number, default: String(format: "%g", ZoomLimits().minZoom),
      help: "The lowest zoom the camera may have."),
    OptionSpec(
      "max-zoom", .number, default: String(format: "%g", ZoomLimits().maxZoom),
      help: "The highest zoom the camera may have."),
  ]

  static let discussion = """
    Prints a camera as JSON: center [lon, lat], zoom, bearing, tilt and the visible bounds
    [W, S, E, N]. The world is 256·2^zoom points wide (the convention of MapKit and the
    Google Maps SDK: tile zoom z shows 256-point tiles at zoom z). With --fit-bounds the
    camera has the highest fractional zoom at which the box fits inside the view less the
    padding or insets, bearing 0, centred on the box's midpoint in Web Mercator (as
    cameraForBounds:insets: does), clamped to --min-zoom and --max-zoom. A box whose west is
    east of its east crosses the antimeridian. With --center and --zoom it prints what that
    camera shows; with a bearing, the bounds cover the rotated view.
    """

  static let examples = [
    "geopipe camera --fit-bounds 2.22,48.81,2.47,48.90 --size 800x600 --padding 20",
    "geopipe camera --fit-bounds 170,-50,-170,-30 --size 512x512 --max-zoom 4",
    "geopipe camera --center 2.35,48.85 --zoom 12 --bearing 30 --size 1024x768",
  ]

  static let entry = CommandEntry(
    name: "camera", abstract: abstract, discussion: discussion, examples: examples,
    groups: [("OPTIONS", options), ("GLOBAL OPTIONS", Help.globalOptions)],
    run: { _, values in
      do {
        print(try camera(values))
        return 0
      } catch let error as GeoPipeError {
        CommandEntry.printUsageError(error, command: "camera")
        return error.status.rawValue
      } catch {
        Terminal.printError("error: \(error)")
        return ExitStatus.ioError.rawValue
      }
    })

  /// The camera's JSON for parsed options.
  static func camera(_ values: OptionValues) throws -> String {
    guard let viewport = Viewport(size: values.string("size") ?? defaultSize) else {
      throw GeoPipeError.usage("invalid value for --size: expected WxH, e.g. 1024x768")
    }
    // The option table's zoom defaults are ZoomLimits' own.
    let defaults = ZoomLimits()
    let maxZoom = values.number("max-zoom") ?? defaults.maxZoom
    let limits = ZoomLimits(
      minZoom: values.number("min-zoom") ?? defaults.minZoom, maxZoom: maxZoom)
    guard limits.minZoom <= maxZoom else {
      throw GeoPipeError.usage("--min-zoom is greater than --max-zoom")
    }
    let camera: Camera
    if let box = values.bbox("fit-bounds") {
      guard values.point("center") == nil, values.number("zoom") == nil else {
        throw GeoPipeError.usage("give either --fit-bounds or --center with --zoom, not both")
      }
      var insets = EdgeInsets(padding: values.number("padding") ?? 0)
      if let list = values.list("insets") {
        let numbers = list.compactMap(Double.init)
        guard numbers.count == 4, list.count == 4 else {
          throw GeoPipeError.usage(
            "invalid value for --insets: expected TOP,LEFT,BOTTOM,RIGHT (four numbers)")
        }
        insets = EdgeInsets(
          top: numbers[0], left: numbers[1], bottom: numbers[2], right: numbers[3])
      }
      var fitted = Camera.fitting(
        BBox(west: box.west, south: box.south, east: box.east, north: box.north),
        in: viewport, insets: insets, limits: limits)
      fitted.tilt = values.number("tilt") ?? 0
      camera = fitted
    } else if let center = values.point("center") {
      guard let zoom = values.number("zoom") else {
        throw GeoPipeError.usage("--center needs --zoom")
      }
      camera = Camera(
        longitude: center.lon, latitude: center.lat, zoom: zoom,
        bearing: values.number("bearing") ?? 0, tilt: values.number("tilt") ?? 0
      ).clamped(to: limits)
    } else {
      throw GeoPipeError.usage("give --fit-bounds W,S,E,N, or --center LON,LAT with --zoom")
    }
    return camera.json(in: viewport)
  }
}
