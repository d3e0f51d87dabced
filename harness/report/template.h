/* A small page template engine for the dashboard (a subset of Mustache): the page stays an HTML
 * file that can be edited as a page, and C fills in data only, always HTML-escaped.
 *
 *   {{name}}                 the value of name, escaped (an unknown name is an error)
 *   {{#name}}...{{/name}}    a list: once per item, the item's names first; a value: once when
 *                            it is not empty; absent: not at all
 *   {{^name}}...{{/name}}    once when name is absent, empty or an empty list
 *   {{! comment }}           nothing
 * A line holding only a section tag or a comment is dropped whole, so that the template can be
 * indented freely. */
#ifndef GR_TEMPLATE_H
#define GR_TEMPLATE_H

#include <stddef.h>
#include <stdio.h>

struct tpl_view;

struct tpl_view *tpl_view_new(void);
void tpl_view_free(struct tpl_view *v);
/* Set name to printf-formatted text. 0 ok, -1 out of memory. */
int tpl_set(struct tpl_view *v, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Append a new item to the list name (made on first use) and return it; NULL out of memory. */
struct tpl_view *tpl_add(struct tpl_view *v, const char *name);
/* Render the template text (len bytes) with v to out. 0 ok; -1 with why (an unbalanced section,
 * an unknown name, out of memory). */
int tpl_render(FILE *out, const char *text, size_t text_len, const struct tpl_view *v, char *why,
               size_t len);

#endif
