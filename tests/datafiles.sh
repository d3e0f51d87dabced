#!/usr/bin/env bash
# Cases that read their data from files (issue 17): a tiny synthetic stereo pair as PGM files
# runs as an sgm case; the case text carries each file's content hash; a missing, malformed,
# changed or inconsistent file is exit 2 naming the file and the problem; "data:" paths resolve
# in GR_DATA and say how to fetch a missing dataset; fuzzing refuses files; compare reports a
# rise of a stored accuracy metric as an accuracy regression.
#   tests/datafiles.sh GPUREGRESS SYNTH_DB
set -u
bin=$1
synth=$2
source "$(dirname "$0")/expect.sh"

# a 48 x 16 random-dot pair, the right image shifted by 3 pixels; ground truth 3 (0 unknown in
# the first 3 columns)
python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]; w, h, s = 48, 16, 3
random.seed(7)
left = [[random.randrange(256) for x in range(w)] for y in range(h)]
right = [[left[y][x + s] if x + s < w else random.randrange(256) for x in range(w)] for y in range(h)]
gt = [[s if x >= s else 0 for x in range(w)] for y in range(h)]
for name, img in (("left", left), ("right", right), ("gt", gt)):
    with open(f"{d}/{name}.pgm", "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h) + bytes(v for row in img for v in row))
PY
pair="left=$tmp/left.pgm right=$tmp/right.pgm gt=$tmp/gt.pgm"
case_text="sgm d=16 p1=10 p2=120 paths=8 $pair seed=1"

# the case runs; its canonical text has the sizes from the images and every file's hash
expect 0 "content=file left=$tmp/left.pgm#" -- "$bin" repro "$case_text" --variant reference
expect 0 "pass" -- "$bin" repro "$case_text" --variant reference
canon=$("$bin" repro "$case_text" --variant reference | sed -n 's/^case: //p')
check "canonical text has w, h and three hashes" \
  bash -c '[[ "$1" == "sgm w=48 h=16 d=16 "* ]] && [ "$(grep -o "#[0-9a-f]\{16\}" <<<"$1" | wc -l)" = 3 ]' _ "$canon"
expect 0 "pass" -- "$bin" repro "$canon" --variant reference   # the printed case reproduces
# sizes given must agree with the images
expect 2 "'w=40' disagrees with the case's files, which give w=48" -- "$bin" repro "sgm w=40 d=16 p1=10 p2=120 paths=8 $pair seed=1"
expect 2 "'content=file' needs the images" -- "$bin" repro "sgm w=48 h=16 d=16 p1=10 p2=120 paths=8 content=file seed=1"
expect 2 "a stereo pair from files names both images" -- "$bin" repro "sgm d=16 p1=10 p2=120 paths=8 left=$tmp/left.pgm seed=1"

# missing, malformed, changed, another size: exit 2 naming the file
expect 2 "cannot open '$tmp/nosuch.pgm': No such file" -- "$bin" repro "sgm d=16 p1=10 p2=120 paths=8 left=$tmp/nosuch.pgm right=$tmp/right.pgm seed=1"
head -c 100 "$tmp/right.pgm" >"$tmp/cut.pgm"
expect 2 "'$tmp/cut.pgm' is truncated" -- "$bin" repro "sgm d=16 p1=10 p2=120 paths=8 left=$tmp/left.pgm right=$tmp/cut.pgm seed=1"
printf 'P2\n48 16\n255\n' >"$tmp/ascii.pgm"
expect 2 "'$tmp/ascii.pgm' is an ASCII PGM (P2)" -- "$bin" repro "sgm d=16 p1=10 p2=120 paths=8 left=$tmp/ascii.pgm right=$tmp/right.pgm seed=1"
expect 2 "'$tmp' is a directory, not a regular file" -- "$bin" repro "sgm d=16 p1=10 p2=120 paths=8 left=$tmp right=$tmp/right.pgm seed=1"
python3 -c "import sys; open(sys.argv[1], 'wb').write(b'P5\n40 16\n255\n' + bytes(640))" "$tmp/small.pgm"
expect 2 "'$tmp/small.pgm' (right=) is 40 x 16, the left image 48 x 16" -- "$bin" repro "sgm d=16 p1=10 p2=120 paths=8 left=$tmp/left.pgm right=$tmp/small.pgm seed=1"
cp "$tmp/gt.pgm" "$tmp/gt.orig"
printf '\x05' | dd of="$tmp/gt.pgm" bs=1 seek=200 conv=notrunc status=none
expect 2 "'$tmp/gt.pgm' has changed: its content hash is" -- "$bin" repro "$canon" --variant reference
cp "$tmp/gt.orig" "$tmp/gt.pgm"
expect 2 "the content hash after '#' must be 16 hex digits" -- "$bin" repro "sgm d=16 p1=10 p2=120 paths=8 left=$tmp/left.pgm#12 right=$tmp/right.pgm seed=1"

# data: paths: in GR_DATA; a missing dataset says how to fetch it
mkdir -p "$tmp/data/tiny"
cp "$tmp/left.pgm" "$tmp/right.pgm" "$tmp/data/tiny/"
expect 0 "left=data:tiny/left.pgm#" -- env GR_DATA="$tmp/data" "$bin" repro "sgm d=16 p1=10 p2=120 paths=4 left=data:tiny/left.pgm right=data:tiny/right.pgm seed=1" --variant reference
expect 2 "run scripts/datasets" -- env GR_DATA="$tmp/none" "$bin" repro "sgm d=16 p1=10 p2=120 paths=4 left=data:tiny/left.pgm right=data:tiny/right.pgm seed=1"
# the sweep's real pairs are left out, with the reason, where the dataset is absent
expect 2 "data:middlebury/aloe/left.pgm: run scripts/datasets" -- env GR_DATA="$tmp/none" "$bin" bench sgm --sizes 8-9 --db "$tmp/b.db"

# kmedoids: a signature file (datasets/kmedoids_sig.h) of 40 signatures of 2 to 5 centroids
python3 - "$tmp/sigs.bin" <<'PY'
import random, struct, sys
random.seed(3)
sizes = [2 + i % 4 for i in range(40)]
off = [0]
for s in sizes:
    off.append(off[-1] + s)
n, total = len(sizes), off[-1]
data = b"".join(struct.pack("<8f", *[random.gauss(i % 3, 0.2) for _ in range(7)], 1.0 + random.random())
                for i in range(total))
hdr = b"KMSIGS\0\1" + struct.pack("<IIQQQQQQ", 1, 7, n, total, 64, 64 + 8 * (n + 1), 0, 0)
open(sys.argv[1], "wb").write(hdr + struct.pack("<%dQ" % (n + 1), *off) + data)
PY
expect 0 "kmedoids n=40 k=4 sig_min=2 sig_max=5 classes=1 alpha_milli=200 iters=8 ranks=1 dist=file data=$tmp/sigs.bin#" -- "$bin" repro "kmedoids k=4 alpha_milli=200 iters=8 ranks=1 data=$tmp/sigs.bin seed=1" --variant reference
expect 0 "pass" -- "$bin" repro "kmedoids k=4 alpha_milli=200 iters=8 ranks=1 data=$tmp/sigs.bin seed=1" --variant reference
head -c 300 "$tmp/sigs.bin" >"$tmp/cut.bin"
expect 2 "'$tmp/cut.bin'" -- "$bin" repro "kmedoids k=4 alpha_milli=200 iters=8 ranks=1 data=$tmp/cut.bin seed=1"
expect 2 "'k' = 41 is more than 'n' = 40" -- "$bin" repro "kmedoids k=41 alpha_milli=200 iters=8 ranks=1 data=$tmp/sigs.bin seed=1"
expect 2 "'dist=file' and 'data=FILE' go together" -- "$bin" repro "kmedoids n=40 k=4 sig_min=2 sig_max=5 classes=1 alpha_milli=200 iters=8 ranks=1 dist=file seed=1"

# avos: a genealogy as avos-csr text (datasets/avos_csr_text.h): persons 0 (female) and 1 (male),
# the parents of 2; 1 the father of 3
printf 'avos-csr 1\nshape 4 4 7\n0: 0=1\n1: 1=-1\n2: 0=3 1=2 2=1\n3: 1=2 3=-1\n' >"$tmp/g.txt"
expect 0 "avos op=closure type=int32 n=4 shape=file gens=1 collapse=0 cycle=0 deg=1 data=$tmp/g.txt#" -- "$bin" repro "avos op=closure type=int32 data=$tmp/g.txt seed=1" --variant reference
expect 0 "pass" -- "$bin" repro "avos op=spgemm type=int8 data=$tmp/g.txt seed=1" --variant reference
expect 2 "'data=FILE' is a matrix: 'op=spgemm' or 'op=closure'" -- "$bin" repro "avos op=sum type=int32 data=$tmp/g.txt seed=1"
printf 'avos-csr 1\nshape 4 4 7\n0: 0=1\n' >"$tmp/short.txt"
expect 2 "'$tmp/short.txt' line 3: end of file after 1 of 4 rows" -- "$bin" repro "avos op=closure type=int32 data=$tmp/short.txt seed=1"
printf 'avos-csr 1\nshape 2 2 3\n0: 0=1\n1: 0=2 1=1\n' >"$tmp/notgen.txt"
expect 2 "'$tmp/notgen.txt' is not a genealogy this suite takes" -- "$bin" repro "avos op=closure type=int32 data=$tmp/notgen.txt seed=1"

# scripts/datasets: options checked first (exit 2); --list needs no network
root=$(cd "$(dirname "$0")/.." && pwd)
expect 2 "unknown option '--bogus'" -- "$root/scripts/datasets" --bogus
expect 2 "unknown dataset 'nope' (one of: middlebury/aloe)" -- "$root/scripts/datasets" nope
expect 2 "'--out' needs a directory" -- "$root/scripts/datasets" --out
expect 0 "usage: scripts/datasets" -- "$root/scripts/datasets" --help
expect 0 "middlebury/aloe  absent" -- "$root/scripts/datasets" --list --out "$tmp/none"
expect 0 "middlebury/aloe  absent" -- env GR_DATA="$tmp/none" "$root/scripts/datasets" --list

# fuzzing generates its data
expect 2 "'left' names a file: fuzzing generates its data" -- "$bin" fuzz sgm/reference "left=$tmp/left.pgm" --cases 1 --db "$tmp/f.db"
expect 2 "'content=file' reads files: fuzzing generates its data" -- "$bin" fuzz sgm/reference content=file --cases 1 --db "$tmp/f.db"
expect 2 "'dist=file' reads files" -- "$bin" fuzz kmedoids/reference dist=file --cases 1 --db "$tmp/f.db"

# accuracy as a tracked metric: a rise beyond --max-accuracy-loss is a regression (exit 1)
db="$tmp/acc.db"
r1=$("$synth" "$db" --seed 1 --accuracy ari/v2_shared=0.080)
r2=$("$synth" "$db" --seed 1 --accuracy ari/v2_shared=0.082)
r3=$("$synth" "$db" --seed 1 --accuracy ari/v2_shared=0.120)
expect 0 "accuracy regressions: 0 (of " -- "$bin" compare --db "$db" --run "$r2" --baseline "$r1"
expect 1 "ACCURACY REGRESSION" -- "$bin" compare --db "$db" --run "$r3" --baseline "$r2"
expect 1 "bad1           8.200%  12.000%  ACCURACY REGRESSION" -- "$bin" compare --db "$db" --run "$r3" --baseline "$r2"
expect 1 "verdict: FAILED: ari/v2_shared bad1 8.200% -> 12.000%" -- "$bin" compare --db "$db" --run "$r3" --baseline "$r2"
expect 0 "result: ok" -- "$bin" compare --db "$db" --run "$r3" --baseline "$r2" --max-accuracy-loss 0.05
expect 2 "bad value 'x' for --max-accuracy-loss" -- "$bin" compare --db "$db" --max-accuracy-loss x
# a baseline file carries the metrics
"$bin" export --db "$db" --run "$r2" --format db --out "$tmp/base.db" >/dev/null
expect 1 "ACCURACY REGRESSION" -- "$bin" compare --db "$db" --run "$r3" --baseline "$tmp/base.db"
# the JSON export carries them
"$bin" export --db "$db" --run "$r3" --format json --out "$tmp/r3.json" >/dev/null
check "JSON export holds the accuracy rows" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["accuracy"]
assert len(rows) == 8 and {r["metric"] for r in rows} == {"bad1", "bad2"}, rows
assert abs(max(r["value"] for r in rows) - 0.12) < 1e-12' "$tmp/r3.json"
# the dashboard shows them
"$bin" plot --db "$db" --run "$r3" --out "$tmp/plots" >/dev/null 2>&1
check "dashboard shows the accuracy regression" grep -q "accuracy regressed" "$tmp/plots/dashboard/index.html"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all datafile checks passed"
