#!/usr/bin/env bash
# No false red nights (issue 38 item 7), on the synthetic model of the GPU's mode switching
# (doc/statistics.md): every benchmark's level moves 1% (lognormal) from process to process and
# falls 4.5% higher on 30% of them. Each night is judged as ci/nightly judges it: against the
# host's last night, with the interleaved re-timing of the last good build and this one on the
# same GPU (16 rounds each: synth_db --runs, one process each) given to 'compare --confirm', and
# recorded ('--record': open regressions carry to the next night).
#   - one host, 60 unchanged nights: at most 1 red; a 5% step of sortlike/v2_warp planted on
#     night 40 is red on night 40, confirmed interleaved on its 4 sizes;
#   - nights alternating between two hosts 7% apart: 0 red, the 5% step on night 40 still red;
#   - two GPUs of one host name 7% apart, told apart by their UUIDs, without a re-timing (1% noise
#     alone): 0 red, the first night on the second GPU not confirmed, the 5% step on night 40 red;
#   - the two hosts without a re-timing (1% noise alone): 0 red; the first night on the second
#     host is slower against the first host's night, listed as not confirmed on this machine.
#   tests/synth_model.sh GPUREGRESS SYNTH_DB
set -u
bin=$1 synth=$2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/expect.sh"

model=(--night-mode 0.045,0.3 --night-noise 0.01)
# HOSTS: one (one GPU), two (two hosts), gpus (two GPUs of one host name: told apart by UUID)
scale() { [ "$2" != one ] && [ $(($1 % 2)) = 0 ] && echo 1.07 || echo 1; } # N HOSTS
host() { [ "$2" = two ] && [ $(($1 % 2)) = 0 ] && echo hostb || echo hosta; }
uuid() { [ "$2" != one ] && [ $(($1 % 2)) = 0 ] && echo GPU-synth-b || echo GPU-synth-a; }

# night N of DB on its host (HOSTS one|two), then its re-timing into DIR; extra args: tonight's
night() { # DB N HOSTS DIR [synth_db args...]
  local db=$1 n=$2 hosts=$3 dir=$4
  shift 4
  local h=(--host "$(host "$n" "$hosts")" --scale "$(scale "$n" "$hosts")")
  [ "$hosts" = gpus ] && h+=(--uuid "$(uuid "$n" "$hosts")")
  "$synth" "$db" --seed "$n" --commit "$(printf c%03d "$n")" --no-outcomes "${h[@]}" \
    "${model[@]}" "$@" >/dev/null || { echo "FAIL: synth_db"; exit 1; }
  [ -n "$dir" ] || return 0
  rm -rf "$dir" && mkdir -p "$dir"
  "$synth" "$dir/base.db" --seed "$((1000 + n))" --runs 16 --no-outcomes --no-samples "${h[@]}" \
    "${model[@]}" >/dev/null &&
    "$synth" "$dir/head.db" --seed "$((2000 + n))" --runs 16 --no-outcomes --no-samples "${h[@]}" \
      "${model[@]}" "$@" >/dev/null || { echo "FAIL: synth_db rounds"; exit 1; }
}
judge() { # DB N DIR -> exit code of the night's verdict; log in DB.N.log
  local confirm=()
  [ -n "$3" ] && confirm=(--confirm "$3")
  "$bin" compare --db "$1" --run "$2" --record "${confirm[@]+"${confirm[@]}"}" >"$1.$2.log" 2>&1
}
# 60 nights of DB (HOSTS, CONFIRM 1|0): the red ones in DB.red
history() { # DB HOSTS CONFIRM
  local db=$1 n dir=""
  [ "$3" = 1 ] && dir="$tmp/confirm"
  : >"$db.red"
  for n in $(seq 1 60); do
    night "$db" "$n" "$2" "$dir"
    judge "$db" "$n" "$dir"
    case $? in
      0) ;;
      1) echo "$n" >>"$db.red" ;;
      *) echo "FAIL: night $n: compare: $(tail -3 "$db.$n.log")"; exit 1 ;;
    esac
    [ "$n" = 39 ] && cp "$db" "$db.39"
  done
}
step() { # DB HOSTS [bare]: night 40 again, with a 5% step of sortlike/v2_warp (bare: no re-timing)
  local dir="$tmp/confirm"
  [ "${3:-}" = bare ] && dir=""
  cp "$1.39" "$1.step"
  night "$1.step" 40 "$2" "$dir" --slow sortlike/v2_warp=1.05
  judge "$1.step" 40 "$dir"
}

