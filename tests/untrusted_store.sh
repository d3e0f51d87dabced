#!/usr/bin/env bash
# Databases from elsewhere, second round (issue 41: items 1, 4, 6, 9 and the corrupt runs page of
# 12): each cause a probe with its exit code and a fragment of its message, under a timeout (a
# probe that runs into it hung), plus what must not happen:
#   views     a view (over an endless recursive query) named like a table of ours is refused by
#             every command that reads the file, which stays byte-identical
#   budget    a statement that runs past its budget (GR_SQL_BUDGET) is stopped with a message,
#             the import rolled back, the history writable at once
#   escapes   SQLite's own messages (a malformed schema quoting an object's name) reach the
#             terminal escaped
#   wal       a -wal with content is never ignored (immutable=1); a write-protected WAL source is
#             imported as history reads it; an imported WAL source keeps its bytes
#   journal   a refused file (our version without a table or a column) and prune --dry-run keep
#             their journal mode and bytes; a damaged runs page says malformed
# Prints the counts per class; exit 1 if any probe failed.
#   tests/untrusted_store.sh GPUREGRESS SYNTH_DB DB_QUERY
set -u
source "$(dirname "$0")/probe.sh"
bin=$(abs "$1")
synth=$(abs "$2")
dbq=$(abs "$3")
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
classes="views budget escapes wal journal"
probe_dir=$tmp
base="$tmp/base.db"
base_db "$base"
# hostile NAME SQL: a copy of the base with SQL applied, and NAME.orig beside it
hostile() { cp "$base" "$tmp/$1.db" && sql "$tmp/$1.db" "$2" && cp "$tmp/$1.db" "$tmp/$1.orig"; }
endless="WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS id"

# ---- views: a table of ours that is a view is refused, nothing read through it -------------
hostile vcases "DROP TABLE cases; CREATE VIEW cases AS $endless, 1 AS run_id, 'ari' AS algorithm,
  'v2_shared' AS variant, 'fixed' AS kind, 'fuzz' AS phase, 0 AS case_index, 'ari n=1' AS params,
  1 AS seed, 'pass' AS verdict, NULL AS tag, NULL AS reason, 0 AS err, 0 AS seconds FROM r"
hostile vtimings "DROP TABLE timings; CREATE VIEW TIMINGS AS $endless, 2 AS run_id, 'ari' AS algorithm,
  'v2_shared' AS variant, 'fixed' AS kind, 'ari n=1' AS params, 1 AS seed, 'cold' AS l2,
  1 AS samples, 1.0 AS median_ms, 'pass' AS verdict FROM r"
"$bin" run --filter selftest/ok --cases 3 --db "$tmp/h.db" >/dev/null
cp "$tmp/h.db" "$tmp/h.orig"
probe views 2 "'cases' is a view, not a table" -- "$bin" import --db "$tmp/h.db" "$tmp/vcases.db"
same views "$tmp/vcases.db" "$tmp/vcases.orig" "an imported view"
note views "$(cmp -s "$tmp/h.db" "$tmp/h.orig" && echo 1)" "the history after a refused import"
for c in history compare "export --format json" "plot --out $tmp/pv" "ack --list" \
         "run --filter selftest/ok --cases 3" "prune --keep-runs 1" "prune --dry-run --keep-runs 1"; do
  probe views 2 "'timings' is a view, not a table" -- "$bin" $c --db "$tmp/vtimings.db"
done
probe views 2 "'timings' is a view, not a table" -- "$bin" compare --db "$tmp/h.db" --baseline "$tmp/vtimings.db"
# a virtual table; a view whose stored type says table (SQLite: a malformed schema)
hostile virtual "DROP TABLE timings; CREATE VIRTUAL TABLE timings USING fts4(x)"
probe views 2 "'timings' is a virtual table, not a table" -- "$bin" history --db "$tmp/virtual.db"
hostile lie "DROP TABLE timings; CREATE VIEW timings AS $endless FROM r; PRAGMA writable_schema = ON;
  UPDATE sqlite_master SET type = 'table' WHERE name = 'timings'"
