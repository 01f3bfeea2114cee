// The doctest runner: every other tests/native/*.cpp only holds TEST_CASEs.
// Run: build/native/simdgrad_tests --no-colors   (or node build/wasm/simdgrad_tests.js --no-colors)
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
