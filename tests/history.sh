#!/usr/bin/env bash
# History over many nights (issue 13) on synthetic databases (tests/synth_nights.sh): a planted
# 10% step at night 20 of 30 is found at night 20 with its commit range (c019..c020) and nothing
# else is (the flat control benchmarks, and a flat 30-night history); the night's verdict
# (history --check) fails on the night the step is confirmed and not on the others; per-algorithm
# minimum effect; --since; importing the same database twice adds nothing; prune keeps every
# run, outcome, failing case, reproducer and timing summary (and the change point).
#   tests/history.sh GPUREGRESS SYNTH_DB DB_QUERY
set -u
bin=$1
synth=$2
dbq=$3
here=$(dirname "$0")
source "$here/expect.sh"

for c in history import prune; do
  expect 0 "usage: gpuregress $c" -- "$bin" "$c" --help
done

db="$tmp/step.db"
flat="$tmp/flat.db"
"$here/synth_nights.sh" "$synth" "$db" step || { echo "FAIL: synth_nights"; exit 1; }
"$here/synth_nights.sh" "$synth" "$flat" flat || { echo "FAIL: synth_nights"; exit 1; }

# the planted step: 4 change points (the 4 sizes of sortlike/v2_warp), all at night 20
out=$("$bin" history --db "$db" 2>&1)
rc=$?
check "history exit 0 (got $rc)" [ "$rc" = 0 ]
check "4 change points, all slower" grep -qF "4 change points in 34 benchmarks: 4 slower, 0 faster" <<<"$out"
check "all of sortlike/v2_warp, +9% or more, at night 20, commits c019..c020" \
  [ "$(grep -cE '^sortlike +v2_warp +n=[0-9]+ dist=uniform +cold +\+(9|10|11)\.[0-9]%.* 2026-10-19 \(run 19\) -> 2026-10-20 \(run 20\) +c019\.\.c020 ' <<<"$out")" = 4 ]
check "nothing on the control benchmarks" [ "$(grep -cE '^(ari|sortlike) ' <<<"$out")" = 4 ]
[ "$fails" = 0 ] || echo "$out"
expect 0 "0 change points in 34 benchmarks" -- "$bin" history --db "$flat"
expect 0 "0 change points in 4 benchmarks" -- "$bin" history --db "$db" sortlike/cub
expect 0 "4 change points in 4 benchmarks" -- "$bin" history --db "$db" sortlike/v2_warp
# per algorithm, like compare: a 15% minimum effect for sortlike hides it
expect 0 "0 change points in 34" -- "$bin" history --db "$db" --min-effect 0.05,sortlike=0.15
# --since: the nights from 2026-10-15 still hold 5 before the step; from 2026-10-18, 2 (too few)
expect 0 "4 change points in 34" -- "$bin" history --db "$db" --since 2026-10-15
expect 0 "0 change points in 34" -- "$bin" history --db "$db" --since 2026-10-18

# the night's verdict: confirmed on night 22 (3 nights after), new only then
expect 0 "result: ok" -- "$bin" history --db "$db" --check --run 21
expect 1 "new slower on run 22: 4" -- "$bin" history --db "$db" --check --run 22
expect 0 "new slower on run 23: 0" -- "$bin" history --db "$db" --check --run 23
expect 0 "result: ok" -- "$bin" history --db "$db" --check
expect 0 "result: ok" -- "$bin" history --db "$flat" --check

# usage errors
expect 2 "bad date" -- "$bin" history --db "$db" --since 10/20/2026
expect 2 "no run 99" -- "$bin" history --db "$db" --run 99
expect 2 "bad selection" -- "$bin" history --db "$db" sortlike/
expect 2 "no database" -- "$bin" history --db "$tmp/none.db"
expect 2 "say what to keep" -- "$bin" prune --db "$db"
expect 2 "bad value 'x' for --keep-days" -- "$bin" prune --db "$db" --keep-days x
expect 2 "missing the database" -- "$bin" import --db "$db"
expect 2 "is not a database" -- "$bin" import --db "$tmp/m.db" "$tmp/step.db-nope" "$here/history.sh"
expect 2 "cannot read" -- "$bin" import --db "$tmp/m.db" "$tmp/step.db-nope"
expect 2 "is the database itself" -- "$bin" import --db "$db" "$db"

