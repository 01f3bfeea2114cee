// Preloaded (node -r) into every test process that Stryker's tap runner starts (scripts/mutation_ts.mjs),
// so that the test files that start Dawn can take part in a mutation run.
// Why: Dawn keeps Node alive, so those files end with process.exit once their tests are done
// (tests/js/webgpu_env.mjs exitAfterTests, or their own after hook). A file run directly by
// node (not under --test) has node:test end its root test, printing the TAP plan ("1..N") and the
// summary, on 'beforeExit', which an exit called earlier never reaches: the tap runner then read
// no plan and counted the file as failed, failing Stryker's dry run and the whole sample.
// What: the first process.exit first emits 'beforeExit' (node:test ends the root test: the plan,
// the summary, and process.exitCode = 1 when a test failed), then exits a moment later, once that
// output has been written, with the code node:test set (else the one asked for).
'use strict';
const realExit = process.exit;
let exiting = false;
process.exit = function exitAfterTapSummary(code) {
  if (exiting) return realExit.call(process, code);
  exiting = true;
  process.emit('beforeExit', code ?? 0);
  setTimeout(() => realExit.call(process, process.exitCode || code || 0), 200);
};
