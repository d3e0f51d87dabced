#!/usr/bin/env bash
# Other runners' databases and files are untrusted input (issue 24): every probe of the issue
# and more of the same kind, each a command with the exit code and a fragment of the message it
# must give, under a timeout (a probe that runs into it hung), plus what must not happen:
#   names     a stored name reaches gnuplot (command execution), a file name (writing outside
#             --out), a terminal (escape sequences), a shell (the reproducer's quoting)
#   outputs   the status file and other outputs: never onto a device, a FIFO, a directory; a
#             failed write is exit 2
#   numbers   dates and counts parsed whole (real calendar dates, no blank or sign)
#   store     a database this command does not own stays byte-identical (foreign, newer schema,
#             negative schema version, empty file); read commands work on a read-only mount and
#             on a write-protected file (as another user); a damaged page is exit 2
#   files     data files: FIFOs refused at once, headers before hashes, every message names the
#             file; the avos-csr shape line
#   import    every row or the file refused (odd ids renumbered, orphans, wrong types, names)
# Prints the counts per class; exit 1 if any probe failed.
#   tests/untrusted.sh GPUREGRESS SYNTH_DB DB_QUERY NIGHTLY
set -u
source "$(dirname "$0")/probe.sh"
bin=$(abs "$1")
synth=$(abs "$2")
dbq=$(abs "$3")
nightly=$(abs "$4")
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
classes="names outputs numbers store files import"
probe_dir=$tmp # relative data-file names in the probes are files of $tmp

base="$tmp/base.db"
base_db "$base"
# hostile DB NAME SQL: a copy of the base with SQL applied
hostile() { cp "$base" "$tmp/$1.db" && sql "$tmp/$1.db" "$2"; }

# ---- names: data everywhere they go -------------------------------------------------------
cd "$tmp" || exit 1
inj="x'; system(\"touch PWNED\"); y='"
hostile var "UPDATE timings SET variant = '${inj//\'/\'\'}' WHERE variant = 'v2_shared'"
hostile kind "UPDATE timings SET kind = 'f''; system(\"touch PWNED\"); #' WHERE variant = 'v3_global'"
hostile alg "UPDATE timings SET algorithm = '${inj//\'/\'\'}' WHERE algorithm = 'ari';
             UPDATE outcomes SET algorithm = '${inj//\'/\'\'}' WHERE algorithm = 'ari'"
for h in var kind alg; do
  probe names 0 "plot: run 2" -- "$bin" plot --db "$tmp/$h.db" --out "$tmp/out-$h"
  note names "$([ ! -e "$tmp/PWNED" ] && [ ! -e "$tmp/out-$h/PWNED" ] && echo 1)" \
    "plot of a $h name with a gnuplot command ran it"
done
mkdir -p "$tmp/a/b"
hostile trav "UPDATE timings SET algorithm = '../../trav' WHERE algorithm = 'ari';
              UPDATE outcomes SET algorithm = '../../trav' WHERE algorithm = 'ari'"
probe names 0 "plot: run 2" -- "$bin" plot --db "$tmp/trav.db" --out "$tmp/a/b/out"
note names "$([ -z "$(find "$tmp" -name '*trav*' ! -path "$tmp/a/b/out/*" ! -name trav.db)" ] && echo 1)" \
  "an algorithm '../../trav' wrote outside --out: $(find "$tmp" -name '*trav*' ! -name trav.db)"
hostile slash "UPDATE timings SET algorithm = 'a/b' WHERE algorithm = 'ari'"
probe names 0 "plot: run 2" -- "$bin" plot --db "$tmp/slash.db" --out "$tmp/out-slash"
probe names 0 "plot: run 2" -- "$bin" plot --db "$tmp/slash.db" --out "$tmp/out-slash"
hostile dots "UPDATE timings SET algorithm = '..' WHERE algorithm = 'ari'"
probe names 0 "plot: run 2" -- "$bin" plot --db "$tmp/dots.db" --out "$tmp/out-dots"
note names "$([ -z "$(find "$tmp/out-dots" -name '.._*')" ] && [ ! -e "$tmp/_sizes.dat" ] && echo 1)" \
  "an algorithm '..' gave a file name from its text"
