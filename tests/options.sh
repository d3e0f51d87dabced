#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One option table per command (issue 39): for every command and every option of its table
# (`gpuregress help --options CMD`), the parser takes it, `CMD --help` and `help CMD` (the same
# text) list it, the man page's section of the command lists it, and bash, zsh and fish offer it
# after `gpuregress CMD --`; a value list is offered after its option (export --format), and
# nothing is offered that the command does not take (ack). zsh and fish are driven where they
# are installed (scripts/setup installs them on CI), else that shell is skipped with the reason.
#   tests/options.sh GPUREGRESS MANPAGE
set -u
gr=$1
man=$2
source "$(dirname "$0")/expect.sh"
cd "$tmp" || exit 2
commands=$("$gr" help | awk '{print $1}')
[ "$(wc -w <<<"$commands")" -ge 15 ] || { echo "FAIL: 'help' lists $(wc -w <<<"$commands") commands"; exit 1; }
"$gr" completion bash >c.bash && "$gr" completion zsh >_gpuregress && "$gr" completion fish >c.fish ||
  { echo "FAIL: completion scripts"; exit 1; }
bash -n c.bash || { echo "FAIL: the bash script does not parse"; exit 1; }
have_zsh=$(command -v zsh)
have_fish=$(command -v fish)
[ -n "$have_zsh" ] || echo "skip: zsh is not installed (scripts/setup installs it on CI): zsh not driven"
[ -n "$have_fish" ] || echo "skip: fish is not installed (scripts/setup installs it on CI): fish not driven"

# what each shell offers after "gpuregress CMD --" (one word a line)
bash_offers() {
  bash -c 'source ./c.bash; COMP_WORDS=(gpuregress "$1" "$2"); COMP_CWORD=2; _gpuregress
           printf "%s\n" "${COMPREPLY[@]}"' _ "$1" "$2"
}
zsh_offers() { # the specs the script hands to _arguments, the option names taken out of them
  zsh -f -c 'compdef() { : }; source ./_gpuregress
             _arguments() { print -rl -- "$@" }; compadd() { print -rl -- "$@" }
             words=(gpuregress "$1" --); CURRENT=3; _gpuregress' _ "$1" |
    sed -n 's/^\(([^)]*)\)\{0,1\}\(--[a-z0-9-]*\)[=[].*/\2/p'
}
fish_offers() { fish -c 'source ./c.fish; complete -C "gpuregress $argv[1] $argv[2]"' "$1" "$2" | cut -f1; }

n_opts=0
for c in $commands; do
  opts=$("$gr" help --options "$c") || { echo "FAIL: help --options $c"; fails=$((fails + 1)); continue; }
  n=$(wc -l <<<"$opts")
  check "$c: a table of at most 48 options (getopt table of 64)" [ "$n" -le 48 ]
  help=$("$gr" "$c" --help 2>&1)
  check "$c: 'help $c' is '$c --help'" [ "$help" = "$("$gr" help "$c" 2>&1)" ]
  section=$(awk -v c="$c" '$0 == ".SS " c { on = 1; next } /^\.S[SH] / { on = 0 } on' "$man")
  check "$c: a section in the man page" [ -n "$section" ]
  b=$(bash_offers "$c" --)
  [ -n "$have_zsh" ] && z=$(zsh_offers "$c")
  [ -n "$have_fish" ] && f=$(fish_offers "$c" --)
  for o in $opts; do
    n_opts=$((n_opts + 1))
    if [ "$o" != --status-file ]; then # taken by main for every command: in --help's footer
      grep -q -- "$o\b" <<<"$help" || { echo "FAIL: $c --help lacks $o"; fails=$((fails + 1)); }
      grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" <<<"$section" ||
        { echo "FAIL: the man page's $c section lacks $o"; fails=$((fails + 1)); }
      # the parser takes it: unknown or "takes no value" would name it
      out=$("$gr" "$c" "$o" --help 2>&1 </dev/null)
      ! grep -qE "unknown option|takes no value" <<<"$out" ||
        { echo "FAIL: $c does not parse $o: $out"; fails=$((fails + 1)); }
    fi
    grep -qx -- "$o" <<<"$b" || { echo "FAIL: bash does not offer '$c $o'"; fails=$((fails + 1)); }
    [ -z "$have_zsh" ] || grep -qx -- "$o" <<<"$z" || { echo "FAIL: zsh does not offer '$c $o'"; fails=$((fails + 1)); }
    [ -z "$have_fish" ] || grep -qx -- "$o" <<<"$f" || { echo "FAIL: fish does not offer '$c $o'"; fails=$((fails + 1)); }
  done
  # nothing beyond the table
  extra=$(comm -13 <(sort <<<"$opts") <(grep -- '^--' <<<"$b" | sort))
  check "$c: bash offers nothing the command does not take ($extra)" [ -z "$extra" ]
done
check "every command's options were read ($n_opts)" [ "$n_opts" -ge 100 ]

# values and operands
formats="csv db gbench json junit reproducers"
check "bash offers export --format's values" \
  [ "$(bash -c 'source ./c.bash; COMP_WORDS=(gpuregress export --format ""); COMP_CWORD=3; _gpuregress; printf "%s\n" "${COMPREPLY[@]}"' | sort | xargs)" = "$formats" ]
[ -z "$have_fish" ] || check "fish offers export --format's values" \
  [ "$(fish_offers export '--format ' | sort | xargs)" = "$formats" ]
[ -z "$have_zsh" ] || check "zsh offers export --format's values" \
  grep -q -- '--format=.*(json csv junit gbench db reproducers)' <(zsh -f -c 'compdef() { : }; source ./_gpuregress; _arguments() { print -rl -- "$@" }; words=(gpuregress export --format ""); CURRENT=4; _gpuregress')
check "bash: ack offers no --record" [ -z "$(bash_offers ack -- | grep -x -- --record)" ]
check "bash offers the commands" [ "$(bash -c 'source ./c.bash; COMP_WORDS=(gpuregress co); COMP_CWORD=1; _gpuregress; printf "%s\n" "${COMPREPLY[@]}"' | xargs)" = "compare completion" ]
check "bash offers the variants of the case's algorithm after repro --variant" \
  grep -qx v2_shared <(bash -c 'source ./c.bash; COMP_WORDS=(gpuregress repro "ari n=1 seed=1" --variant ""); COMP_CWORD=4; _gpuregress; printf "%s\n" "${COMPREPLY[@]}"')
check "compare --help lists --max-accuracy-loss" grep -q -- --max-accuracy-loss <("$gr" compare --help)
expect 2 "unknown command 'nosuch'" -- "$gr" help nosuch
expect 2 "unknown shell 'tcsh'" -- "$gr" completion tcsh
[ "$fails" -eq 0 ] && echo "options: ok ($n_opts options of $(wc -w <<<"$commands") commands)"
exit $((fails > 0))
