#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Hostile reproducer files (they come from another machine's reproducers/ folder): `bisect FILE`
# refuses each with exit 2 and a message naming the file, before any git or build runs.
#   tests/untrusted_bisect.sh GPUREGRESS
gr=$1
source "$(dirname "$0")/expect.sh"
cd "$tmp" || exit 2
ok='gpuregress-reproducer 1\nkind: correctness\ncase: toy n=65 seed=1\nvariant: v1_blocked\n'
run() { "$gr" bisect --good HEAD~1 --bad HEAD "$1"; }
printf 'gpuregress-reproducer 2\nkind: correctness\ncase: toy n=1 seed=1\nvariant: v\n' >v2.txt
expect 2 "v2.txt': the first line is not 'gpuregress-reproducer 1'" -- run "$tmp/v2.txt"
printf 'kind: correctness\n' >nover.txt
expect 2 "the first line is not" -- run "$tmp/nover.txt"
printf 'gpuregress-reproducer 1\nkind: exploit\ncase: toy n=1 seed=1\nvariant: v\n' >kind.txt
expect 2 "unknown kind 'exploit'" -- run "$tmp/kind.txt"
printf 'gpuregress-reproducer 1\nkind: correctness\ncase: toy n=1 seed=1\nvariant: $(touch pwned)\n' >var.txt
expect 2 "a variant that cannot be one" -- run "$tmp/var.txt"
check "nothing ran from the variant" [ ! -e pwned ]
printf 'gpuregress-reproducer 1\nkind: correctness\ncase: toy n=1\033]0;title\007 seed=1\nvariant: v\n' >esc.txt
expect 2 "holds bytes a reproducer never has" -- run "$tmp/esc.txt"
printf 'gpuregress-reproducer 1\nkind: correctness\ncase: toy n=1\0 seed=1\nvariant: v\n' >nul.txt
expect 2 "holds bytes a reproducer file never has" -- run "$tmp/nul.txt"
printf 'gpuregress-reproducer 1\nkind: correctness\ncase: toy n=1 seed=1\n' >novar.txt
expect 2 "lacks its variant" -- run "$tmp/novar.txt"
{ printf "$ok"; head -c 70000 /dev/zero | tr '\0' a; } >big.txt
expect 2 "is over 65536 bytes" -- run "$tmp/big.txt"
printf 'gpuregress-reproducer 1\nkind: correctness\ncase: %s\nvariant: v\n' "$(head -c 2000 /dev/zero | tr '\0' a)" >long.txt
expect 2 "a case that cannot be one" -- run "$tmp/long.txt"
expect 2 "cannot read" -- run "$tmp/missing.txt"
printf "$ok" >good.txt
expect 2 "disagrees with the file's variant" -- "$gr" bisect --good a --bad b --variant other "$tmp/good.txt"
exit $((fails > 0))
