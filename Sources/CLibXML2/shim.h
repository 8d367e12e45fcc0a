#include <libxml/xmlversion.h>
/* Debian's libxml2 is built with ICU, so its encoding.h pulls in the system's ICU headers,
   whose types clash with the copy Foundation carries. geopipe never touches the encoding
   handler structures those headers describe (they are used through pointers only), so they
   are declared without the ICU members here. */
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