long=$(printf 'v%.0s' $(seq 1 3000))
hostile long "UPDATE timings SET variant = '$long' WHERE variant = 'v2_shared'"
probe names 0 "plot: run 2" -- "$bin" plot --db "$tmp/long.db" --out "$tmp/out-long"
# quotes and odd starts in the run's own texts (labels in the data files)
hostile commit "UPDATE runs SET git_commit = 'a\"b''c\\d', started_at = 'x' WHERE id = 1"
probe names 0 "plot: run 2" -- "$bin" plot --db "$tmp/commit.db" --out "$tmp/out-commit"
# control characters: shown escaped on a terminal (\x1b), never raw
hostile esc "UPDATE timings SET variant = char(27) || '[31mRED' || char(7) WHERE variant = 'v2_shared';
             UPDATE outcomes SET variant = char(27) || ']0;title' || char(7) WHERE variant = 'v2_shared';
             UPDATE runs SET host = 'h' || char(10) || 'result: ok', gpu_name = char(155) || 'g'"
for c in "history --all" compare "export --format csv" "export --format json" "export --format junit"; do
  out=$(cd "$tmp" && $bin $c --db "$tmp/esc.db" 2>&1)
  note names "$(! grep -q $'\e\|\a' <<<"$out" && ! LC_ALL=C grep -q $'\x9b' <<<"$out" && echo 1)" \
    "$c printed a raw control character"
done
probe names 0 '\x1b[31mRED\x07' -- "$bin" history --all --db "$tmp/esc.db"
# newline and quote in a stored reproducer-like text, a name with a blank
hostile nl "UPDATE outcomes SET reason = 'line1' || char(10) || 'line2', variant = 'has blank' WHERE variant = 'v2_shared'"
out=$("$bin" export --format json --db "$tmp/nl.db" 2>&1)
note names "$(grep -qF '"line1\\x0aline2"' <<<"$out" && echo 1)" "a newline in a stored reason was not escaped"
# the reproducer a run prints is one shell word whatever the case text holds
probe names 1 "gpuregress repro 'selftest n=" -- "$bin" run --filter selftest/wrong --cases 50 --seed 3 --db "$tmp/r.db"

# ---- outputs: the status file and other outputs ----------------------------------------------
mkdir -p "$tmp/adir"
mkfifo "$tmp/fifo"
probe outputs 2 "is a directory" -- "$bin" list --status-file "$tmp/adir"
probe outputs 2 "no folder" -- "$bin" list --status-file "$tmp/nowhere/s"
probe outputs 2 "is a FIFO" -- "$bin" list --status-file "$tmp/fifo"
probe outputs 2 "is a character device" -- "$bin" list --status-file /dev/null
note outputs "$([ -c /dev/null ] && echo 1)" "/dev/null is no longer a character device"
if [ "$(id -u)" = 0 ]; then # twins of /dev/null and /dev/full, made with mknod
  mknod "$tmp/null" c 1 3 && mknod "$tmp/full" c 1 7
  probe outputs 2 "is a character device" -- "$bin" list --status-file "$tmp/null"
  probe outputs 2 "is a character device" -- "$bin" run --filter selftest/ok --cases 1 --db "$tmp/s.db" --status-file "$tmp/full"
  note outputs "$([ -c "$tmp/null" ] && [ -c "$tmp/full" ] && echo 1)" "a device node became a file"
fi
# a full disk: the status file cannot be written (a file size limit, SIGXFSZ ignored)
out=$(cd "$tmp" && (trap '' XFSZ; ulimit -f 0; exec "$bin" list --status-file "$tmp/st-full") 2>&1)
rc=$?
note outputs "$([ "$rc" = 2 ] && grep -qF "cannot write '$tmp/st-full'" <<<"$out" && [ ! -s "$tmp/st-full" ] && echo 1)" \
  "status file on a full disk: exit $rc: $out"
note outputs "$([ -z "$(ls "$tmp" | grep 'st-full.tmp')" ] && echo 1)" "a temporary status file was left"
if [ "$(id -u)" != 0 ]; then
  mkdir -p "$tmp/ro" && chmod 555 "$tmp/ro"
  probe outputs 2 "cannot write" -- "$bin" list --status-file "$tmp/ro/s"
fi
probe outputs 2 "is a directory" -- "$bin" export --format json --db "$base" --out "$tmp/adir"
probe outputs 2 "is a FIFO" -- "$bin" export --format json --db "$base" --out "$tmp/fifo"
probe outputs 2 "is a FIFO" -- "$bin" export --format junit --db "$base" --out "$tmp/fifo"
# a link is replaced, not written through
echo keep >"$tmp/target"
ln -s "$tmp/target" "$tmp/link"
probe outputs 0 "" -- "$bin" list --status-file "$tmp/link"
note outputs "$([ "$(cat "$tmp/target")" = keep ] && [ -f "$tmp/link" ] && [ ! -L "$tmp/link" ] && echo 1)" \
  "an output file was written through a link"
