#include <libxml/xmlversion.h>
/* Debian's libxml2 is built with ICU, so its encoding.h pulls in the system's ICU headers,
   whose types clash with the copy Foundation carries. geopipe never touches the encoding
   handler structures those headers describe (they are used through pointers only), so they
   are declared without the ICU members here. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

/* libxml2 also prints encoding and I/O errors through its generic error function, which is
   variadic (Swift cannot define one) and kept per thread; the structured error handler
   records them instead. */
static void geopipe_xml_ignore(void *context, const char *message, ...) {
  (void)context;
  (void)message;
}

/* Silences the generic error function on this thread and on threads started later. */
static inline void geopipe_xml_silence_generic_errors(void) {
  xmlSetGenericErrorFunc(NULL, geopipe_xml_ignore);
  xmlThrDefSetGenericErrorFunc(NULL, geopipe_xml_ignore);
}
