// BertEncoder / BertForMaskedLM start from Hugging Face's BertPreTrainedModel._init_weights (transformers'
// modeling_bert.py): every Linear and Embedding weight N(0, initializerRange), every Linear bias 0, the
// word embedding's padding row (padTokenId) 0, LayerNorm 1 and 0. Expected values are that definition:
// the sample mean and standard deviation of each weight against 0 and initializerRange, with a tolerance
// of six standard errors of the estimate (a sample of n normals has sd(std) ≈ σ/√(2n)), so a wrong
// std (Embedding's own N(0, 1), Linear's Kaiming uniform) or a skipped zero fails.
import assert from 'node:assert/strict';
import test from 'node:test';
import { sg } from './helpers.mjs';

const CONFIG = { vocabSize: 300, hiddenSize: 32, numHiddenLayers: 1, numAttentionHeads: 2, intermediateSize: 64, maxPositionEmbeddings: 40 };

function checkNormal(values, std, what) {
  const n = values.length;
  const mean = values.reduce((a, v) => a + v, 0) / n;
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  assert.ok(Math.abs(mean) < (6 * std) / Math.sqrt(n), `${what}: mean ${mean} for N(0, ${std}), n = ${n}`);
  assert.ok(Math.abs(sd - std) < (6 * std) / Math.sqrt(2 * n), `${what}: std ${sd} for N(0, ${std}), n = ${n}`);
}

/** Every Linear and Embedding of model (by class name), with its path. */
function layers(model) {
  return model.namedModules().filter(([, m]) => m instanceof sg.nn.Linear || m instanceof sg.nn.Embedding);
}

for (const [name, make, range, pad] of [
  ['BertEncoder', () => new sg.models.BertEncoder({ ...CONFIG, initializerRange: 0.05, padTokenId: 7 }), 0.05, 7],
  ['BertEncoder (defaults: 0.02, pad 0)', () => new sg.models.BertEncoder(CONFIG), 0.02, 0],
  ['BertForMaskedLM', () => new sg.models.BertForMaskedLM({ ...CONFIG, initializerRange: 0.1, padTokenId: 299 }), 0.1, 299],
]) {
  test(`${name}: HF's _init_weights (Linear and Embedding N(0, ${range}), biases 0, padding row ${pad} 0)`, () => {
    sg.manualSeed(5);
    const m = make();
    const found = layers(m);
    assert.ok(found.length >= 8, `${found.length} Linear/Embedding layers`);
    for (const [path, layer] of found) {
      const w = Array.from(layer.weight.dataSync());
      if (layer instanceof sg.nn.Embedding && path.endsWith('word_embeddings')) {
        const h = layer.weight.shape[1];
        assert.deepEqual(w.slice(pad * h, (pad + 1) * h), new Array(h).fill(0), `${path}: padding row ${pad}`);
        checkNormal([...w.slice(0, pad * h), ...w.slice((pad + 1) * h)], range, path);
      } else {
        checkNormal(w, range, path);
        if (layer.paddingIdx !== undefined) assert.equal(layer.paddingIdx, null, `${path}: no padding row`);
      }
      if (layer instanceof sg.nn.Linear) assert.deepEqual(Array.from(layer.bias.dataSync()), new Array(layer.bias.numel).fill(0), `${path}: bias`);
    }
    for (const [path, ln] of m.namedModules().filter(([, x]) => x instanceof sg.nn.LayerNorm)) {
      assert.ok(ln.weight.toArray().every((v) => v === 1) && ln.bias.toArray().every((v) => v === 0), `${path}: LayerNorm 1, 0`);
    }
    m.dispose();
  });
}
