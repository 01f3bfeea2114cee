// Playground demo, page side: settings form, decision-boundary heatmap and the loss plot.
import { query, setupDemo } from '../common/demo.js';
import { LinePlot } from '../common/plot.js';

const $ = (id) => document.getElementById(id);
const form = $('settings');
const LIVE = new Set(['lr', 'l1', 'l2']); // applied to the running model; other fields rebuild it

// ?dataset=xor&depth=3... preset the form (handy for links and tests).
for (const el of form.elements) if (el.name && query.has(el.name)) el.value = query.get(el.name);

function config() {
  const f = new FormData(form);
  return {
    dataset: f.get('dataset'),
    noise: Number(f.get('noise')),
    depth: Number(f.get('depth')),
    width: Number(f.get('width')),
    activation: f.get('activation'),
    optimizer: f.get('optimizer'),
    lr: Number(f.get('lr')),
    l1: Number(f.get('l1')),
    l2: Number(f.get('l2')),
    seed: 1,
  };
}

function showOutputs() {
  for (const n of ['noise', 'depth', 'width']) form.elements[`${n}Out`].value = form.elements[n].value;
  const c = config();
  $('model-note').textContent = `MLP 2 → ${Array(c.depth).fill(c.width).join(' → ')} → 2, ${c.activation}`;
}
showOutputs();

const plot = new LinePlot(
  $('plot'),
  [
    { name: 'loss', label: 'loss', color: '#2f6fde', smooth: 0.7 },
    { name: 'acc', label: 'test acc', color: '#e0742b', axis: 'right' },
  ],
  { rightMax: 1 },
);

const demo = setupDemo({
  worker: new URL('./worker.js', import.meta.url),
  trainer: new URL('./trainer.js', import.meta.url),
  config,
  stepsPerRun: 3000,
  onProgress(msg) {
    if (Number.isFinite(msg.lossMean)) plot.push('loss', msg.step, msg.lossMean);
  },
  onReport(msg) {
    drawField(msg);
    $('train-acc').textContent = `${(msg.trainAcc * 100).toFixed(1)}%`;
    $('test-acc').textContent = `${(msg.testAcc * 100).toFixed(1)}%`;
    $('data-loss').textContent = Number.isFinite(msg.dataLoss) ? msg.dataLoss.toFixed(3) : '–';
    if (msg.step > 0) plot.push('acc', msg.step, msg.testAcc);
    $('model-note').textContent = `${$('model-note').textContent.split(' · ')[0]} · ${msg.params} parameters`;
  },
  onReset() {
    plot.clear();
  },
});

form.addEventListener('input', (ev) => {
  showOutputs();
  const name = ev.target.name;
  if (!window.simdgradDemo.ready) return;
  if (LIVE.has(name)) {
    const c = config();
    demo.request('tune', { lr: c.lr, l1: c.l1, l2: c.l2 }).catch((e) => demo.setStatus(e.message, 'error'));
  } else {
    // A new model: keep training if it was training.
    const wasRunning = demo.running;
    demo.reset();
    if (wasRunning) demo.start();
  }
});

// Heatmap: p(class 1) on the lattice, blue (0) → white (0.5) → orange (1), then the points.
const BLUE = [47, 111, 222];
const ORANGE = [224, 116, 43];
function shade(p) {
  const t = Math.abs(p - 0.5) * 2;
  const c = p < 0.5 ? BLUE : ORANGE;
  return c.map((v) => Math.round(255 + (v - 255) * t * 0.55));
}
const lattice = new OffscreenCanvas(1, 1);
function drawField({ surface, grid, points, labels }) {
  const canvas = $('field');
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth;
  if (canvas.width !== Math.round(w * dpr)) canvas.width = canvas.height = Math.round(w * dpr);
  const g = canvas.getContext('2d');
  lattice.width = lattice.height = grid;
  const lg = lattice.getContext('2d');
  const img = lg.createImageData(grid, grid);
  for (let i = 0; i < grid * grid; i++) img.data.set([...shade(surface[i]), 255], i * 4);
  lg.putImageData(img, 0, 0);
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.imageSmoothingEnabled = true;
  g.imageSmoothingQuality = 'high';
  g.drawImage(lattice, 0, 0, canvas.width, canvas.height);
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  // Lattice covers [-1.1, 1.1]²: map data coordinates to CSS pixels.
  const X = (v) => ((v + 1.1) / 2.2) * w;
  const Y = (v) => ((1.1 - v) / 2.2) * w;
  g.lineWidth = 1;
  g.strokeStyle = 'rgba(255,255,255,0.9)';
  for (let i = 0; i < labels.length; i++) {
    g.fillStyle = labels[i] ? 'rgb(224,116,43)' : 'rgb(47,111,222)';
    g.beginPath();
    g.arc(X(points[2 * i]), Y(points[2 * i + 1]), 3.6, 0, 2 * Math.PI);
    g.fill();
    g.stroke();
  }
}
