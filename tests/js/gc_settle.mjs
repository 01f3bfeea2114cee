// Runs V8's garbage collector and lets the FinalizationRegistry callbacks run, so that tensors
// earlier code forgot (freed by the registry's backstop whenever V8 collects them) are gone before a
// memory count is taken: without it a count can drop in the middle of a test (a webgpu_rnn CI run
// saw 106 live handles after the loop against 108 before it). No sg import: test files with their
// own module instance use it too.
import v8 from 'node:v8';
import vm from 'node:vm';

export async function settleFinalizers() {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  for (let i = 0; i < 2; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
