#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The public API's names (issue 39): every name the public headers (include/gpuregress/, less the
# deprecated compat_v1.h) put into a user's file starts with gr_ or GR_: macros, struct / enum /
# union tags, enumerators, typedefs and functions (fields are scoped and not checked). The headers
# are read as the compiler sees them (gcc -E -dD: every macro kept, line markers say which file a
# line comes from), so a name made by a macro is seen too.
#   tests/public_api.sh SOURCE_DIR
set -u
src=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$src" || exit 2
cc=${CC:-cc}
pre=$(mktemp)
trap 'rm -f "$pre"' EXIT
printf '#include <gpuregress/gpuregress.h>\n' |
  "$cc" -E -dD -x c -I include - >"$pre" 2>&1 || { cat "$pre"; exit 2; }

# the lines that come from include/gpuregress/ (a line marker '# N "FILE"' says where a line
# is from), comments gone
ours=$(awk '/^# [0-9]+ "/ { f = $3; next } f ~ /include\/gpuregress\// { print }' "$pre")
[ -n "$ours" ] || { echo "FAIL: no line of include/gpuregress/ in the preprocessed header"; exit 1; }

names=$(printf '%s\n' "$ours" | awk '
  # macros
  /^#define/ { n = $2; sub(/\(.*/, "", n); print "macro " n; next }
  /^#/ { next }
  {
    line = $0
    # string literals out
    gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
    # tags
    s = line
    while (match(s, /(struct|enum|union)[ \t]+[A-Za-z_][A-Za-z0-9_]*/)) {
      t = substr(s, RSTART, RLENGTH); sub(/^(struct|enum|union)[ \t]+/, "", t)
      print "tag " t
      s = substr(s, RSTART + RLENGTH)
    }
    # typedef NAME;
    if (line ~ /^[ \t]*typedef/ && match(line, /[A-Za-z_][A-Za-z0-9_]*[ \t]*;/)) {
      t = substr(line, RSTART, RLENGTH); sub(/[ \t]*;$/, "", t); print "typedef " t
    }
    # enumerators: inside "enum X { ... }" (the braces of an enum, tracked across lines)
    s = line
    while (s != "") {
      if (inenum) {
        e = index(s, "}")
        body = e ? substr(s, 1, e - 1) : s
        n = split(body, parts, ",")
        for (i = 1; i <= n; i++) {
          p = parts[i]; sub(/=.*/, "", p); gsub(/[ \t]/, "", p)
          if (p ~ /^[A-Za-z_][A-Za-z0-9_]*$/) print "enumerator " p
        }
        if (e) { inenum = 0; s = substr(s, e + 1) } else s = ""
      } else if (match(s, /enum[ \t]+[A-Za-z_0-9]*[ \t]*\{/)) {
        inenum = 1; s = substr(s, RSTART + RLENGTH)
      } else s = ""
    }
    # functions: NAME( at brace depth 0 (fields and parameters are deeper)
    s = line
    for (i = 1; i <= length(s); i++) {
      ch = substr(s, i, 1)
      if (ch == "{") depth++
      else if (ch == "}") depth--
      else if (ch == "(") {
        if (depth == 0 && paren == 0) {
          pre_ = substr(s, 1, i - 1)
          if (match(pre_, /[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)) {
            f = substr(pre_, RSTART, RLENGTH); gsub(/[ \t]/, "", f)
            if (f !~ /^(__attribute__|__extension__|sizeof|format|printf|noreturn|constructor|__asm__|__declspec)$/)
              print "function " f
          }
        }
        paren++
      } else if (ch == ")") paren--
    }
  }' | sort -u)

[ "$(printf '%s\n' "$names" | grep -c '^function ')" -ge 10 ] ||
  fail "the scanner found fewer than 10 functions: it is broken"
[ "$(printf '%s\n' "$names" | grep -c '^tag ')" -ge 8 ] ||
  fail "the scanner found fewer than 8 tags: it is broken"
while read -r kind name; do
  [ -n "$name" ] || continue
  case $kind in
  macro | enumerator) [[ $name == GR_* ]] || fail "public $kind '$name' has no GR_ prefix" ;;
  *) [[ $name == gr_* ]] || fail "public $kind '$name' has no gr_ prefix" ;;
  esac
done <<<"$names"

# the compat header (deprecated, not in gpuregress.h) maps every old name to a name that exists
if [ -f include/gpuregress/compat_v1.h ]; then
  grep -q '^#include.*compat_v1' include/gpuregress/gpuregress.h && fail "gpuregress.h includes compat_v1.h"
  while read -r old new; do
    new=${new%%(*}
    printf '%s\n' "$names" | grep -qE "^[a-z]+ ${new}\$" || fail "compat_v1.h maps $old to '$new', which the API lacks"
  done < <(sed -n 's/^#define \([A-Za-z_0-9]*\)\((fn)\)\{0,1\} \([A-Za-z_0-9]*\).*/\1 \3/p' include/gpuregress/compat_v1.h |
             grep -v '^GR_COMPAT')
fi

# an API 1 source builds through compat_v1.h (names, constants, tags on request)
if [ -f include/gpuregress/compat_v1.h ]; then
  old=$(mktemp --suffix=.c)
  cat >"$old" <<'EOF2'
#include <gpuregress/gpuregress.h>
#define GR_COMPAT_V1_QUIET
#define GR_COMPAT_V1_TAGS
#include <gpuregress/compat_v1.h>
static enum run_status run(const struct variant *v, const struct gr_instance *i, void *o,
                           struct run_ctx *ctx)
{
  (void)v; (void)i; (void)o; (void)ctx;
  struct rng r;
  rng_seed(&r, 1);
  return rng_range(&r, 0, 1) ? RUN_OK : RUN_UNSUPPORTED;
}
static const struct variant vs[] = {{"reference", VARIANT_REFERENCE, 0, run, NULL, "x"}};
const struct algorithm old_alg = {.name = "old", .variants = vs, .n_variants = 1};
EOF2
  "$cc" -std=gnu11 -Wall -Werror -I include -c "$old" -o /dev/null ||
    fail "an API 1 source does not build through compat_v1.h"
  rm -f "$old"
fi

# the built-ins live by the public API: no algorithm or dataset file includes a harness header
# (nor a public one by its bare name, which only the harness's private include path finds)
declare -A private
while read -r h; do private[$(basename "$h")]=1; done < <(find harness include/gpuregress -name '*.h')
while IFS=: read -r f line inc; do
  inc=${inc#*\"}; inc=${inc%%\"*}
  [ -n "${private[$(basename "$inc")]:-}" ] && [ ! -f "$(dirname "$f")/$inc" ] &&
    fail "$f:$line includes \"$inc\", a harness header (use <gpuregress/...>)"
done < <(grep -rn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' algorithms datasets)

echo "public names: $(printf '%s\n' "$names" | grep -c .) checked"
[ "$fails" -eq 0 ] && echo "public_api: ok" || { echo "public_api: $fails failure(s)"; exit 1; }
