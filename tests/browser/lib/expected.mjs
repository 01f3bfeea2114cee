// Expected failures of the browser tests, set in one place.
//
// The threaded build (npm/dist/mt/simdgrad-mt.*, init({ threads: n }), features().threads === true)
// is being built on a branch; on main today init({ threads: 2 }) throws. Until it is merged, the
// threaded subtests (api.test.mjs: the API subset with init({ threads: 2 }); vite.test.mjs: the
// Vite-built app with ?threads=2) run and must fail, and are reported as TODO instead of failing
// the suite. Set this to true when the threaded build lands: they then count like any other test.
export const THREADED_BUILD_LANDED = false;

/** node:test options for a subtest that needs the threaded build. */
export const threadedTodo = {
  todo: THREADED_BUILD_LANDED ? false : 'EXPECTED FAILURE until the threaded build lands (THREADED_BUILD_LANDED in tests/browser/lib/expected.mjs)',
};
