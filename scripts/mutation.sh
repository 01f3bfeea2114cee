#!/usr/bin/env bash
# Mutation testing, sampled and seeded (issue 28): how many seeded defects the tests catch.
#   bash scripts/mutation.sh [--budget-min N] [--seed S] [--ts-regions R] [--ts-window L] [--ts-tests T] [--ts-extra-tests F,...] [--ts-measure M] [--ts-no-checker] [--ts-code-only] [--cpp-mutants K] [--cpp-tests-near] [--only ts|cpp]
#   npm/src:                 Stryker (@stryker-mutator/core, TypeScript checker, tap runner over the
#                            node:test files) on R seeded regions of L lines (30), each against the fewest test
#                            files (at most T, 3) that together execute every line of it that the last covered
#                            Node run executed (scripts/mutation_ts.mjs); --ts-no-checker (CI's sample) runs
#                            Stryker without the TypeScript checker: mutants TypeScript would reject are then
#                            run as JavaScript and count killed or survived (none is a compile error).
#                            Measured 2026-11-30 (load 3-8) on one 4-line region, 9 mutants: 153 s wall, 80 s
#                            CPU with the checker (7 compile errors, 2 killed), 65 s and 40 s without (9 killed).
#                            --ts-code-only draws a region again until it holds a line of code (not only
#                            comments or types), so that CI's 4 lines hold a mutant to score
#   src/ops + src/kernels:   K seeded operator swaps, each compiled into the native doctest binary
#                            and run (scripts/mutation_cpp.mjs says why not a packaged tool); with
#                            --cpp-tests-near only against the doctest files named like the mutated
#                            file (CI's smoke sample: seconds, not a whole ASan run)
# Prints the score per folder and every surviving mutant (scripts/mutation_report.mjs); mutants
# recorded in .ci/mutation-equivalent.txt (with their reason) are not counted. The sample sizes
# default from the budget (measured on 2 loaded cores: a Stryker region of 30 lines takes about
# 3 minutes with its start-up, a C++ mutant 1-2 minutes); the C++ runner also stops starting
# mutants once its half of the budget is spent. Needs npm/dist built (build.sh js) and a native
# build (build.sh native or cov); picks the tests per region from the last covered Node run
# (scripts/coverage.sh ts) where it is still current for the region's source, else measures the
# likeliest test files under coverage first (at most --ts-measure of them per region, within a
# quarter of the TypeScript half of the budget: scripts/mutation_ts_tests.mjs), and skips C++
# mutants on lines the last coverage run never reached.
# Exits non-zero only when the machinery fails (not on a low score: the floors are coverage's).
set -uo pipefail
cd "$(dirname "$0")/.."
budget=20 seed=1 regions= window=30 tests=3 extra= measure=4 nochecker= codeonly= cpp= near= only=
while (($#)); do
  case $1 in
    --budget-min) budget=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --ts-regions) regions=$2; shift 2 ;;
    --ts-window) window=$2; shift 2 ;;
    --ts-tests) tests=$2; shift 2 ;;
    --ts-extra-tests) extra=$2; shift 2 ;;
    --ts-measure) measure=$2; shift 2 ;;
    --ts-no-checker) nochecker=--no-checker; shift ;;
    --ts-code-only) codeonly=--code-only; shift ;;
    --cpp-mutants) cpp=$2; shift 2 ;;
    --cpp-tests-near) near=--tests-near; shift ;;
    --only) only=$2; shift 2 ;;
    *) echo "usage: scripts/mutation.sh [--budget-min N] [--seed S] [--ts-regions R] [--ts-window L] [--ts-tests T] [--ts-extra-tests F,...] [--ts-measure M] [--ts-no-checker] [--ts-code-only] [--cpp-mutants K] [--cpp-tests-near] [--only ts|cpp]" >&2; exit 2 ;;
  esac
done
half=$(( (budget + 1) / 2 ))
regions=${regions:-$(( half / 3 > 0 ? half / 3 : 1 ))}
cpp=${cpp:-$(( half > 1 ? half : 1 ))}
out=build/mutation
rm -rf "$out/ts/mutation.json" "$out/cpp/result.json"
rc=0
# C++ first: with --cpp-tests-near (CI's sample) it takes seconds, and Stryker's start-up does not
# then leave it to a time limit.
if [ "$only" != ts ]; then
  echo "== mutation: src/ops + src/kernels, operator swaps, seed $seed, $cpp mutants, budget $half min"
  node scripts/mutation_cpp.mjs --seed "$seed" --mutants "$cpp" --budget-min "$half" $near --out "$out/cpp" || rc=1
fi
if [ "$only" != cpp ]; then
  echo "== mutation: npm/src, Stryker${nochecker:+ without the TypeScript checker}, seed $seed, $regions regions"
  node scripts/mutation_ts.mjs --seed "$seed" --regions "$regions" --window "$window" --tests-per-region "$tests" ${extra:+--extra-tests "$extra"} --measure-per-region "$measure" --measure-budget-s $((half * 15)) $nochecker $codeonly --out "$out/ts" || rc=1
fi
node scripts/mutation_report.mjs "$out" || rc=1
exit $rc
