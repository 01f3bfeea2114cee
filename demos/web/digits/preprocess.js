// Turns a drawing (white ink on black) into a 28×28 digit the way MNIST's digits were made:
// crop to the ink's bounding box, scale so the longer side is 20 px (aspect kept, anti-aliased),
// then place it in a 28×28 field so that its centre of mass sits at the centre (14, 14).

/** canvas: the drawing pad. Returns a Float32Array(784) in [0, 1], or null when nothing is drawn. */
export function toMnist(canvas) {
  const w = canvas.width;
  const h = canvas.height;
  const src = canvas.getContext('2d').getImageData(0, 0, w, h).data;
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (src[(y * w + x) * 4] > 20) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
  }
  if (x1 < 0) return null;
  const bw = x1 - x0 + 1;
  const bh = y1 - y0 + 1;
  const scale = 20 / Math.max(bw, bh);
  const sw = Math.max(1, Math.round(bw * scale));
  const sh = Math.max(1, Math.round(bh * scale));

  // Two-step downscale (half size first) keeps thin strokes from aliasing away.
  const mid = new OffscreenCanvas(Math.max(sw, Math.ceil(bw / 2)), Math.max(sh, Math.ceil(bh / 2)));
  const mg = mid.getContext('2d');
  mg.imageSmoothingQuality = 'high';
  mg.drawImage(canvas, x0, y0, bw, bh, 0, 0, mid.width, mid.height);
  const small = new OffscreenCanvas(sw, sh);
  const sgx = small.getContext('2d', { willReadFrequently: true });
  sgx.imageSmoothingQuality = 'high';
  sgx.drawImage(mid, 0, 0, mid.width, mid.height, 0, 0, sw, sh);
  const px = sgx.getImageData(0, 0, sw, sh).data;

  // Centre of mass of the 20×20 box.
  let mass = 0;
  let cx = 0;
  let cy = 0;
  const box = new Float32Array(sw * sh);
  for (let y = 0; y < sh; y++) {
    for (let x = 0; x < sw; x++) {
      const v = px[(y * sw + x) * 4] / 255;
      box[y * sw + x] = v;
      mass += v;
      cx += v * x;
      cy += v * y;
    }
  }
  if (mass === 0) return null;
  cx /= mass;
  cy /= mass;

  // Shift so the centre of mass lands on pixel centre 14 (clipped at the border, as MNIST's was).
  const out = new Float32Array(784);
  const dx = Math.round(14 - 0.5 - cx);
  const dy = Math.round(14 - 0.5 - cy);
  for (let y = 0; y < sh; y++) {
    const ty = y + dy;
    if (ty < 0 || ty >= 28) continue;
    for (let x = 0; x < sw; x++) {
      const tx = x + dx;
      if (tx >= 0 && tx < 28) out[ty * 28 + tx] = box[y * sw + x];
    }
  }
  return out;
}

/** Draws a 28×28 image (values in [0, 1]) onto a canvas, one block per pixel. */
export function drawDigit(canvas, pixels) {
  const g = canvas.getContext('2d');
  const img = g.createImageData(28, 28);
  for (let i = 0; i < 784; i++) {
    const v = Math.round((pixels?.[i] ?? 0) * 255);
    img.data.set([v, v, v, 255], i * 4);
  }
  const tmp = new OffscreenCanvas(28, 28);
  tmp.getContext('2d').putImageData(img, 0, 0);
  g.imageSmoothingEnabled = false;
  g.drawImage(tmp, 0, 0, canvas.width, canvas.height);
}
