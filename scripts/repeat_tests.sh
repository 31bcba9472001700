#!/usr/bin/env bash
# Runs test files N times in a row on every leg: Deno against the sources,
# then Node 20, 22 and 24 against the built npm package (build it first:
# `deno task build:npm`, and `deno task test --node-matrix` once for the
# Node 22/24 binaries). For hunting races: a flaky test fails here first.
#
# Usage: bash scripts/repeat_tests.sh N file.test.ts...   (from the repository root)
# Prints one line per run and a summary; exits 1 when any run failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
times=$1
shift
files=("$@")
nodes=("node")
for major in 22 24; do
  bin="node_modules/.cache/dsh-node/$major/node_modules/node/bin/node"
  [[ -x $bin ]] && nodes+=("$PWD/$bin")
done
failed=0
declare -A passes=()
for ((round = 1; round <= times; round++)); do
  for file in "${files[@]}"; do
    if npx -y deno@2.9.6 test -A --no-check=remote "tests/$file" >"/tmp/repeat-deno-$file.log" 2>&1; then
      passes["deno $file"]=$((${passes["deno $file"]:-0} + 1))
    else
      failed=1
      echo "round $round: deno $file FAILED (log /tmp/repeat-deno-$file.$round.log)"
      cp "/tmp/repeat-deno-$file.log" "/tmp/repeat-deno-$file.$round.log"
    fi
    for node in "${nodes[@]}"; do
      version=$("$node" --version)
      js="${file%.ts}.js"
      if (cd npm && "$node" --test "test/$js") >"/tmp/repeat-node-$file.log" 2>&1; then
        passes["node $version $file"]=$((${passes["node $version $file"]:-0} + 1))
      else
        failed=1
        echo "round $round: node $version $file FAILED (log /tmp/repeat-node-$version-$file.$round.log)"
        cp "/tmp/repeat-node-$file.log" "/tmp/repeat-node-$version-$file.$round.log"
      fi
    done
  done
  echo "round $round done"
done
for key in "${!passes[@]}"; do echo "passed ${passes[$key]}/$times: $key"; done | sort
exit $failed
