/* Text escaped for the formats the harness writes: XML/HTML (JUnit, the dashboard's templates)
 * and JSON strings (export, the verdict, Google Benchmark's JSON). A leaf: the C library only. */
#ifndef GR_ESCAPE_H
#define GR_ESCAPE_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* s with < > & " ' as entities; control characters other than newline and tab (not allowed in
 * XML 1.0) as spaces. NULL writes nothing. */
void gr_xml_escape(FILE *f, const char *s);
/* s as a JSON string, quotes included ("" for NULL). */
void gr_json_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif
