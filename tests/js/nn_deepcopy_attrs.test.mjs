// Module.deepCopy (copy.deepcopy(module)) with plain attributes beside its parameters: as Python's
// deepcopy, the copy's arrays and plain objects are its own (changing them leaves the original's
// alone) with the same contents; numbers, strings, booleans and null stay as they are; an object of
// another class (a Map here) stays a Map with its entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

class Holder extends sg.nn.Module {
  constructor() {
    super();
    this.fc = new sg.nn.Linear(2, 1);
    this.sizes = [3, 4];
    this.config = { depth: 2, name: 'h' };
    this.scale = 0.5;
    this.label = 'x';
    this.flag = true;
    this.nothing = null;
    this.table = new Map([['a', 1]]);
  }
}

test('deepCopy: arrays and plain objects are copied (same contents, own identity); primitives, null and class instances kept', () => {
  const m = new Holder();
  const c = m.deepCopy();
  assert.deepEqual(c.sizes, [3, 4]);
  assert.notEqual(c.sizes, m.sizes);
  c.sizes.push(5);
  assert.deepEqual(m.sizes, [3, 4]);
  assert.deepEqual(c.config, { depth: 2, name: 'h' });
  assert.notEqual(c.config, m.config);
  c.config.depth = 7;
  assert.equal(m.config.depth, 2);
  assert.equal(c.scale, 0.5);
  assert.equal(c.label, 'x');
  assert.equal(c.flag, true);
  assert.equal(c.nothing, null);
  assert.ok(c.table instanceof Map);
  assert.deepEqual([...c.table], [['a', 1]]);
  assert.notEqual(c.fc, m.fc);
  m.dispose();
  c.dispose();
});
