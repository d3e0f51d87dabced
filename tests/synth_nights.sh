#!/usr/bin/env bash
# Build a synthetic history of 30 nights (2026-10-01 .. 2026-10-30, commits c001 .. c030, one
# run a night, 1% night-to-night noise) with tests/synth_db, for the history and dashboard tests:
#   tests/synth_nights.sh SYNTH_DB DB step   sortlike/v2_warp 10% slower from night 20 on (every
#                                            size); everything else flat (the control); ari's
#                                            fixed v2_shared fails on nights 3 and 25
#   tests/synth_nights.sh SYNTH_DB DB revert as step, but the 10% are gone again from night 26 on
#   tests/synth_nights.sh SYNTH_DB DB flat   no change at all
# Night N is run N of a new DB. Exit 2 when synth_db fails.
set -u
synth=$1 db=$2 kind=$3
seed0=0
[ "$kind" = flat ] && seed0=1000
for i in $(seq 1 30); do
  args=(--seed "$((seed0 + i))" --commit "$(printf c%03d "$i")" --cases 5
    --date "2026-10-$(printf %02d "$i")" --night-noise 0.01)
  if [ "$kind" = step ] || [ "$kind" = revert ]; then
    [ "$i" -ge 20 ] && { [ "$kind" = step ] || [ "$i" -lt 26 ]; } && args+=(--slow sortlike/v2_warp=1.10)
    [ "$i" = 3 ] || [ "$i" = 25 ] && args+=(--verdict ari/v2_shared=fail)
  fi
  "$synth" "$db" "${args[@]}" >/dev/null || exit 2
done
