// Canvas views of the digits demo: the confusion matrix and the class-probability bars.

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';

/** Sizes the canvas backing store to its CSS size × devicePixelRatio; returns [context, width, height]. */
function hidpi(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || canvas.width;
  const h = canvas.clientHeight || canvas.height;
  if (canvas.width !== Math.round(w * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  return [g, w, h];
}

/** matrix: 100 counts, row = true digit, column = prediction (or null: empty grid). */
export function drawConfusion(canvas, matrix) {
  const [g, w, h] = hidpi(canvas);
  const left = 30;
  const top = 36;
  const cell = Math.floor(Math.min(w - left - 4, h - top - 4) / 10);
  g.font = `12px ${FONT}`;
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillStyle = '#5d6677';
  g.fillText('predicted →', left + cell * 5, 9);
  for (let i = 0; i < 10; i++) {
    g.fillText(String(i), left + i * cell + cell / 2, top - 9);
    g.fillText(String(i), left - 10, top + i * cell + cell / 2);
  }
  for (let r = 0; r < 10; r++) {
    const rowSum = matrix ? matrix.slice(r * 10, r * 10 + 10).reduce((a, b) => a + b, 0) : 0;
    for (let c = 0; c < 10; c++) {
      const n = matrix ? matrix[r * 10 + c] : 0;
      const frac = rowSum ? n / rowSum : 0;
      // Diagonal in blue (correct), off-diagonal in orange (mistakes); intensity = share of the row.
      const hue = r === c ? '47, 111, 222' : '224, 116, 43';
      const a = r === c ? frac : Math.min(1, frac * 4);
      g.fillStyle = n ? `rgba(${hue}, ${0.08 + 0.92 * a})` : '#f3f5f8';
      g.fillRect(left + c * cell + 1, top + r * cell + 1, cell - 2, cell - 2);
      if (n) {
        g.fillStyle = a > 0.55 ? '#fff' : '#1d2330';
        g.font = `${n >= 100 ? 10 : 11}px ${FONT}`;
        g.fillText(String(n), left + c * cell + cell / 2, top + r * cell + cell / 2 + 0.5);
      }
    }
  }
}

/** probs: 10 probabilities (or null). */
export function drawBars(canvas, probs) {
  const [g, w, h] = hidpi(canvas);
  const gap = 6;
  const bw = (w - gap * 9) / 10;
  const base = h - 18;
  const best = probs ? probs.indexOf(Math.max(...probs)) : -1;
  g.font = `12px ${FONT}`;
  g.textAlign = 'center';
  for (let d = 0; d < 10; d++) {
    const x = d * (bw + gap);
    const p = probs ? probs[d] : 0;
    g.fillStyle = '#eef1f5';
    g.fillRect(x, 4, bw, base - 4);
    g.fillStyle = d === best ? '#2f6fde' : '#9db7e6';
    const bh = (base - 4) * p;
    g.fillRect(x, base - bh, bw, bh);
    g.fillStyle = d === best ? '#1d2330' : '#5d6677';
    g.textBaseline = 'top';
    g.fillText(String(d), x + bw / 2, base + 4);
    if (probs && p >= 0.05) {
      g.textBaseline = 'bottom';
      g.fillStyle = p > 0.25 ? '#fff' : '#1d2330';
      g.fillText(`${Math.round(p * 100)}`, x + bw / 2, p > 0.25 ? base - bh + 16 : base - bh - 1);
    }
  }
}
