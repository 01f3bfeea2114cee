// Digits demo, page side: plot, confusion matrix, drawing pad, save/load. Training runs in worker.js.
import { setupDemo } from '../common/demo.js';
import { LinePlot } from '../common/plot.js';
import { drawBars, drawConfusion } from './views.js';
import { drawDigit, toMnist } from './preprocess.js';

const $ = (id) => document.getElementById(id);
const plot = new LinePlot(
  $('plot'),
  [
    { name: 'loss', label: 'loss', color: '#2f6fde', smooth: 0.9 },
    { name: 'acc', label: 'held-out acc', color: '#e0742b', axis: 'right' },
  ],
  { rightMax: 1 },
);
let lastProbs = null;
let confusion = null;
drawConfusion($('confusion'), null);
showMistakes(null);
drawBars($('probs'), null);
drawDigit($('preview'), null);

const demo = setupDemo({
  worker: new URL('./worker.js', import.meta.url),
  trainer: new URL('./trainer.js', import.meta.url),
  config: () => ({ seed: 0 }),
  stepsPerRun: 1500,
  onReady() {
    $('save').disabled = $('load').disabled = false;
  },
  onProgress(msg) {
    if (Number.isFinite(msg.lossMean)) plot.push('loss', msg.step, msg.lossMean);
  },
  onReport(msg) {
    $('epoch').textContent = msg.epoch.toFixed(2);
    $('train-acc').textContent = Number.isFinite(msg.trainAcc) ? `${(msg.trainAcc * 100).toFixed(1)}%` : '–';
    showEvaluation(msg.testAcc, msg.confusion, msg.evalN, msg.mistakes);
    if (msg.fresh) plot.push('acc', msg.step, msg.testAcc);
    // Keep the drawn digit's prediction in step with the model as it learns.
    if (drawn) predict();
  },
  onReset() {
    plot.clear();
    showEvaluation(NaN, null, 0, null);
    $('epoch').textContent = '0.00';
    $('train-acc').textContent = '–';
    if (drawn) setTimeout(predict, 300);
  },
});

function showEvaluation(acc, matrix, n, mistakes) {
  $('test-acc').textContent = Number.isFinite(acc) ? `${(acc * 100).toFixed(1)}%` : '–';
  confusion = n ? matrix : null;
  $('confusion-note').textContent = n ? `(${n} held-out digits)` : '';
  drawConfusion($('confusion'), confusion);
  showMistakes(n ? mistakes : null);
}

/** The first misclassified held-out digits, each with "true → predicted". */
function showMistakes(m) {
  const box = $('mistakes');
  box.textContent = '';
  if (!m) {
    box.innerHTML = '<span class="note">after the first evaluation</span>';
    return;
  }
  if (!m.truth.length) {
    box.innerHTML = '<span class="note">none</span>';
    return;
  }
  m.truth.forEach((truth, i) => {
    const fig = document.createElement('figure');
    const c = document.createElement('canvas');
    c.width = c.height = 56;
    drawDigit(c, Array.from(m.pixels.subarray(i * 784, (i + 1) * 784), (v) => v / 255));
    const cap = document.createElement('figcaption');
    cap.textContent = `${truth} → ${m.pred[i]}`;
    fig.append(c, cap);
    box.append(fig);
  });
}

// Drawing pad: white strokes on black, like the MNIST digits.
const pad = $('pad');
const pg = pad.getContext('2d', { willReadFrequently: true });
let drawn = false;
function clearPad() {
  pg.fillStyle = '#000';
  pg.fillRect(0, 0, pad.width, pad.height);
  drawn = false;
  lastProbs = null;
  drawDigit($('preview'), null);
  drawBars($('probs'), null);
  $('guess').textContent = '?';
  $('guess-conf').textContent = 'draw a digit';
}
clearPad();
let last = null;
const at = (e) => {
  const r = pad.getBoundingClientRect();
  return [((e.clientX - r.left) / r.width) * pad.width, ((e.clientY - r.top) / r.height) * pad.height];
};
pad.addEventListener('pointerdown', (e) => {
  pad.setPointerCapture(e.pointerId);
  last = at(e);
  stroke(last, last);
});
pad.addEventListener('pointermove', (e) => {
  if (!last) return;
  const p = at(e);
  stroke(last, p);
  last = p;
  schedulePredict();
});
pad.addEventListener('pointerup', () => {
  last = null;
  predict();
});
function stroke(a, b) {
  pg.strokeStyle = '#fff';
  pg.lineWidth = 16;
  pg.lineCap = pg.lineJoin = 'round';
  pg.beginPath();
  pg.moveTo(a[0], a[1]);
  pg.lineTo(b[0], b[1]);
  pg.stroke();
  drawn = true;
}
$('clear').addEventListener('click', clearPad);

let predictTimer = 0;
function schedulePredict() {
  if (!predictTimer) predictTimer = setTimeout(() => ((predictTimer = 0), predict()), 150);
}
let inFlight = false;
async function predict() {
  if (!window.simdgradDemo.ready || inFlight) return;
  const pixels = toMnist(pad);
  drawDigit($('preview'), pixels);
  if (!pixels) return;
  inFlight = true;
  try {
    lastProbs = await demo.request('predict', pixels);
    const best = lastProbs.indexOf(Math.max(...lastProbs));
    $('guess').textContent = String(best);
    $('guess-conf').textContent = `${(lastProbs[best] * 100).toFixed(1)}% sure`;
    drawBars($('probs'), lastProbs);
  } catch (e) {
    demo.setStatus(`predict: ${e.message}`, 'error');
  } finally {
    inFlight = false;
  }
}

// Save: the worker returns the safetensors bytes; the page offers them as a download.
$('save').addEventListener('click', async () => {
  try {
    const bytes = await demo.request('save');
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    a.download = `simdgrad-digits-step${window.simdgradDemo.step}.safetensors`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    demo.setStatus(`saved ${(bytes.length / 1024).toFixed(1)} KB (${a.download})`);
  } catch (e) {
    demo.setStatus(`save failed: ${e.message}`, 'error');
  }
});
// A real button (focusable, keyboard-operable) opens the hidden file input.
$('load').addEventListener('click', () => $('load-file').click());
$('load-file').addEventListener('change', async (ev) => {
  const file = ev.target.files?.[0];
  ev.target.value = '';
  if (!file) return;
  if (demo.running) demo.pause();
  try {
    const buf = await file.arrayBuffer();
    const r = await demo.request('load', buf, [buf]);
    showEvaluation(r.accuracy, r.confusion, r.evalN, r.mistakes);
    demo.setStatus(`loaded ${file.name}: ${(r.accuracy * 100).toFixed(1)}% on the ${r.evalN} held-out digits`);
    if (drawn) predict();
  } catch (e) {
    demo.setStatus(`load failed: ${e.message}`, 'error');
  }
});
