/* Times GEOS's simplifiers called directly on the geometries of a WKT file (one per line), on
 * one thread: the baseline for geopipe's simplify step.
 *
 *   geos_simplify FILE.wkt TOLERANCE RUNS
 *
 * Prints, per method, a tab-separated line: method, best CPU seconds of RUNS runs (the
 * simplify calls only, not the WKT parsing), and the total vertex count of the results. */
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: geos_simplify FILE.wkt TOLERANCE RUNS\n");
    return 2;
  }
  double tolerance = atof(argv[2]);
  int runs = atoi(argv[3]);
  GEOSContextHandle_t h = GEOS_init_r();
  GEOSWKTReader *reader = GEOSWKTReader_create_r(h);
  FILE *f = fopen(argv[1], "r");
  if (!f) { perror(argv[1]); return 1; }
  size_t n = 0, cap = 1024;
  GEOSGeometry **geoms = malloc(cap * sizeof *geoms);
  char *line = NULL;
  size_t len = 0;
  while (getline(&line, &len, f) > 0) {
    GEOSGeometry *g = GEOSWKTReader_read_r(h, reader, line);
    if (!g) { fprintf(stderr, "bad WKT at geometry %zu\n", n); return 1; }
    if (n == cap) geoms = realloc(geoms, (cap *= 2) * sizeof *geoms);
    geoms[n++] = g;
  }
  fclose(f);
  const char *names[2] = {"dp", "topology"};
  for (int method = 0; method < 2; method++) {
    double best = 1e300;
    long vertices = 0;
    for (int r = 0; r < (runs > 0 ? runs : 1); r++) {
      long count = 0;
      double start = cpu_seconds();
      for (size_t i = 0; i < n; i++) {
        GEOSGeometry *s = method == 0 ? GEOSSimplify_r(h, geoms[i], tolerance)
                                      : GEOSTopologyPreserveSimplify_r(h, geoms[i], tolerance);
        if (!s) { fprintf(stderr, "GEOS failed on geometry %zu\n", i); return 1; }
        count += GEOSGetNumCoordinates_r(h, s);
        GEOSGeom_destroy_r(h, s);
      }
      double t = cpu_seconds() - start;
      if (t < best) best = t;
      vertices = count;
    }
    printf("%s\t%.4f\t%ld\n", names[method], best, vertices);
  }
  for (size_t i = 0; i < n; i++) GEOSGeom_destroy_r(h, geoms[i]);
  free(geoms);
  free(line);
  GEOSWKTReader_destroy_r(h, reader);
  GEOS_finish_r(h);
  return 0;
}
