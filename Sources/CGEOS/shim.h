// Only GEOS's reentrant (_r) C API: every call names the context it runs in, so each worker
// thread can own one.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
