// swift-tools-version:6.2
import Foundation
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]
// The parsers and writers access class state in their inner loops; release builds skip the
// run-time exclusivity checks there (debug builds and tests keep them).
let fast: [SwiftSetting] =
  strict + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

var targets: [Target] = [
  .systemLibrary(
    name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
    providers: [.apt(["zlib1g-dev"])]),
  .systemLibrary(
    name: "CPROJ", path: "Sources/CPROJ", pkgConfig: "proj",
    providers: [.apt(["libproj-dev"])]),
  .systemLibrary(
    name: "CGEOS", path: "Sources/CGEOS", pkgConfig: "geos",
    providers: [.apt(["libgeos-dev"])]),
  .systemLibrary(
    name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1",
    providers: [.apt(["libyaml-dev"])]),
  .systemLibrary(
    name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
    providers: [.apt(["libsqlite3-dev"])]),
  .systemLibrary(
    name: "CShapelib", path: "Sources/CShapelib", pkgConfig: "shapelib",
    providers: [.apt(["libshp-dev"])]),
  .systemLibrary(
    name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
    providers: [.apt(["libxml2-dev"])]),
  .systemLibrary(
    name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
    providers: [.apt(["libpq-dev"])]),
  .systemLibrary(
    name: "CSnappy", path: "Sources/CSnappy", pkgConfig: "snappy",
    providers: [.apt(["libsnappy-dev"])]),
  .systemLibrary(
    name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd",
    providers: [.apt(["libzstd-dev"])]),
  .systemLibrary(
    name: "CCairo", path: "Sources/CCairo", pkgConfig: "cairo",
    providers: [.apt(["libcairo2-dev"])]),
  .systemLibrary(
    name: "CJPEG", path: "Sources/CJPEG", pkgConfig: "libjpeg",
    providers: [.apt(["libjpeg62-turbo-dev"])]),
  .systemLibrary(
    name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebp",
    providers: [.apt(["libwebp-dev"])]),
  .target(name: "GeoPipeCore", swiftSettings: fast),
  .target(name: "GeoPipeSQLite", dependencies: ["CSQLite"], swiftSettings: strict),
  .target(
    name: "GeoPipeGeoPackage", dependencies: ["GeoPipeCore", "GeoPipeIO", "GeoPipeSQLite"],
    swiftSettings: fast),
  .target(
    name: "GeoPipeGeocoding",
    dependencies: ["GeoPipeCore", "GeoPipeIO", "GeoPipeSQLite", "GeoPipeSpatialIndex"],
    swiftSettings: fast),
  .target(name: "GeoPipeIO", dependencies: ["GeoPipeCore", "CZlib"], swiftSettings: fast),
  .target(
    name: "GeoPipeShapefile", dependencies: ["GeoPipeCore", "GeoPipeIO", "CShapelib"],
    swiftSettings: fast),
  // GPX and KML, read with libxml2's SAX2 push parser.
  .target(
    name: "GeoPipeXML", dependencies: ["GeoPipeCore", "GeoPipeIO", "CLibXML2"],
    swiftSettings: fast),
  .target(name: "GeoPipeSpatialIndex", swiftSettings: fast),
  .target(
    name: "GeoPipeFlatGeobuf", dependencies: ["GeoPipeCore", "GeoPipeIO"], swiftSettings: fast),
  // GeoParquet, on a Parquet reader and writer of its own (Snappy and Zstandard pages).
  .target(
    name: "GeoPipeParquet",
    dependencies: ["GeoPipeCore", "GeoPipeIO", "GeoPipeGeometry", "CSnappy", "CZstd"],
    swiftSettings: fast),
  // PostgreSQL/PostGIS tables and queries through libpq (binary COPY in and out).
  .target(
    name: "GeoPipePostgreSQL", dependencies: ["GeoPipeCore", "GeoPipeIO", "CLibPQ"],
    swiftSettings: fast),
  .target(name: "GeoPipeMercator", dependencies: ["GeoPipeCore"], swiftSettings: fast),
  .target(
    name: "GeoPipeTiles",
    dependencies: [
      "GeoPipeCore", "GeoPipeIO", "GeoPipeMercator", "GeoPipeSQLite", "GeoPipeGEOS",
      "GeoPipeClustering",
    ],
    swiftSettings: fast),
  .target(
    name: "GeoPipeClustering", dependencies: ["GeoPipeSpatialIndex"], swiftSettings: fast),
  // Static maps: the camera, the SVG writer and the cairo (PNG) back end, and basemaps of
  // raster tiles (PNG through cairo, JPEG through libjpeg, WebP through libwebp).
  .target(
    name: "GeoPipeRender",
    dependencies: ["GeoPipeCore", "GeoPipeMercator", "CCairo", "CJPEG", "CWebP"],
    swiftSettings: fast),
  .target(name: "GeoPipeGeometry", dependencies: ["GeoPipeCore", "CPROJ"], swiftSettings: strict),
  .target(name: "GeoPipeGEOS", dependencies: ["GeoPipeCore", "CGEOS"], swiftSettings: fast),
  // The stage framework: Stage, option tables, the parser, plans and their runner, and the
  // `--where` and `{property}` template languages (whose geometry functions measure on the
  // WGS84 ellipsoid through GeoPipeGeometry).
  .target(
    name: "GeoPipeStageKit", dependencies: ["GeoPipeCore", "GeoPipeIO", "GeoPipeGeometry"],
    swiftSettings: fast),
  .target(
    name: "GeoPipeStages",
    dependencies: [
      "GeoPipeCore", "GeoPipeIO", "GeoPipeStageKit", "GeoPipeGeometry", "GeoPipeGEOS",
      "GeoPipeClustering", "GeoPipeGeocoding", "GeoPipeGeoPackage", "GeoPipeFlatGeobuf",
      "GeoPipeMercator", "GeoPipeRender", "GeoPipeShapefile", "GeoPipeTiles",
      "GeoPipeValidation", "GeoPipeSpatialIndex", "GeoPipeXML", "GeoPipePostgreSQL",
      "GeoPipeParquet",
    ],
    swiftSettings: fast),
  .target(
    name: "GeoPipeValidation", dependencies: ["GeoPipeCore", "GeoPipeIO", "GeoPipeGEOS"],
    swiftSettings: strict),
  .target(
    name: "GeoPipePipeline",
    dependencies: ["GeoPipeCore", "GeoPipeIO", "GeoPipeStageKit", "GeoPipeStages", "CYAML"],
    swiftSettings: strict),
  // jemalloc replaces the C allocator: features are built on one thread and freed on another,
  // a pattern glibc's malloc handles slowly.
  .executableTarget(
    name: "geopipe",
    dependencies: [
      "GeoPipeCore", "GeoPipeIO", "GeoPipeStageKit", "GeoPipeStages", "GeoPipePipeline",
      "GeoPipeValidation", "GeoPipeMercator", "GeoPipeGeocoding", "GeoPipeTiles",
    ],
    swiftSettings: strict,
    linkerSettings: [.linkedLibrary("jemalloc")]),
  .testTarget(name: "GeoPipeCoreTests", dependencies: ["GeoPipeCore"], swiftSettings: strict),
  .testTarget(
    name: "GeoPipeIOTests", dependencies: ["GeoPipeIO", "GeoPipeCore"], swiftSettings: strict),
  .testTarget(
    name: "GeoPipeStagesTests",
    dependencies: [
      "GeoPipeStages", "GeoPipeStageKit", "GeoPipeClustering", "GeoPipeGeometry", "GeoPipeGEOS",
      "GeoPipeIO",
      "GeoPipeCore",
    ],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeClusteringTests",
    dependencies: ["GeoPipeClustering", "GeoPipeSpatialIndex", "GeoPipeIO", "GeoPipeCore"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeGeocodingTests",
    dependencies: ["GeoPipeGeocoding", "GeoPipeSQLite", "GeoPipeCore"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipePipelineTests",
    dependencies: [
      "GeoPipePipeline", "GeoPipeStages", "GeoPipeStageKit", "GeoPipeIO", "GeoPipeCore",
    ],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeShapefileTests", dependencies: ["GeoPipeShapefile", "GeoPipeIO", "GeoPipeCore"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipePostgreSQLTests", dependencies: ["GeoPipePostgreSQL", "GeoPipeCore"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeXMLTests", dependencies: ["GeoPipeXML", "GeoPipeIO", "GeoPipeCore"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeGEOSTests", dependencies: ["GeoPipeGEOS", "GeoPipeSpatialIndex", "GeoPipeCore"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeValidationTests",
    dependencies: ["GeoPipeValidation", "GeoPipeIO", "GeoPipeCore"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeRenderTests",
    dependencies: ["GeoPipeRender", "GeoPipeCore", "GeoPipeMercator", "CCairo"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeMercatorTests", dependencies: ["GeoPipeMercator", "GeoPipeCore"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeTilesTests",
    dependencies: [
      "GeoPipeTiles", "GeoPipeSQLite", "GeoPipeIO", "GeoPipeCore", "GeoPipeMercator", "GeoPipeGEOS",
      "GeoPipeClustering",
    ],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeGeoPackageTests",
    dependencies: ["GeoPipeGeoPackage", "GeoPipeSQLite", "GeoPipeIO", "GeoPipeCore"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeFlatGeobufTests",
    dependencies: ["GeoPipeFlatGeobuf", "GeoPipeIO", "GeoPipeCore"], swiftSettings: strict),
  .testTarget(
    name: "GeoPipeParquetTests",
    dependencies: ["GeoPipeParquet", "GeoPipeIO", "GeoPipeCore"], swiftSettings: strict),
  .testTarget(name: "CLITests", dependencies: ["geopipe"], swiftSettings: strict),
]

var products: [Product] = [
  .executable(name: "geopipe", targets: ["geopipe"]),
  .library(
    name: "GeoPipe",
    targets: [
      "GeoPipeCore", "GeoPipeIO", "GeoPipeStageKit", "GeoPipeStages", "GeoPipePipeline",
      "GeoPipeValidation",
    ]),
]

// libFuzzer targets are built only by `make fuzz`, which sets GEOPIPE_FUZZ=1: they have no
// `main` of their own and link only with `--sanitize fuzzer`.
if ProcessInfo.processInfo.environment["GEOPIPE_FUZZ"] != nil {
  for name in [
    "FuzzGeoJSON", "FuzzCSV", "FuzzWKT", "FuzzWKB", "FuzzPipeline", "FuzzGeoPackageBlob",
    "FuzzDBase",
    "FuzzXML", "FuzzFlatGeobuf", "FuzzTiles", "FuzzPostgreSQLCopy", "FuzzRasterTile",
    "FuzzParquet",
  ] {
    let dependency: Target.Dependency =
      switch name {
      case "FuzzPipeline": "GeoPipePipeline"
      case "FuzzGeoPackageBlob": "GeoPipeGeoPackage"
      case "FuzzDBase": "GeoPipeShapefile"
      case "FuzzXML": "GeoPipeXML"
      case "FuzzFlatGeobuf": "GeoPipeFlatGeobuf"
      case "FuzzTiles": "GeoPipeTiles"
      case "FuzzPostgreSQLCopy": "GeoPipePostgreSQL"
      case "FuzzRasterTile": "GeoPipeRender"
      case "FuzzParquet": "GeoPipeParquet"
      default: "GeoPipeIO"
      }
    targets.append(.executableTarget(name: name, dependencies: [dependency], path: "Fuzz/\(name)"))
    products.append(.executable(name: name, targets: [name]))
  }
}

// Benchmark harnesses are built only by `make bench`, which sets GEOPIPE_BENCH=1.
if ProcessInfo.processInfo.environment["GEOPIPE_BENCH"] != nil {
  targets.append(
    .target(name: "BenchSupport", path: "bench/BenchSupport", swiftSettings: strict))
  targets.append(
    .executableTarget(
      name: "ClusterBench", dependencies: ["BenchSupport", "GeoPipeClustering", "GeoPipeIO"],
      path: "bench/ClusterBench", swiftSettings: strict))
  products.append(.executable(name: "ClusterBench", targets: ["ClusterBench"]))
  targets.append(
    .executableTarget(
      name: "GeometryBench",
      dependencies: ["BenchSupport", "GeoPipeGEOS", "GeoPipeGeometry", "GeoPipeIO"],
      path: "bench/GeometryBench", swiftSettings: strict))
  products.append(.executable(name: "GeometryBench", targets: ["GeometryBench"]))
  targets.append(
    .executableTarget(
      name: "GeocodeBench", dependencies: ["BenchSupport", "GeoPipeGeocoding"],
      path: "bench/GeocodeBench", swiftSettings: strict))
  products.append(.executable(name: "GeocodeBench", targets: ["GeocodeBench"]))
}

let package = Package(
  name: "geopipe",
  platforms: [.macOS(.v14)],
  products: products,
  targets: targets
)