probe outputs 2 "cannot use the folder" -- "$nightly" --no-build --build "$(dirname "$bin")" --out "$tmp/target/out"

# ---- numbers and dates: parsed whole ----------------------------------------------------------
for d in 2026-13-45 2026-02-30 2026-10-01Tnonsense 2025-02-29 ' 2026-01-01' 2026-1-01 2026-01-01T25:00; do
  cp "$base" "$tmp/p.db"
  probe numbers 2 "bad date" -- "$bin" prune --before "$d" --db "$tmp/p.db"
  same numbers "$tmp/p.db" "$base" "a database pruned with a bad date '$d'"
  probe numbers 2 "bad date" -- "$bin" history --since "$d" --db "$base"
done
probe numbers 0 "runs started before 2024-02-29" -- "$bin" prune --before 2024-02-29 --dry-run --db "$tmp/p.db"
probe numbers 0 "old runs 1..1, started" -- "$bin" prune --keep-runs 1 --dry-run --db "$tmp/p.db"
probe numbers 2 "bad value ' 3' for --keep-runs" -- "$bin" prune --keep-runs ' 3' --db "$tmp/p.db"
probe numbers 2 "bad value '+3' for --keep-runs" -- "$bin" prune --keep-runs +3 --db "$tmp/p.db"
probe numbers 2 "bad value ' -5' for --seed" -- "$bin" run --seed ' -5' --db "$tmp/s.db"
probe numbers 2 "bad value '-5' for --seed" -- "$bin" run --seed -5 --db "$tmp/s.db"
probe numbers 2 "bad value ' 0.1' for --alpha" -- "$bin" compare --alpha ' 0.1' --db "$base"
probe numbers 2 "bad value '0x10' for --budget" -- "$bin" run --budget 0x10 --db "$tmp/s.db"
probe numbers 2 "bad size '' in '--sizes 0,,1'" -- "$bin" bench --sizes 0,,1 --db "$tmp/s.db"
probe numbers 2 "bad size '-1'" -- "$bin" bench --sizes -1 --db "$tmp/s.db"
probe numbers 2 "size 99 in '--sizes 99' is beyond every selected sweep" -- "$bin" bench --sizes 99 --db "$tmp/s.db"
probe numbers 2 "unknown algorithm 'bogus' in --min-effect" -- "$bin" compare --min-effect bogus=0.1 --db "$base"
probe numbers 2 "unknown algorithm 'bogus' in --alpha" -- "$bin" history --alpha bogus=0.1 --db "$base"
probe numbers 0 "" -- "$bin" compare --min-effect sortlike=0.1 --db "$base"
probe numbers 2 "bad value '0' for --run" -- "$bin" export --format json --run 0 --db "$base"

# ---- store: a database not ours stays byte-identical -----------------------------------------
cp "$base" "$tmp/newer.db"
sql "$tmp/newer.db" "PRAGMA user_version = 99"
cp "$tmp/newer.db" "$tmp/newer.orig"
cp "$base" "$tmp/neg.db"
sql "$tmp/neg.db" "PRAGMA user_version = -1"
cp "$tmp/neg.db" "$tmp/neg.orig"
sql "$tmp/foreign1.db" "CREATE TABLE notes (t TEXT); PRAGMA user_version = 1"
cp "$tmp/foreign1.db" "$tmp/foreign1.orig"
sql "$tmp/foreign0.db" "CREATE TABLE runs (id INTEGER PRIMARY KEY, t TEXT)"
cp "$tmp/foreign0.db" "$tmp/foreign0.orig"
: >"$tmp/empty.db"
: >"$tmp/empty.orig"
for f in newer neg foreign1 foreign0 empty; do
  want="not a gpuregress database"
  [ $f = newer ] && want="is newer than this build"
  for c in history "history --all" compare plot "export --format json"; do
    probe store 2 "$want" -- "$bin" $c --db "$tmp/$f.db"
  done
  if [ $f != empty ]; then
    probe store 2 "$want" -- "$bin" run --filter selftest/ok --cases 1 --db "$tmp/$f.db"
    probe store 2 "$want" -- "$bin" import --db "$tmp/$f.db" "$base"
  fi
  probe store 2 "$want" -- "$bin" prune --keep-runs 1 --db "$tmp/$f.db"
  probe store 2 "$want" -- "$bin" ack --list --db "$tmp/$f.db"
  same store "$tmp/$f.db" "$tmp/$f.orig" "the $f database"
