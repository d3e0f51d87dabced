#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_registry passes, and its refusals are said on stderr in words that name the table, its
# source file and the two API versions.   tests/registry.sh TEST_REGISTRY
out=$("$1" 2>&1)
rc=$?
echo "$out"
[ "$rc" = 0 ] || exit 1
grep -q "algorithm 'future_api' (.*test_registry.c) refused: built against the gpuregress algorithm API 999, this runner has API 2" <<<"$out" ||
  { echo "FAIL: no refusal of future_api"; exit 1; }
grep -q "algorithm 'no_variants' (.*) refused: a table without a name or without variants" <<<"$out" ||
  { echo "FAIL: no refusal of no_variants"; exit 1; }
