/* The dashboard's template engine (harness/report/template.h): values are escaped, lists repeat with
 * the item's names first and the enclosing ones after, conditions and their absence, lines
 * holding only a section tag or a comment are dropped, and a broken template is an error that
 * names its line. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"
#include "test_util.h"

/* Render text with v into a malloc'd string; NULL and why on an error. */
static char *render(const char *text, const struct tpl_view *v, char *why, size_t len)
{
  char *out = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&out, &n);
  int rc = tpl_render(f, text, strlen(text), v, why, len);
  fclose(f);
  if (rc) {
    free(out);
    return NULL;
  }
  return out;
}

static void expect_render(const char *text, const struct tpl_view *v, const char *want)
{
  char why[256] = "";
  char *got = render(text, v, why, sizeof why);
  EXPECT(got != NULL);
  if (got && strcmp(got, want)) {
    fprintf(stderr, "rendered '%s', expected '%s'\n", got, want);
    EXPECT(strcmp(got, want) == 0);
  }
  free(got);
}

static void expect_error(const char *text, const struct tpl_view *v, const char *want)
{
  char why[256] = "";
  char *got = render(text, v, why, sizeof why);
  EXPECT(got == NULL);
  EXPECT_STR_CONTAINS(why, want);
  free(got);
}

int main(void)
{
  struct tpl_view *v = tpl_view_new();
  EXPECT(v != NULL);
  EXPECT(tpl_set(v, "title", "run %d <b> & \"q\" 'a'", 7) == 0);
  EXPECT(tpl_set(v, "empty", "%s", "") == 0);
  EXPECT(tpl_set(v, "flag", "1") == 0);
  for (int i = 0; i < 3; i++) {
    struct tpl_view *row = tpl_add(v, "rows");
    EXPECT(row != NULL);
    tpl_set(row, "n", "%d", i);
    if (i == 1)
      tpl_set(row, "odd", "yes");
  }
  tpl_add(v, "none_yet"); /* a list with one empty item */

  expect_render("<h1>{{title}}</h1>", v, "<h1>run 7 &lt;b&gt; &amp; &quot;q&quot; &#39;a&#39;</h1>");
  expect_render("{{ title }}|{{#flag}}on{{/flag}}{{^flag}}off{{/flag}}", v,
                "run 7 &lt;b&gt; &amp; &quot;q&quot; &#39;a&#39;|on");
  expect_render("{{#empty}}shown{{/empty}}{{^empty}}hidden{{/empty}}", v, "hidden");
  expect_render("{{#missing}}x{{/missing}}{{^missing}}absent{{/missing}}", v, "absent");
  /* lists: one pass per item; names of the enclosing view are found from inside */
  expect_render("{{#rows}}[{{n}}{{#odd}} odd{{/odd}}{{#flag}}+{{/flag}}]{{/rows}}", v,
                "[0+][1 odd+][2+]");
  expect_render("{{^rows}}no rows{{/rows}}{{#none_yet}}one{{/none_yet}}", v, "one");
  /* nested sections of one name */
  expect_render("{{#flag}}a{{#flag}}b{{/flag}}c{{/flag}}", v, "abc");
  /* standalone tag and comment lines are dropped; inline ones are not */
  expect_render("<ul>\n  {{#rows}}\n  <li>{{n}}</li>\n  {{/rows}}\n</ul>\n", v,
                "<ul>\n  <li>0</li>\n  <li>1</li>\n  <li>2</li>\n</ul>\n");
  expect_render("a\n{{! a comment\n over two lines }}\nb {{! inline }}c\n", v, "a\nb c\n");
  /* errors name the line */
  expect_error("ok\n{{nosuch}}", v, "template line 2: unknown name 'nosuch'");
  expect_error("{{rows}}", v, "a list used as a value");
  expect_error("{{#rows}}never closed", v, "unterminated section 'rows'");
  expect_error("{{/rows}}", v, "unexpected end of section 'rows'");
  expect_error("{{title", v, "without '}}'");
  tpl_view_free(v);
  TEST_DONE();
}