done
probe store 2 "baseline '$tmp/neg.db' is not a gpuregress database" -- "$bin" compare --db "$base" --baseline "$tmp/neg.db"
probe store 2 "has schema version 99, newer than this build" -- "$bin" compare --db "$base" --baseline "$tmp/newer.db"
probe store 2 "is not a gpuregress database" -- "$bin" compare --db "$base" --baseline "$tmp/empty.db"
probe store 2 "cannot read baseline '$tmp/fifo': not a regular file" -- "$bin" compare --db "$base" --baseline "$tmp/fifo"
probe store 2 "not a regular file" -- "$bin" history --db "$tmp/fifo"
probe store 2 "not a regular file" -- "$bin" run --filter selftest/ok --cases 1 --db "$tmp/fifo"
probe store 2 "not a regular file" -- "$bin" run --filter selftest/ok --cases 1 --db "$tmp/adir"
# a damaged page (the b-tree of the cases table): exit 2, also for a write command
cdb="$tmp/corrupt.db"
"$bin" run --filter selftest/ok --cases 2000 --db "$cdb" >/dev/null 2>&1
sql "$cdb" "PRAGMA journal_mode = DELETE"
root=$("$dbq" "$cdb" "SELECT rootpage FROM sqlite_master WHERE name = 'cases'")
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$cdb" bs=1 seek=$(((root - 1) * 4096 + 3)) conv=notrunc status=none
probe store 2 "malformed" -- "$bin" run --filter selftest/ok --cases 10 --db "$cdb"
probe store 2 "malformed" -- "$bin" import --db "$tmp/imp-c.db" "$cdb"
# read commands on a write-protected WAL database in a write-protected folder (as another user)
# and on a read-only mount (a user namespace); skipped where neither can be arranged
mkdir -p "$tmp/wp"
cp "$base" "$tmp/wp/w.db"
sql "$tmp/wp/w.db" "PRAGMA journal_mode = WAL"
cp "$tmp/wp/w.db" "$tmp/wp.orig"
chmod 444 "$tmp/wp/w.db"
chmod 555 "$tmp/wp"
as_other=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$tmp"
  as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
for c in compare history "export --format json" "history --all" "ack --list"; do
  probe store 0 "" -- ${as_other[@]+"${as_other[@]}"} "$bin" $c --db "$tmp/wp/w.db"