# import: a second runner's history merges; the same file twice adds nothing
counts() { "$dbq" "$1" "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM cases),
  (SELECT count(*) FROM outcomes), (SELECT count(*) FROM timings), (SELECT count(*) FROM samples)"; }
merged="$tmp/merged.db"
expect 0 "30 runs added (0 already here)" -- "$bin" import --db "$merged" "$db"
first=$(counts "$merged")
check "import copies every row (got $first)" [ "$first" = "$(counts "$db")" ]
expect 0 "0 runs added (30 already here), 0 cases, 0 outcomes, 0 timings, 0 samples" -- \
  "$bin" import --db "$merged" "$db"
check "import twice adds nothing" [ "$(counts "$merged")" = "$first" ]
expect 0 "4 change points in 34 benchmarks" -- "$bin" history --db "$merged"
# the runs keep their identity: a baseline exported from the merged history is known to the first
"$bin" export --db "$merged" --run 5 --format db --out "$tmp/night5.db" >/dev/null
expect 0 "0 runs added (1 already here)" -- "$bin" import --db "$db" "$tmp/night5.db"
# another runner (another GPU model) into the same history: its benchmarks are their own series
"$synth" "$tmp/a100.db" --gpu "Synthetic GPU 40GB" --commit c030 --date 2026-10-30 >/dev/null
expect 0 "1 runs added" -- "$bin" import --db "$merged" "$tmp/a100.db"
expect 0 "4 change points in 68 benchmarks" -- "$bin" history --db "$merged"

# a database written before runs had an identity (schema 2): its runs get one from what they
# recorded, the same before and after the file is migrated
legacy="$tmp/legacy.db"
cp "$tmp/a100.db" "$legacy"
python3 - "$legacy" <<'PY' || { echo "FAIL: making a schema-2 database"; fails=$((fails + 1)); }
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("DROP TABLE IF EXISTS coverage; DROP TABLE IF EXISTS sanitizer;"
                 "DROP TRIGGER runs_uid; DROP INDEX runs_by_uid; DROP INDEX runs_by_start;"
                 "ALTER TABLE runs DROP COLUMN uid; ALTER TABLE runs DROP COLUMN pid;"
                 "ALTER TABLE runs DROP COLUMN checkout_commit;"
                 "ALTER TABLE runs DROP COLUMN allow_no_gpu; ALTER TABLE timings DROP COLUMN item_unit;"
                 "ALTER TABLE timings DROP COLUMN peak_items_per_s;"
                 "ALTER TABLE timings DROP COLUMN pct_peak; DROP TABLE IF EXISTS accuracy;"
                 "DROP TABLE IF EXISTS night_parts; DROP INDEX IF EXISTS runs_by_night;"
                 "ALTER TABLE runs DROP COLUMN night; ALTER TABLE runs DROP COLUMN shard_index;"
                 "ALTER TABLE runs DROP COLUMN shard_count; ALTER TABLE runs DROP COLUMN gpus;"
                 "ALTER TABLE timings DROP COLUMN gpu_name; ALTER TABLE timings DROP COLUMN gpu_uuid;"
                 "ALTER TABLE timings DROP COLUMN host;"
                 "DROP TABLE IF EXISTS open_regressions; DROP TABLE IF EXISTS acks;"
                 "DROP TABLE IF EXISTS first_bad;"
                 + "".join("ALTER TABLE runs DROP COLUMN %s;" % c for c in (
                     "verdict", "verdict_exit", "verdict_summary", "nightly_exit",
                     "driver_release", "sm_clock_now_mhz", "mem_clock_now_mhz", "gpu_temp_c",
                     "gr_version", "gr_commit", "runner")) +
                 "PRAGMA user_version = 2;")
PY
expect 0 "1 runs added (0 already here)" -- "$bin" import --db "$tmp/l.db" "$legacy"
expect 0 "0 runs added (1 already here)" -- "$bin" import --db "$tmp/l.db" "$legacy"
expect 0 "prune: 0 old runs" -- "$bin" prune --db "$legacy" --before 2000-01-01 # migrates it
check "the legacy database is migrated" [ "$("$dbq" "$legacy" 'PRAGMA user_version')" -ge 3 ]
expect 0 "0 runs added (1 already here)" -- "$bin" import --db "$tmp/l.db" "$legacy"

# prune: the 20 oldest nights lose their passing cases and raw samples, nothing else
keep() { "$dbq" "$1" "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM outcomes),
  (SELECT count(*) FROM cases WHERE verdict NOT IN ('pass', 'skip')),
  (SELECT count(*) FROM outcomes WHERE reproducer IS NOT NULL),
  (SELECT group_concat(reproducer, '|') FROM outcomes), (SELECT count(*) FROM timings)"; }
before=$(keep "$db")
check "the history holds failures and reproducers" \
  [ "$("$dbq" "$db" "SELECT count(*) FROM cases WHERE verdict = 'fail' AND run_id IN (3, 25)")" -ge 2 ]
all=$(counts "$db")
expect 0 "prune (dry run): 20 old runs" -- "$bin" prune --db "$db" --keep-runs 10 --dry-run
check "dry run changes nothing" [ "$(counts "$db")" = "$all" ]
expect 0 "prune: 20 old runs: dropped" -- "$bin" prune --db "$db" --keep-runs 10
check "prune keeps every run, outcome, failing case, reproducer and timing summary" \
  [ "$(keep "$db")" = "$before" ]
check "prune drops the old passing cases" \
  [ "$("$dbq" "$db" "SELECT count(*) FROM cases WHERE run_id <= 20 AND verdict = 'pass'")" = 0 ]
check "prune keeps the new passing cases" \
  [ "$("$dbq" "$db" "SELECT count(*) FROM cases WHERE run_id > 20 AND verdict = 'pass'")" -gt 0 ]
check "prune drops the old samples" [ "$("$dbq" "$db" "SELECT count(*) FROM samples s JOIN timings t ON s.timing_id = t.id WHERE t.run_id <= 20")" = 0 ]
check "prune keeps the new samples" [ "$("$dbq" "$db" "SELECT count(*) FROM samples s JOIN timings t ON s.timing_id = t.id WHERE t.run_id > 20")" -gt 0 ]
expect 0 "4 change points in 34 benchmarks" -- "$bin" history --db "$db"
expect 0 "prune: 0 old runs" -- "$bin" prune --db "$db" --before 2026-10-01

[ "$fails" = 0 ] && echo "history: all checks passed"
exit $((fails > 0))
