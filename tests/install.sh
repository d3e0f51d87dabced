#!/usr/bin/env bash
# The installed tree works on its own: `cmake --install BUILD --prefix P` (cmake/install.cmake),
# then P/bin/gpuregress (SQLite linked in, no libsqlite3 in its ldd) lists the algorithms with Google Benchmark's library found in
# P/lib/gpuregress (RPATH), `plot` finds its template and gnuplot scripts under P/share/gpuregress
# with no build folder or source tree in reach, the man page renders and has an entry for every
# command, and the generated bash completion completes commands, variants and options.
#   tests/install.sh BUILD_DIR SYNTH_DB
set -u
build=$1
synth=$2
source "$(dirname "$0")/expect.sh"

p="$tmp/prefix"
if ! cmake --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1; then
  echo "FAIL: cmake --install:"
  cat "$tmp/install.log"
  exit 1
fi
for f in bin/gpuregress bin/kmedoids_mpi share/gpuregress/dashboard.html share/gpuregress/history.html \
  share/gpuregress/scripts/plot_sizes.gp share/man/man1/gpuregress.1 \
  share/bash-completion/completions/gpuregress; do
  check "installed $f" [ -s "$p/$f" ]
done
check "Google Benchmark's library in lib/gpuregress" compgen -G "$p/lib/gpuregress/libbenchmark*" >/dev/null

bin="$p/bin/gpuregress"
cd "$tmp" || exit 1 # nothing of the source tree or the build folder in reach
expect 0 "v4_packed_dpx" -- env LD_LIBRARY_PATH= "$bin" list sgm
check "libbenchmark resolved from the prefix" grep -q "$p/bin/../lib/gpuregress/libbenchmark" <(ldd "$bin")
# SQLite is inside the binary (cmake/gr_sqlite.cmake): a copy on a GPU machine needs no libsqlite3
check "installed gpuregress links no shared libsqlite3" [ -z "$(ldd "$bin" | grep -i sqlite)" ]
check "installed kmedoids_mpi finds its libraries" [ -z "$(ldd "$p/bin/kmedoids_mpi" | grep "not found")" ]

# plot from the installed tree: the template and the scripts under share/gpuregress
"$synth" "$tmp/s.db" --seed 5 >/dev/null
"$bin" plot --db "$tmp/s.db" --out "$tmp/out" >"$tmp/plot.log" 2>&1
rc=$?
check "plot from the installed tree: exit $rc: $(head -3 "$tmp/plot.log")" [ "$rc" = 0 ] || [ "$rc" = 3 ]
check "installed dashboard written" [ -s "$tmp/out/dashboard/index.html" ]
if command -v gnuplot >/dev/null; then
  check "installed gnuplot scripts used" [ -s "$tmp/out/plots/ari_sizes.png" ]
fi

# the man page renders without warnings and names every command of the table
if command -v groff >/dev/null; then
  check "man page renders cleanly" [ -z "$(groff -man -Tutf8 -ww -z "$p/share/man/man1/gpuregress.1" 2>&1)" ]
fi
ver=$("$bin" --version | sed -n 's/^gpuregress \([0-9][0-9.]*\).*/\1/p')
check "man page title names the binary's version '$ver'" grep -q "^\.TH GPUREGRESS 1 .*\"gpuregress $ver\"" "$p/share/man/man1/gpuregress.1"
for c in $("$bin" --help | sed -n 's/^  \([a-z]\+\) .*/\1/p'); do
  check "man page entry for '$c'" grep -q "^\.B $c\b" "$p/share/man/man1/gpuregress.1"
done

# bash completion: commands, variants after --filter, options from the command's --help
complete_words() { # complete_words WORD... (the last one is being completed)
  COMP_WORDS=("$bin" "$@")
  COMP_CWORD=$#
  COMPREPLY=()
  _gpuregress
  echo "${COMPREPLY[*]}"
}
source "$p/share/bash-completion/completions/gpuregress"
check "completes commands" [ "$(complete_words re)" = "repro" ]
check "completes variants" [ "$(complete_words run --filter sgm/v4)" = "sgm/v4_packed_dpx" ]
check "completes options" [ "$(complete_words repro x --rep)" = "--repeat" ]
check "completes repro's variants" [ "$(complete_words repro "'kmedoids n=3" --variant v1)" = "v1_racy_score" ]

[ "$fails" = 0 ] && echo "ok" || echo "$fails failure(s)"
exit $((fails > 0))