done
same store "$tmp/wp/w.db" "$tmp/wp.orig" "a write-protected database"
chmod 755 "$tmp/wp"
if unshare -rm true 2>/dev/null; then
  mkdir -p "$tmp/romnt"
  cp "$tmp/wp.orig" "$tmp/romnt/r.db"
  out=$(unshare -rm sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" &&
    for c in compare history; do "$2" $c --db "$1/r.db" >/dev/null || echo "FAILED $c"; done;
    "$2" export --format json --db "$1/r.db" >/dev/null || echo "FAILED export"' sh "$tmp/romnt" "$bin" 2>&1)
  note store "$([ -z "$out" ] && echo 1)" "read commands on a read-only mount: $out"
fi

# ---- files: data files --------------------------------------------------------------------
probe files 2 "'fifo' is a pipe, not a regular file" -- "$bin" repro 'sgm left=fifo right=fifo' --variant reference
probe files 2 "'fifo' is a pipe, not a regular file" -- "$bin" repro 'avos op=spgemm data=fifo' --variant reference
probe files 2 "'fifo' is a pipe, not a regular file" -- "$bin" repro 'kmedoids data=fifo' --variant reference
probe files 2 "'fifo' is a pipe, not a regular file" -- "$bin" bench --case 'sgm left=fifo right=fifo' --db "$tmp/s.db"
probe files 2 "'/dev/zero' is a character device" -- "$bin" repro 'sgm left=/dev/zero right=/dev/zero' --variant reference
probe files 2 "'adir' is a directory" -- "$bin" repro 'avos op=spgemm data=adir' --variant reference
# a sparse 1.5 GB pair whose left image has a byte too many: refused from the headers, at once,
# naming the file
printf 'P5\n30000 25000\n255\n' >"$tmp/big.pgm"
truncate -s $((30000 * 25000 + 19)) "$tmp/big.pgm"
printf 'P5\n30000 25000\n255\n' >"$tmp/big2.pgm"
truncate -s $((30000 * 25000 + 20)) "$tmp/big2.pgm"
t0=$(date +%s%N)
probe files 2 "'big2.pgm' has 1 bytes after the 30000 x 25000 pixels" -- "$bin" repro 'sgm left=big2.pgm right=big.pgm' --variant reference
ms=$((($(date +%s%N) - t0) / 1000000))
note files "$([ "$ms" -lt 2000 ] && echo 1)" "the bad pair took $ms ms (hashed before its header was read?)"
probe files 2 "a data: path names a file inside the dataset folder" -- "$bin" repro 'sgm left=data:../../etc/passwd right=data:x' --variant reference
probe files 2 "a data: path names a file inside the dataset folder" -- "$bin" repro 'avos op=spgemm data=data:/etc/passwd' --variant reference
printf 'P5\n4 4\n255\n' >"$tmp/short.pgm"
probe files 2 "'short.pgm' is truncated" -- "$bin" repro 'sgm left=short.pgm right=short.pgm' --variant reference
printf 'avos-csr 1\nshape1 1 0\n0:\n' >"$tmp/s1.txt"
probe files 2 "'s1.txt' line 2: expected 'shape ROWS COLS NNZ'" -- "$bin" repro 'avos op=spgemm data=s1.txt' --variant reference
: >"$tmp/s0.txt"
probe files 2 "'s0.txt' is empty: expected the header 'avos-csr 1'" -- "$bin" repro 'avos op=spgemm data=s0.txt' --variant reference
printf 'avos-csr 1\nshape 2 2 9\n' >"$tmp/s2.txt"
probe files 2 "'s2.txt' line 2: shape 2 x 2 with 9 entries is not possible" -- "$bin" repro 'avos op=spgemm data=s2.txt' --variant reference
printf 'KMSIGxxx' >"$tmp/k.sig"
probe files 2 "'k.sig'" -- "$bin" repro 'kmedoids data=k.sig' --variant reference

# ---- import: every row, or the file refused -------------------------------------------------
odd="$tmp/odd.db"
for i in 1 2 3; do "$synth" "$odd" --cases 3 >/dev/null; done
sql "$odd" "UPDATE runs SET id = id - 3; UPDATE cases SET run_id = run_id - 3;
            UPDATE outcomes SET run_id = run_id - 3; UPDATE timings SET run_id = run_id - 3;
            UPDATE coverage SET run_id = run_id - 3"
counts() { "$dbq" "$1" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM cases) || ' '
  || (SELECT count(*) FROM outcomes) || ' ' || (SELECT count(*) FROM timings) || ' ' || (SELECT count(*) FROM samples)"; }
want=$(counts "$odd")
probe import 0 "3 runs added" -- "$bin" import --db "$tmp/m1.db" "$odd"
note import "$([ "$(counts "$tmp/m1.db")" = "$want" ] && echo 1)" \
  "ids <= 0: $(counts "$tmp/m1.db") imported of $want (runs cases outcomes timings samples)"
cp "$base" "$tmp/m2.db"
probe import 0 "3 runs added" -- "$bin" import --db "$tmp/m2.db" "$odd"
note import "$([ "$("$dbq" "$tmp/m2.db" "SELECT count(*) FROM cases WHERE run_id NOT IN (SELECT id FROM runs)")" = 0 ] &&
  [ "$("$dbq" "$tmp/m2.db" "SELECT count(*) FROM runs")" = 5 ] && echo 1)" "ids <= 0 into a database with runs"
probe import 0 "0 runs added (3 already here)" -- "$bin" import --db "$tmp/m2.db" "$odd"
# an acknowledgement in another runner's file silences nothing here: import never carries acks
cp "$base" "$tmp/acked.db"
sql "$tmp/acked.db" "INSERT INTO acks (benchmark, through_run, who, at, reason)
                     VALUES ('sortlike/v2_warp', 999, 'mallory', '2026-10-01T00:00:00Z', 'hide it')"
