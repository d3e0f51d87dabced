#!/usr/bin/env bash
# Google Benchmark JSON that its users' tools read right (issue 11): two files written through
# the real shim and writer (tests/test_bench_json.c) are read the way Google Benchmark's
# tools/compare.py reads them (gbench/report.py: benchmarks paired by name and time unit, change
# = (new - old) / |old| on real_time) and a planted 20% slowdown shows as +0.20. Also: microsecond
# times equal to the planted GPU medians, cpu_time the planted host time (not the loop's), the
# custom context, bytes_per_second and items_per_second counters, and a benchmark that crashed as
# an entry with error_occurred in a valid file.
#   tests/gbench_json.sh TEST_BENCH_JSON
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$1" "$tmp" 2>&1) || { echo "FAIL: test_bench_json: $out"; exit 1; }
[ -z "$out" ] || { echo "FAIL: output besides the files: $out"; exit 1; }
command -v python3 >/dev/null || { echo "gbench_json: python3 missing"; exit 77; }
python3 - "$tmp/base.json" "$tmp/new.json" <<'PY'
import json, sys

def load(path):
    with open(path) as f:
        return json.load(f)  # a truncated or concatenated file fails here

def change(old, new):  # compare.py's calculate_change
    if old == 0 and new == 0:
        return 0.0
    if old == 0:
        return float(new - old) / (float(old + new) / 2)
    return float(new - old) / abs(old)

def comparable(b):  # compare.py's is_potentially_comparable_benchmark
    return "time_unit" in b and "real_time" in b and "cpu_time" in b

base, new = load(sys.argv[1]), load(sys.argv[2])
for d in (base, new):
    ctx = d["context"]
    assert ctx["gpu"] == "Planted GPU" and ctx["commit"] == "0123456789abcdef", ctx
    assert ctx.get("json_schema_version", 1) == 1, ctx
planted = {"ari/v2_shared/n=1000": (52.0, 7.5), "ari/v3_global/n=1000": (85.0, 8.0),
           "radix_sort/v2_onesweep/n=65536": (21.0, 6.0)}
report = {}
for b in base["benchmarks"]:
    if not comparable(b):
        continue
    others = [o for o in new["benchmarks"] if o["name"] == b["name"] and o["time_unit"] == b["time_unit"]]
    if others:
        report[b["name"]] = (b, others[0], change(b["real_time"], others[0]["real_time"]))
assert len(report) == 3, sorted(report)
for name, (b, o, c) in report.items():
    short = name.split("/iterations:")[0]
    us, cpu = planted[short]
    assert b["time_unit"] == "us", b
    assert abs(b["real_time"] - us) < 1e-6, (name, b["real_time"])
    assert abs(b["cpu_time"] - cpu) < 1e-6, (name, b["cpu_time"])
    assert "bytes_per_second" in b and "items_per_second" in b, b
    assert abs(b["bytes_per_second"] - (4e6 if short.startswith("ari") else 1e6) / (us * 1e-6)) < 1, b
    assert "gr_cpu_seconds" not in b, b
    want = 0.2 if short == "ari/v2_shared/n=1000" else 0.0
    assert abs(c - want) < 1e-9, (name, c)
    print("%-60s %+.4f" % (name, c))
crashed = [b for b in new["benchmarks"] if b.get("error_occurred")]
assert len(crashed) == 1 and "Segmentation fault" in crashed[0]["error_message"], crashed
assert crashed[0]["time_unit"] == "us" and comparable(crashed[0]), crashed
print("gbench_json: a planted 20% slowdown reads as +0.20; the crash is an error entry")
PY
