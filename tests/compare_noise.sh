#!/usr/bin/env bash
# compare against a benchmark's own night-to-night noise (--night-sigmas): on 13 synthetic nights
# whose medians move 3% (lognormal) from night to night with 0.3% noise within a night, the last
# night against the one before is 34 same with the default (3 x sqrt 2 x the noise of each
# benchmark's last nights) and has benchmarks called slower or faster without it; with fewer
# than 5 nights before the run nothing is widened; a real 25% step is still slower on every size
# of the variant it hit, and the listing names what moved within its noise. Nights that fall into
# one of two levels 6% apart (30% of them the upper one: a switch on 42% of the nights, so the
# median of the differences is the 0.3% within a level) are same too, where that median would
# call the switches slower and faster.
#   tests/compare_noise.sh GPUREGRESS SYNTH_DB
set -u
bin=$1
synth=$2
here=$(dirname "$0")
source "$here/expect.sh"

db="$tmp/n.db"
night() { # night N [synth_db args...]
  local i=$1
  shift
  "$synth" "$db" --seed "$i" --commit "c$i" --date "2026-10-$(printf %02d "$i")" \
    --night-noise 0.03 --noise 0.003 --no-outcomes "$@" >/dev/null || { echo "FAIL: synth_db"; exit 1; }
}
for i in $(seq 1 13); do night "$i"; done

out=$("$bin" compare --db "$db" 2>&1)
check "default: every timing same" grep -qF "timings: 34 same, 0 faster, 0 slower, 0 unsure" <<<"$out"
check "the ones that moved by 5% or more are listed with their noise" \
  grep -qE "^  sortlike/[a-z0-9_]+ n=[0-9]+ dist=uniform: ratio 1\.0[5-9][0-9]x, noise [0-9.]+% over 12 nights: min effect" <<<"$out"
[ "$fails" = 0 ] || echo "$out" | tail -20
out=$("$bin" compare --db "$db" --night-sigmas 0 2>&1)
check "without it (--night-sigmas 0) some are called slower or faster" \
  grep -qE "timings: [0-9]+ same, [0-9]+ faster, [1-9][0-9]* slower|timings: [0-9]+ same, [1-9][0-9]* faster" <<<"$out"
# run 4 has 3 nights before it: the plain minimum effect
out=$("$bin" compare --db "$db" --run 4 2>&1)
check "a short history widens nothing" grep -qE "timings: [0-9]+ same, [0-9]+ faster, [1-9][0-9]* slower" <<<"$out"
check "and lists nothing as within its noise" bash -c '! grep -qF "within 3 x sqrt(2)" <<<"$1"' _ "$out"
# a real step on night 14: every size of sortlike/v2_warp slower, nothing else
night 14 --slow sortlike/v2_warp=1.25
out=$("$bin" compare --db "$db" 2>&1)
check "a 25% step is slower on its 4 sizes" \
  [ "$(grep -cE '^sortlike +v2_warp +n=[0-9]+ dist=uniform +[0-9.]+ +[0-9.]+ +1\.[1-3][0-9]*x .* slower' <<<"$out")" = 4 ]
check "and nothing else is" grep -qE "timings: 30 same, 0 faster, 4 slower, 0 unsure" <<<"$out"
[ "$fails" = 0 ] || echo "$out" | tail -20
# two levels: each benchmark 6% up with probability 0.3, per night
mdb="$tmp/m.db"
for i in $(seq 1 13); do
  "$synth" "$mdb" --seed "$((100 + i))" --commit "c$i" --date "2026-10-$(printf %02d "$i")" \
    --night-mode 0.06,0.3 --noise 0.003 --no-outcomes >/dev/null || { echo "FAIL: synth_db"; exit 1; }
done
out=$("$bin" compare --db "$mdb" 2>&1)
check "two levels: every timing same" grep -qF "timings: 34 same, 0 faster, 0 slower, 0 unsure" <<<"$out"
[ "$fails" = 0 ] || echo "$out" | tail -20
out=$("$bin" compare --db "$mdb" --night-sigmas 0 2>&1)
check "two levels, --night-sigmas 0: the switches are called slower or faster" \
  grep -qE "timings: [0-9]+ same, [0-9]+ faster, [1-9][0-9]* slower|timings: [0-9]+ same, [1-9][0-9]* faster" <<<"$out"
expect 2 "bad value 'x' for --night-sigmas" -- "$bin" compare --db "$db" --night-sigmas x
[ "$fails" = 0 ] && echo ok
exit $((fails > 0))