one="$tmp/one.db"
history "$one" one 1
check "one host: at most 1 red of 60 unchanged nights (red: $(tr '\n' ' ' <"$one.red"))" \
  [ "$(wc -l <"$one.red")" -le 1 ]
step "$one" one
check "one host: the 5% step on night 40 is red" [ $? = 1 ]
check "one host: confirmed interleaved on its 4 sizes" \
  [ "$(grep -cE '^  sortlike/v2_warp n=[0-9]+ dist=uniform: ratio [0-9.]+x; interleaved 1\.0[3-7][0-9]x \(16 rounds each\)' "$one.step.40.log")" = 4 ]
check "one host: and nothing else is slower" grep -qE "timings: [0-9]+ same, [0-9]+ faster, 4 slower" "$one.step.40.log"
"$bin" compare --db "$one.step" --run 40 --confirm "$tmp/confirm" --format json --status-file "$tmp/st" >"$tmp/j.json" 2>/dev/null
check "the status file names what to re-time" grep -qE '^confirm=(.*,)?sortlike/v2_warp(,|$)' "$tmp/st"
check "the JSON counts the confirmed slowdowns" grep -q '"not_confirmed": [0-9]*, "confirmed": 4' "$tmp/j.json"
check "one host: an upper-mode night is listed as not confirmed" \
  grep -qh "^not confirmed on this machine (slower against the baseline, not red):" "$one".[0-9]*.log

two="$tmp/two.db"
history "$two" two 1
check "two hosts 7% apart: 0 red of 60 unchanged nights (red: $(tr '\n' ' ' <"$two.red"))" \
  [ ! -s "$two.red" ]
check "two hosts: the first night on the second host is judged against the first host's" \
  grep -qE "^  (ari|sortlike)/[a-z0-9_]+ .*: ratio 1\.[01][0-9]*x; interleaved" "$two.2.log"
step "$two" two
check "two hosts: the 5% step on night 40 is red" [ $? = 1 ]
check "two hosts: against the host's own night 38" grep -qE "against run 38: [0-9]+ same, [0-9]+ faster, 4 slower" "$two.step.40.log"

# two GPUs of one host name 7% apart (their UUIDs tell them apart), no re-timing: each GPU's own
# nights and offset; 1% noise alone
model=(--night-noise 0.01)
gpus="$tmp/gpus.db"
history "$gpus" gpus 0
check "two GPUs of one host 7% apart, no re-timing: 0 red of 60 unchanged nights (red: $(tr '\n' ' ' <"$gpus.red"))" \
  [ ! -s "$gpus.red" ]
check "two GPUs of one host: night 2 is not confirmed on this machine" \
  grep -qE "^  [a-z]+/[a-z0-9_]+ .*: ratio 1\.0[5-9][0-9]*x against GPU 'GPU-synth-a'; no nights of this GPU yet" "$gpus.2.log"
step "$gpus" gpus bare
check "two GPUs of one host: the 5% step on night 40 is red" [ $? = 1 ]
check "two GPUs of one host: against the GPU's own night 38, sortlike/v2_warp alone slower" \
  grep -qE "against run 38: [0-9]+ same, [0-9]+ faster, [1-4] slower.*; [1-4] open regressions" "$gpus.step.40.log"
check "two GPUs of one host: nothing but sortlike/v2_warp slower" \
  [ "$(grep -cE '^sortlike +v2_warp .* slower$' "$gpus.step.40.log")" = "$(grep -cE ' slower$' "$gpus.step.40.log")" ]

# no old build at hand: the host's own nights; 1% noise alone
model=(--night-noise 0.01)
bare="$tmp/bare.db"
history "$bare" two 0
check "two hosts, no re-timing: 0 red of 60 unchanged nights (red: $(tr '\n' ' ' <"$bare.red"))" \
  [ ! -s "$bare.red" ]
check "two hosts, no re-timing: night 2 is not confirmed on this machine" \
  grep -qE "^  [a-z]+/[a-z0-9_]+ .*: ratio 1\.0[5-9][0-9]*x against host 'hosta'; no nights of this host yet" "$bare.2.log"
expect 2 "cannot read the re-timing '$tmp/none/base.db' (--confirm)" -- "$bin" compare --db "$one" --confirm "$tmp/none"
expect 2 "bad value 'x' for --confirm-rounds" -- "$here/../ci/nightly" --confirm-rounds x
[ "$fails" = 0 ] || tail -n 30 "$one.step.40.log" "$gpus.step.40.log"
[ "$fails" = 0 ] && echo "synth_model: one host $(wc -l <"$one.red") red of 60, two hosts 0 of 60 (0 without a re-timing, 0 on two GPUs of one host); the 5% step red on night 40 in all"
exit $((fails > 0))
