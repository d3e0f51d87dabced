#!/usr/bin/env bash
# Outputs, option values and dates under hostile input (issue 41, items 2, 5, 8, 10 and 12): each
# probe is a command with the exit code and a fragment of the message it must give, under a
# timeout (a probe that runs into it hung), plus what must not happen:
#   outputs   plot's PNG/SVG never through a link planted under --out (gnuplot writes in a private
#             folder, the files are moved into place); export --format db never follows a link
#             and of two exports racing to one name the second says 'exists'; a valid
#             250-character output name gets a temporary name that fits NAME_MAX
#   options   an option's value never starts with '--' unless written --db=--x (every command,
#             --status-file too): exit 2, nothing created
#   dates     prune --before and history --since compare instants: a run started at exactly the
#             instant is kept by prune and shown by history, whatever form the instant is written
#   small     a sparse PGM too large for sgm refused from its header, naming it; plot --scripts
#             with a FIFO never hangs; prune --before '' names the option; history of an unknown
#             algorithm is exit 2; a very long GR_DATA is said to be too long, never cut; an
#             unusable TMPDIR is exit 3 before any variant runs; import on SIGTERM exits 130
# Prints the counts per class; exit 1 if any probe failed.
#   tests/untrusted_outputs.sh GPUREGRESS SYNTH_DB DB_QUERY
set -u
source "$(dirname "$0")/probe.sh"
bin=$(abs "$1")
synth=$(abs "$2")
dbq=$(abs "$3")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
classes="outputs options dates small"
probe_dir=$tmp
cd "$tmp" || exit 1

base="$tmp/base.db"
"$synth" "$base" --cases 2 --date 2026-11-12T01:00:00Z >/dev/null
"$synth" "$base" --cases 2 --date 2026-11-13T00:00:00Z >/dev/null
"$dbq" -w "$base" "PRAGMA journal_mode = DELETE" >/dev/null

# ---- outputs ---------------------------------------------------------------------------------
# links planted where plot writes its PNG and SVG (gnuplot's `set output` follows them)
if command -v gnuplot >/dev/null; then
  mkdir -p "$tmp/out/plots"
  echo keep >"$tmp/victim"
  for f in ari_sizes.png ari_sizes.svg catch.png; do ln -s "$tmp/victim" "$tmp/out/plots/$f"; done
  probe outputs 0 "plot: run 2" -- "$bin" plot --db "$base" --out "$tmp/out"
  note outputs "$([ "$(cat "$tmp/victim")" = keep ] && [ -f "$tmp/out/plots/ari_sizes.png" ] &&
    [ ! -L "$tmp/out/plots/ari_sizes.png" ] && [ ! -L "$tmp/out/plots/ari_sizes.svg" ] && echo 1)" \
    "plot wrote a PNG or SVG through a planted link"
  note outputs "$([ -z "$(find "$tmp/out" -name '.gr-tmp.*')" ] && echo 1)" "plot left its private folder"
fi
# export --format db: a dangling link is something there, never followed
ln -s "$tmp/made-by-link.db" "$tmp/dangling.db"
probe outputs 2 "'$tmp/dangling.db' exists" -- "$bin" export --format db --db "$base" --out "$tmp/dangling.db"
note outputs "$([ ! -e "$tmp/made-by-link.db" ] && echo 1)" "export --format db created the target of a dangling link"
probe outputs 0 "" -- "$bin" export --format db --db "$base" --out "$tmp/one.db"
probe outputs 2 "'$tmp/one.db' exists" -- "$bin" export --format db --db "$base" --out "$tmp/one.db"
# two exports racing to one name: one writes it, the other is told it exists (not 'not found')
for i in 1 2 3; do
  "$bin" export --format db --db "$base" --out "$tmp/race$i.db" >"$tmp/ra" 2>&1 &
  "$bin" export --format db --db "$base" --out "$tmp/race$i.db" >"$tmp/rb" 2>&1
  rb=$?
  wait $!
  ra=$?
  note outputs "$([ "$((ra + rb))" = 2 ] && grep -q "exists" "$tmp/ra" "$tmp/rb" &&
    ! grep -q "not found" "$tmp/ra" "$tmp/rb" && echo 1)" \
    "two exports to one name: exit $ra and $rb: $(cat "$tmp/ra" "$tmp/rb")"
done
note outputs "$([ -z "$(find "$tmp" -maxdepth 1 -name '.gr-tmp.*')" ] && echo 1)" "export left its private folder"
# a valid 250-character name: its temporary name must fit NAME_MAX too
long=$(printf 'a%.0s' $(seq 1 250))
probe outputs 0 "" -- "$bin" list --status-file "$tmp/$long"
note outputs "$(grep -q '^exit=0' "$tmp/$long" 2>/dev/null && echo 1)" "no status file of a 250-character name"
probe outputs 0 "" -- "$bin" export --format json --db "$base" --out "$tmp/j$long"
note outputs "$([ -s "$tmp/j$long" ] && echo 1)" "no export of a 250-character name"

# ---- options: a value never starts with '--' -------------------------------------------------
probe options 2 "option '--db' needs a value, not the option '--help'" -- "$bin" run --filter selftest/ok --cases 1 --db --help
probe options 2 "option '--out' needs a value, not the option '--quiet'" -- "$bin" export --format json --db "$base" --out --quiet
probe options 2 "option '--db' needs a value, not the option '--quick'" -- "$bin" bench --db --quick
probe options 2 "option '-d' needs a value, not the option '--all'" -- "$bin" history -d --all
probe options 2 "--status-file needs a file name" -- "$bin" list --status-file --help
probe options 2 "--status-file needs a file name" -- "$bin" run --filter selftest/ok --cases 1 --db "$tmp/s.db" --status-file --quiet
note options "$([ ! -e "$tmp/--help" ] && [ ! -e "$tmp/--quiet" ] && [ ! -e "$tmp/--quick" ] && [ ! -e "$tmp/s.db" ] &&
  echo 1)" "an option given as a value became a file: $(ls "$tmp" | grep -- '^--')"
