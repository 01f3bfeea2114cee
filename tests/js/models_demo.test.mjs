// The Node example demos/node/tiny_gpt.mjs (sg.models.GPT trained on a text, then sampled), run
// shortened: the mean loss of the last 25 steps must be below that of the first 25.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

test('demos/node/tiny_gpt.mjs: 75 steps lower the loss and generate writes a sample', () => {
  const script = new URL('../../demos/node/tiny_gpt.mjs', import.meta.url).pathname;
  const r = spawnSync(process.execPath, [script, '--steps', '75', '--sample', '40'], { encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 0, r.stderr);
  const m = r.stdout.match(/^loss: ([\d.]+) -> ([\d.]+)$/m);
  assert.ok(m, `no loss line in:\n${r.stdout}`);
  const [first, last] = [Number(m[1]), Number(m[2])];
  assert.ok(last < first - 0.3, `loss went from ${first} to ${last}`);
  const sample = r.stdout.split('---')[1];
  assert.ok(sample && sample.includes('\n') && sample.trim().length > 10, `sample: ${JSON.stringify(sample)}`);
});