probe views 2 "malformed database schema (timings)" -- "$bin" history --db "$tmp/lie.db"
probe views 2 "malformed database schema (timings)" -- "$bin" import --db "$tmp/h.db" "$tmp/lie.db"
probe views 2 "'timings' is a view, not a table" -- "$bin" import --db "$tmp/h.db" "$tmp/vtimings.db"
same views "$tmp/vtimings.db" "$tmp/vtimings.orig" "a database with a view"

# ---- budget: a statement past its budget is stopped, the import rolled back ----------------
hostile big "INSERT INTO cases (run_id, algorithm, variant, kind, phase, case_index, params, seed,
  verdict) WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r LIMIT 60000)
  SELECT 1, 'ari', 'v2_shared', 'fixed', 'fuzz', x, 'ari n=' || x, x, 'pass' FROM r"
cp "$tmp/h.orig" "$tmp/hb.db"
probe budget 2 "ran past its budget of 1 million steps" -- env GR_SQL_BUDGET=1 "$bin" import --db "$tmp/hb.db" "$tmp/big.db"
probe budget 0 "" -- "$bin" run --filter selftest/ok --cases 3 --db "$tmp/hb.db"
note budget "$("$dbq" "$tmp/hb.db" "SELECT count(*) FROM cases WHERE params LIKE 'ari n=%'" | grep -qx 0 && echo 1)" \
  "a stopped import left rows behind"
probe budget 0 "runs added" -- "$bin" import --db "$tmp/hb.db" "$tmp/big.db"
same budget "$tmp/big.db" "$tmp/big.orig" "an imported file"

# ---- escapes: SQLite's messages quote stored names -----------------------------------------
esc="$(printf 'x\033]0;pwned\007\033[31m')"
hostile esc "PRAGMA writable_schema = ON; INSERT INTO sqlite_master VALUES ('table', '$esc', '$esc',
  0, 'CREATE TABLE broken (')"
# escaped CLASS CODE -- command: exit CODE, 'malformed' said, no ESC or BEL byte in the output
escaped() {
  local cls=$1 code=$2 out rc
  shift 3
  out=$(cd "$tmp" && timeout -k 2 20 "$@" 2>&1 </dev/null)
  rc=$?
  note "$cls" "$([ "$rc" = "$code" ] && grep -q 'malformed' <<<"$out" && grep -qF '\x1b]0;pwned\x07' <<<"$out" &&
    ! LC_ALL=C grep -q $'[\033\007]' <<<"$out" && echo 1)" "$* -> exit $rc: $(printf '%q' "$out")"
}
for c in history compare "export --format json" "run --filter selftest/ok --cases 3" "prune --keep-runs 1"; do
  escaped escapes 2 -- "$bin" $c --db "$tmp/esc.db"
done
escaped escapes 2 -- "$bin" import --db "$tmp/h.db" "$tmp/esc.db"
escaped escapes 2 -- "$bin" compare --db "$tmp/h.db" --baseline "$tmp/esc.db"
same escapes "$tmp/esc.db" "$tmp/esc.orig" "a database with a malformed schema"

# ---- wal: a -wal with content is read or refused, never ignored; sources keep their bytes --
# walfile DIR: DIR/w.db a WAL database whose last run (host 'in-the-wal') is only in DIR/w.db-wal
walfile() {
  mkdir -p "$1" && cp "$base" "$1/w.db" && python3 - "$1/w.db" <<'EOF'
import shutil, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA wal_autocheckpoint = 0")
db.execute("UPDATE runs SET host = 'in-the-wal' WHERE id = (SELECT max(id) FROM runs)")
for ext in ("", "-wal"):  # a copy taken while the connection is open: the -wal not folded
    shutil.copy(sys.argv[1] + ext, sys.argv[1] + ".copy" + ext)
db.close()
for ext in ("", "-wal"):
    shutil.move(sys.argv[1] + ".copy" + ext, sys.argv[1] + ext)
EOF
}
walfile "$tmp/ws"
cp "$tmp/ws/w.db" "$tmp/ws.orig"
cp "$tmp/ws/w.db-wal" "$tmp/ws.orig-wal"
cp "$tmp/h.orig" "$tmp/hw.db"
probe wal 0 "runs added" -- "$bin" import --db "$tmp/hw.db" "$tmp/ws/w.db"
note wal "$(cmp -s "$tmp/ws/w.db" "$tmp/ws.orig" && cmp -s "$tmp/ws/w.db-wal" "$tmp/ws.orig-wal" && echo 1)" \
  "an imported WAL source changed (its -wal checkpointed into it)"
