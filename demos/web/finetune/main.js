// Fine-tuning demo, page side: the tokenizer (sg.tokenizers on this page, where the import map
// resolves its library), the text and model pickers, the loss plot, before/after samples and the
// adapter download. Training runs in the worker (trainer.js).
import { init } from 'simdgrad';
import { setupDemo } from '../common/demo.js';
import { LinePlot } from '../common/plot.js';

const $ = (id) => document.getElementById(id);
const DEFAULT_TEXT = `The Owl and the Pussy-cat went to sea
   In a beautiful pea-green boat,
They took some honey, and plenty of money,
   Wrapped up in a five-pound note.
The Owl looked up to the stars above,
   And sang to a small guitar,
"O lovely Pussy! O Pussy, my love,
   What a beautiful Pussy you are,
      You are,
      You are!
What a beautiful Pussy you are!"
`;
const plot = new LinePlot($('plot'), [{ name: 'loss', label: 'loss', color: '#2f6fde', smooth: 0.8 }]);
$('text').value = DEFAULT_TEXT;

const sg = await init();
let modelFiles = null; // null: the default model (./model/), fetched by the worker
let tokenizer = await loadTokenizer(null);
let tokensPerStep = 0;

async function loadTokenizer(files) {
  if (files) return sg.tokenizers.fromPretrained(files);
  const own = {};
  for (const name of ['tokenizer.json', 'tokenizer_config.json']) {
    const r = await fetch(new URL(`./model/${name}`, import.meta.url));
    if (!r.ok) throw new Error(`cannot fetch model/${name} (${r.status})`);
    own[name] = await r.text();
  }
  return sg.tokenizers.fromPretrained(own);
}

function config() {
  const ids = tokenizer.encode($('text').value, { addSpecialTokens: false });
  return { ids, promptIds: ids.slice(0, 12), files: modelFiles, eosTokenId: tokenizer.eosTokenId, seed: 0 };
}

function show(el, ids) {
  const promptLen = Math.min(12, ids.length);
  el.textContent = '';
  const p = document.createElement('span');
  p.className = 'prompt';
  p.textContent = tokenizer.decode(ids.slice(0, promptLen), { skipSpecialTokens: true });
  el.append(p, tokenizer.decode(ids.slice(promptLen), { skipSpecialTokens: true }));
}

async function writeAfter() {
  $('write').disabled = true;
  try {
    const r = await api.request('sample');
    show($('after'), r.ids);
    $('after-step').textContent = `(step ${r.step})`;
  } catch (e) {
    api.setStatus(`write: ${e.message}`, 'error');
  } finally {
    $('write').disabled = false;
  }
}

const api = setupDemo({
  worker: new URL('./worker.js', import.meta.url),
  trainer: new URL('./trainer.js', import.meta.url),
  config,
  stepsPerRun: 200,
  onReady() {
    $('write').disabled = false;
    $('download').disabled = false;
  },
  onProgress(msg) {
    if (Number.isFinite(msg.lossMean)) plot.push('loss', msg.step, msg.lossMean);
    const mem = msg.memory ? ` · ${(msg.memory.bytes / 2 ** 20).toFixed(1)} MB in ${msg.memory.tensors} tensors` : '';
    if (msg.stepsPerSec && tokensPerStep) $('rate').textContent = `${Math.round(msg.stepsPerSec * tokensPerStep).toLocaleString('en')} tokens/s${mem}`;
    if (!msg.running && msg.step > 0) writeAfter();
  },
  onReport(msg) {
    tokensPerStep = msg.tokensPerStep;
    $('model-note').textContent = `${msg.model}: ${msg.total.toLocaleString('en')} parameters, ${msg.trainable.toLocaleString('en')} trainable (LoRA) · your text: ${msg.textTokens.toLocaleString('en')} tokens · vocabulary ${tokenizer.vocabSize}`;
    if (msg.before) show($('before'), msg.before);
  },
  onReset() {
    plot.clear();
    $('before').textContent = '…';
    $('after').textContent = 'Train, then the model writes here again from the same prompt and seed.';
    $('after-step').textContent = '';
  },
});

$('use-text').addEventListener('click', () => api.reset());
$('text-file').addEventListener('change', async (ev) => {
  const f = ev.target.files?.[0];
  if (!f) return;
  $('text').value = await f.text();
  api.reset();
});
$('model-folder').addEventListener('change', async (ev) => {
  const files = {};
  for (const f of ev.target.files ?? []) files[f.name] = new Uint8Array(await f.arrayBuffer());
  try {
    tokenizer = await loadTokenizer(files);
    modelFiles = files;
    api.reset();
  } catch (e) {
    api.setStatus(`model folder: ${e.message}`, 'error');
  }
});
$('write').addEventListener('click', writeAfter);
$('download').addEventListener('click', async () => {
  try {
    const files = await api.request('adapter');
    for (const [name, data] of Object.entries(files)) {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([data], { type: name.endsWith('.json') ? 'application/json' : 'application/octet-stream' }));
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    }
  } catch (e) {
    api.setStatus(`download: ${e.message}`, 'error');
  }
});
