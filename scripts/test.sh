#!/usr/bin/env bash
# The whole test suite: lint and format check, type check, then every test file.
# `npm test` runs this after scripts/ensure-deps.mjs has installed the dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== lint and format (biome)"
npx --no-install biome check .
echo "== type check (tsc)"
npx --no-install tsc --noEmit -p .
npx --no-install tsc --noEmit -p console
echo "== build (the compiled runtime and the console, as npm start runs them)"
node -e "import('./scripts/build.mjs').then((b) => b.ensureBuilt())"
node scripts/build-console.mjs
echo "== tests"
mapfile -t files < <(find test src -name '*.test.ts' -not -path '*/node_modules/*' | sort)
exec node --import tsx --test --test-concurrency=2 --test-timeout=300000 "${files[@]}"