note wal "$("$dbq" "$tmp/hw.db" "SELECT count(*) FROM runs WHERE host = 'in-the-wal'" | grep -qx 1 && echo 1)" \
  "the run in the source's -wal was not imported"
# as another user: write-protected files in write-protected folders, no -shm can be made
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$tmp"
  other=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  mkdir -p "$tmp/mine" && cp "$tmp/h.orig" "$tmp/mine/h.db" && chown -R 65534 "$tmp/mine"
  walfile "$tmp/wp"
  chmod 444 "$tmp/wp/w.db" "$tmp/wp/w.db-wal" && chmod 555 "$tmp/wp"
  for c in history compare "export --format json"; do
    probe wal 2 "write-ahead log '$tmp/wp/w.db-wal' holds" -- "${other[@]}" "$bin" $c --db "$tmp/wp/w.db"
  done
  probe wal 2 "write-ahead log '$tmp/wp/w.db-wal' holds" -- "${other[@]}" "$bin" import --db "$tmp/mine/h.db" "$tmp/wp/w.db"
  probe wal 2 "write-ahead log '$tmp/wp/w.db-wal' holds" -- "${other[@]}" "$bin" compare --db "$tmp/mine/h.db" --baseline "$tmp/wp/w.db"
  # a WAL database without content in its -wal: read and imported as it is
  mkdir -p "$tmp/wq" && cp "$base" "$tmp/wq/w.db" && sql "$tmp/wq/w.db" "PRAGMA journal_mode = WAL"
  cp "$tmp/wq/w.db" "$tmp/wq.orig"
  chmod 444 "$tmp/wq/w.db" && chmod 555 "$tmp/wq"
  probe wal 0 "" -- "${other[@]}" "$bin" history --db "$tmp/wq/w.db"
  probe wal 0 "runs added" -- "${other[@]}" "$bin" import --db "$tmp/mine/h.db" "$tmp/wq/w.db"
  same wal "$tmp/wq/w.db" "$tmp/wq.orig" "a write-protected WAL source"
  chmod 755 "$tmp/wp" "$tmp/wq"
fi

# ---- journal: refused files and dry runs keep their journal mode ---------------------------
hostile notable "DROP TABLE acks"
schema=$("$bin" --version | sed -n 's/.*database schema \([0-9]*\).*/\1/p') # the binary's own
hostile nocolumn "ALTER TABLE timings DROP COLUMN pct_peak"
for c in "run --filter selftest/ok --cases 3" "prune --keep-runs 1" "prune --dry-run --keep-runs 1" \
         "ack --list" history; do
  probe journal 2 "schema version $schema but no table 'acks'" -- "$bin" $c --db "$tmp/notable.db"
done
same journal "$tmp/notable.db" "$tmp/notable.orig" "a database of our version without a table"
probe journal 2 "no column named pct_peak" -- "$bin" run --filter selftest/ok --cases 3 --db "$tmp/nocolumn.db"
same journal "$tmp/nocolumn.db" "$tmp/nocolumn.orig" "a database of our version without a column"
cp "$base" "$tmp/dry.db" && cp "$base" "$tmp/dry.orig"
probe journal 0 "prune (dry run): 1 old runs: would drop" -- "$bin" prune --dry-run --keep-runs 1 --db "$tmp/dry.db"
same journal "$tmp/dry.db" "$tmp/dry.orig" "a database after prune --dry-run"
probe journal 0 "prune: 1 old runs: dropped" -- "$bin" prune --keep-runs 1 --db "$tmp/dry.db"
# a damaged root page of runs: malformed, not a history without runs
cp "$base" "$tmp/rootc.db"
root=$("$dbq" "$tmp/rootc.db" "SELECT rootpage FROM sqlite_master WHERE name = 'runs'")
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$tmp/rootc.db" bs=1 seek=$(((root - 1) * 4096 + 3)) conv=notrunc status=none
for c in compare "export --format json" "plot --out $tmp/pr"; do
  probe journal 2 "malformed" -- "$bin" $c --db "$tmp/rootc.db"
done
probe journal 2 "malformed" -- "$bin" compare --db "$tmp/h.db" --baseline "$tmp/rootc.db"

probe_summary untrusted_store
