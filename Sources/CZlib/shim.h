#include <zlib.h>

/* deflateInit2/inflateInit2 are macros: wrap them so Swift can call them. */
static inline int geopipe_inflateInit2(z_streamp strm, int windowBits) {
  return inflateInit2(strm, windowBits);
}
static inline int geopipe_deflateInit2(z_streamp strm, int level, int windowBits) {
  return deflateInit2(strm, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
