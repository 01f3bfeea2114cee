// Tiny transformer demo, page side: the loss plot, the stream of samples and on-demand writing.
import { setupDemo } from '../common/demo.js';
import { LinePlot } from '../common/plot.js';

const $ = (id) => document.getElementById(id);
const plot = new LinePlot($('plot'), [{ name: 'loss', label: 'loss', color: '#2f6fde', smooth: 0.85 }]);
const samples = $('samples');
const form = $('sample-form');
let cleared = false;

fetch('./rhymes.txt')
  .then((r) => r.text())
  .then((t) => ($('source').textContent = t));

/** Appends a sample (newest on top, at most 12 kept). */
function addSample({ step, prompt, text }) {
  if (!cleared) {
    samples.textContent = '';
    cleared = true;
  }
  const item = document.createElement('div');
  item.className = 'sample-item';
  const head = document.createElement('div');
  head.className = 'sample-step';
  head.textContent = `step ${step}`;
  const body = document.createElement('pre');
  body.className = 'sample';
  const p = document.createElement('span');
  p.className = 'prompt';
  p.textContent = prompt.trim() ? prompt : '';
  // Early models emit runs of newlines; more than one blank line in a row is shown as one.
  body.append(p, text.replace(/\n{3,}/g, '\n\n'));
  item.append(head, body);
  samples.prepend(item);
  while (samples.children.length > 12) samples.lastChild.remove();
}

const api = setupDemo({
  worker: new URL('./worker.js', import.meta.url),
  trainer: new URL('./trainer.js', import.meta.url),
  config: () => ({ seed: 0 }),
  stepsPerRun: 600,
  onReady() {
    $('write').disabled = false;
  },
  onProgress(msg) {
    if (Number.isFinite(msg.lossMean)) plot.push('loss', msg.step, msg.lossMean);
  },
  onReport(msg) {
    $('vocab').textContent = String(msg.vocab);
    $('uniform').textContent = `ln ${msg.vocab} ≈ ${Math.log(msg.vocab).toFixed(2)}`;
    $('model-note').textContent = `${msg.params.toLocaleString('en')} parameters · vocabulary of ${msg.vocab} characters · ${msg.chars.toLocaleString('en')} characters of text · context ${msg.context}`;
    if (msg.sample) addSample(msg.sample);
  },
  onReset() {
    plot.clear();
    samples.innerHTML = '<p class="note">Reset: a new model with fresh weights.</p>';
    cleared = false;
  },
});
form.elements.temperature.addEventListener('input', () => (form.elements.tempOut.value = form.elements.temperature.value));
$('write').addEventListener('click', async () => {
  const f = new FormData(form);
  $('write').disabled = true;
  try {
    const r = await api.request('sample', { prompt: String(f.get('prompt')), temperature: Number(f.get('temperature')), chars: Number(f.get('chars')) });
    const out = $('on-demand');
    out.textContent = '';
    const p = document.createElement('span');
    p.className = 'prompt';
    p.textContent = r.prompt;
    out.append(p, r.text);
  } catch (e) {
    api.setStatus(`write: ${e.message}`, 'error');
  } finally {
    $('write').disabled = false;
  }
});