# written with '=' it is the value
probe options 2 "no database '--x'" -- "$bin" history --db=--x
probe options 0 "" -- "$bin" list --status-file=--st
note options "$([ -f "$tmp/--st" ] && echo 1)" "--status-file=--st wrote no file named '--st'"

# ---- dates: instants, whatever form ---------------------------------------------------------
# run 1 started at 2026-11-12T01:00:00Z exactly: 'before' that instant it is not, 'since' it is
for d in 2026-11-12T01:00Z 2026-11-12T01:00 2026-11-12T01:00:00Z 2026-11-12T01:00:00; do
  probe dates 0 "0 old runs" -- "$bin" prune --before "$d" --dry-run --db "$base"
  probe dates 0 "history: 2 nights" -- "$bin" history --since "$d" --db "$base"
done
probe dates 0 "1 old runs" -- "$bin" prune --before 2026-11-12T01:01Z --dry-run --db "$base"
probe dates 0 "history: 1 nights" -- "$bin" history --since 2026-11-12T01:01Z --db "$base"
probe dates 0 "runs started before 2026-11-12T01:00:00Z" -- "$bin" prune --before 2026-11-12T01:00Z --dry-run --db "$base"
probe dates 2 "bad date '' for --before" -- "$bin" prune --before '' --db "$base"
probe dates 2 "bad date '' for --since" -- "$bin" history --since '' --db "$base"

# ---- small items ----------------------------------------------------------------------------
# a sparse PGM whose header agrees with its size but is beyond sgm's sizes: refused from the
# header, naming the file, before 1.5 GB are hashed
printf 'P5\n38730 38730\n255\n' >"$tmp/huge.pgm"
truncate -s $((38730 * 38730 + 19)) "$tmp/huge.pgm"
t0=$(date +%s%N)
probe small 2 "'huge.pgm' (left=) is 38730 x 38730" -- "$bin" repro 'sgm left=huge.pgm right=huge.pgm' --variant reference
ms=$((($(date +%s%N) - t0) / 1000000))
note small "$([ "$ms" -lt 2000 ] && echo 1)" "the huge pair took $ms ms (hashed before its header was judged?)"
# a FIFO as a gnuplot script: refused at once, never waited on
mkdir -p "$tmp/sc"
mkfifo "$tmp/sc/plot_sizes.gp"
probe small 2 "gnuplot script '$tmp/sc/plot_sizes.gp': not a regular file" -- "$bin" plot --db "$base" --out "$tmp/out2" --scripts "$tmp/sc"
# a filter naming no algorithm of the binary or the database checks nothing: exit 2
probe small 2 "unknown algorithm 'bogus_algorithm'" -- "$bin" history bogus_algorithm --db "$base"
probe small 2 "unknown algorithm 'bogus'" -- "$bin" history bogus/v1 --check --db "$base"
probe small 0 "history: 2 nights" -- "$bin" history sortlike --db "$base"
# a dataset folder too long for a path: said so, never a path cut short
probe small 2 "the dataset folder (GR_DATA, else XDG_CACHE_HOME or HOME) is too long" -- \
  env GR_DATA="/$(printf 'd%.0s' $(seq 1 5000))" "$bin" repro 'sgm left=data:l.pgm right=data:r.pgm' --variant reference
# an unusable TMPDIR is the environment's fault (exit 3, naming it), not a crash of a fixed variant
probe small 3 "TMPDIR '/dev/null' cannot take temporary files" -- \
  env TMPDIR=/dev/null "$bin" run --filter kmedoids/mpi_cpu --cases 2 --db "$tmp/k.db"
probe small 3 "TMPDIR '/dev/null' cannot take temporary files" -- \
  env TMPDIR=/dev/null "$bin" repro 'kmedoids n=1 k=1 sig_min=1 sig_max=1 classes=1 alpha_milli=1 iters=0 ranks=1 dist=classes seed=1' --variant mpi_cpu
note small "$([ ! -e "$tmp/k.db" ] && echo 1)" "a run refused for its TMPDIR created its database"
# import on SIGTERM: 130 as every command (nothing of the file imported), or done before it
big="$tmp/big.db"
"$synth" "$big" --cases 40000 >/dev/null
"$bin" import --db "$tmp/into.db" "$big" >"$tmp/imp" 2>&1 &
pid=$!
# the signal goes once the handlers are in: they are set before the database is opened (a TERM
# before them would be the shell's default death, 143, on a slow start)
for _ in $(seq 1 200); do
  [ -e "$tmp/into.db" ] && break
  sleep 0.05
done
sleep 0.2
kill -TERM $pid
wait $pid
rc=$?
runs=$("$dbq" "$tmp/into.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
note small "$({ [ "$rc" = 130 ] && grep -q "interrupted" "$tmp/imp" && [ "$runs" = 0 ]; } ||
  { [ "$rc" = 0 ] && [ "$runs" = 1 ]; } && echo 1)" "import on SIGTERM: exit $rc, $runs runs: $(cat "$tmp/imp")"

probe_summary untrusted_outputs
