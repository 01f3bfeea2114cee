// A small live line plot on a <canvas>: training step on x, a left axis scaled to the data (the loss)
// and an optional fixed right axis (accuracy, 0..100 %). Redraws at most once per animation frame.

const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';

/** Rounds a span to a "nice" tick step (1, 2, 5 × 10^k). */
function niceStep(span, ticks) {
  const raw = span / Math.max(1, ticks);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n < 1.5 ? 1 : n < 3.5 ? 2 : n < 7.5 ? 5 : 10) * mag;
}

function formatTick(v, step) {
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  return v.toFixed(Math.min(digits, 4));
}

export class LinePlot {
  /**
   * series: [{ name, label, color, axis: 'left' | 'right', smooth?: number (EMA factor, drawn over the raw line) }]
   * options: { leftLabel, rightLabel, rightMax (default 1, formatted as %), logLeft?: false }
   */
  constructor(canvas, series, options = {}) {
    this.canvas = canvas;
    this.series = series.map((s) => ({ ...s, xs: [], ys: [], ema: [] }));
    this.options = { rightMax: 1, ...options };
    this.pending = false;
    new ResizeObserver(() => this.request()).observe(canvas);
  }

  push(name, x, y) {
    const s = this.series.find((t) => t.name === name);
    if (!s || !Number.isFinite(y)) return;
    s.xs.push(x);
    s.ys.push(y);
    const prev = s.ema.length ? s.ema[s.ema.length - 1] : y;
    s.ema.push(s.smooth ? prev + (1 - s.smooth) * (y - prev) : y);
    this.request();
  }

  clear() {
    for (const s of this.series) s.xs.length = s.ys.length = s.ema.length = 0;
    this.request();
  }

  request() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.draw();
    });
  }

  draw() {
    const c = this.canvas;
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth;
    const h = c.clientHeight;
    if (!w || !h) return;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    g.font = FONT;
    const hasRight = this.series.some((s) => s.axis === 'right');
    const pad = { l: 48, r: hasRight ? 46 : 14, t: 26, b: 26 };
    const pw = w - pad.l - pad.r;
    const ph = h - pad.t - pad.b;

    const all = this.series.flatMap((s) => s.xs);
    const xMax = Math.max(10, ...all);
    const left = this.series.filter((s) => s.axis !== 'right').flatMap((s) => s.ys);
    let yMax = left.length ? Math.max(...left) : 1;
    let yMin = left.length ? Math.min(0, ...left) : 0;
    if (yMax - yMin < 1e-6) yMax = yMin + 1;
    const yStep = niceStep(yMax - yMin, 4);
    yMax = Math.ceil(yMax / yStep) * yStep;
    yMin = Math.floor(yMin / yStep) * yStep;
    const X = (x) => pad.l + (x / xMax) * pw;
    const YL = (y) => pad.t + ph - ((y - yMin) / (yMax - yMin)) * ph;
    const YR = (y) => pad.t + ph - (y / this.options.rightMax) * ph;

    // Grid and axes.
    g.strokeStyle = '#e6e9ef';
    g.fillStyle = '#5d6677';
    g.lineWidth = 1;
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    for (let y = yMin; y <= yMax + yStep / 2; y += yStep) {
      const py = Math.round(YL(y)) + 0.5;
      g.beginPath();
      g.moveTo(pad.l, py);
      g.lineTo(pad.l + pw, py);
      g.stroke();
      g.fillText(formatTick(y, yStep), pad.l - 6, py);
    }
    if (hasRight) {
      g.textAlign = 'left';
      for (let k = 0; k <= 4; k++) {
        const v = (k / 4) * this.options.rightMax;
        g.fillText(`${Math.round((v / this.options.rightMax) * 100)}%`, pad.l + pw + 6, YR(v));
      }
    }
    const xStep = niceStep(xMax, 6);
    g.textAlign = 'center';
    g.textBaseline = 'top';
    for (let x = 0; x <= xMax; x += xStep) g.fillText(String(Math.round(x)), X(x), pad.t + ph + 6);
    g.strokeStyle = '#b9c0cc';
    g.strokeRect(pad.l + 0.5, pad.t + 0.5, pw, ph);

    // Series: the raw values faint, the smoothed curve on top.
    for (const s of this.series) {
      const Y = s.axis === 'right' ? YR : YL;
      const lines = s.smooth ? [[s.ys, 0.25, 1], [s.ema, 1, 2]] : [[s.ys, 1, 2]];
      for (const [ys, alpha, width] of lines) {
        if (!ys.length) continue;
        g.globalAlpha = alpha;
        g.strokeStyle = s.color;
        g.lineWidth = width;
        g.beginPath();
        ys.forEach((y, i) => (i ? g.lineTo(X(s.xs[i]), Y(y)) : g.moveTo(X(s.xs[i]), Y(y))));
        g.stroke();
        if (ys.length === 1) {
          g.fillStyle = s.color;
          g.fillRect(X(s.xs[0]) - 2, Y(ys[0]) - 2, 4, 4);
        }
      }
      g.globalAlpha = 1;
    }

    // Legend (top left) with the latest values.
    g.textAlign = 'left';
    g.textBaseline = 'middle';
    let lx = pad.l;
    for (const s of this.series) {
      const last = s.ema.length ? s.ema[s.ema.length - 1] : null;
      const value = last === null ? '–' : s.axis === 'right' ? `${((last / this.options.rightMax) * 100).toFixed(1)}%` : last.toFixed(3);
      const text = `${s.label ?? s.name}: ${value}`;
      g.fillStyle = s.color;
      g.fillRect(lx, 9, 14, 3);
      g.fillStyle = '#1d2330';
      g.fillText(text, lx + 19, 11);
      lx += g.measureText(text).width + 40;
    }
  }
}