probe import 0 "2 runs added" -- "$bin" import --db "$tmp/m5.db" "$tmp/acked.db"
note import "$([ "$("$dbq" "$tmp/acked.db" "SELECT count(*) FROM acks")" = 1 ] &&
  [ "$("$dbq" "$tmp/m5.db" "SELECT count(*) FROM acks")" = 0 ] && echo 1)" \
  "an imported file's acknowledgement arrived: $("$dbq" "$tmp/m5.db" "SELECT * FROM acks")"
# huge ids: kept or renumbered, never wrapped
cp "$base" "$tmp/huge.db"
sql "$tmp/huge.db" "UPDATE runs SET id = 9223372036854775807 WHERE id = 2; UPDATE outcomes SET run_id = 9223372036854775807 WHERE run_id = 2;
                    UPDATE timings SET run_id = 9223372036854775807 WHERE run_id = 2; UPDATE cases SET run_id = 9223372036854775807 WHERE run_id = 2;
                    UPDATE coverage SET run_id = 9223372036854775807 WHERE run_id = 2"
probe import 0 "2 runs added" -- "$bin" import --db "$tmp/m3.db" "$tmp/huge.db"
probe import 0 "3 runs added" -- "$bin" import --db "$tmp/m3.db" "$odd"
hostile bad-var "UPDATE timings SET variant = 'x''; system(1)' WHERE variant = 'v2_shared'"
probe import 2 "run 1: variant 'x''; system(1)' in timings is not a name gpuregress gives" -- "$bin" import --db "$tmp/m4.db" "$tmp/bad-var.db"
hostile bad-alg "UPDATE outcomes SET algorithm = '../x' WHERE algorithm = 'ari'"
probe import 2 "algorithm '../x' in outcomes is not a name" -- "$bin" import --db "$tmp/m4.db" "$tmp/bad-alg.db"
hostile bad-kind "UPDATE cases SET kind = 'fixed' || char(10) WHERE rowid = 1"
probe import 2 "kind 'fixed" -- "$bin" import --db "$tmp/m4.db" "$tmp/bad-kind.db"
hostile bad-long "UPDATE outcomes SET variant = '$long' WHERE variant = 'v2_shared'"
probe import 2 "is not a name gpuregress gives" -- "$bin" import --db "$tmp/m4.db" "$tmp/bad-long.db"
hostile bad-type "UPDATE timings SET median_ms = 'fast' WHERE rowid = 3"
probe import 2 "timings.median_ms holds text 'fast' where a number belongs" -- "$bin" import --db "$tmp/m4.db" "$tmp/bad-type.db"
hostile orphan "INSERT INTO outcomes (run_id, algorithm, variant, kind, verdict) VALUES (77, 'ari', 'v2', 'fixed', 'pass')"
probe import 2 "run 77: a row of outcomes belongs to no run of the file" -- "$bin" import --db "$tmp/m4.db" "$tmp/orphan.db"
sql "$tmp/dup.db" "CREATE TABLE runs (id INTEGER, started_at TEXT, status TEXT, command TEXT, seed INTEGER);
  CREATE TABLE cases (id INTEGER, run_id INTEGER, algorithm TEXT, variant TEXT, kind TEXT, params TEXT, seed INTEGER, verdict TEXT, phase TEXT);
  CREATE TABLE outcomes (run_id INTEGER, algorithm TEXT, variant TEXT, kind TEXT, verdict TEXT);
  INSERT INTO runs VALUES (1, '2026-01-01', 'finished', 'x', 1), (1, '2026-01-02', 'finished', 'y', 2);
  PRAGMA user_version = 1"
probe import 2 "run 1: id given 2 times" -- "$bin" import --db "$tmp/m4.db" "$tmp/dup.db"
sql "$tmp/dup.db" "UPDATE runs SET id = 'one' WHERE command = 'y'"
probe import 2 "id of type text" -- "$bin" import --db "$tmp/m4.db" "$tmp/dup.db"
probe import 2 "not a gpuregress database (a schema version gpuregress never writes)" -- "$bin" import --db "$tmp/m4.db" "$tmp/neg.orig"
probe import 2 "not a gpuregress database (empty)" -- "$bin" import --db "$tmp/m4.db" "$tmp/empty.orig"
probe import 2 "not a regular file" -- "$bin" import --db "$tmp/m4.db" "$tmp/fifo"
note import "$([ "$("$dbq" "$tmp/m4.db" "SELECT count(*) FROM runs")" = 0 ] && echo 1)" "a refused file left rows behind"

probe_summary untrusted
