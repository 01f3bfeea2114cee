// Vendor fp32 peaks (non-tensor-core FMA rate, boost clock) of GPUs the WebGPU bench may meet,
// matched against the adapter's vendor/architecture/device/description text, for the "fraction of
// peak" column. A GPU not listed gets no fraction: add it with its source.
const PEAKS = [
  { re: /h200|h100.*sxm|gh100/i, fp32: 66900, source: 'NVIDIA H100/H200 SXM datasheet, 67 TFLOPS FP32' },
  { re: /h100/i, fp32: 51200, source: 'NVIDIA H100 PCIe datasheet, 51 TFLOPS FP32' },
  { re: /a100/i, fp32: 19500, source: 'NVIDIA A100 datasheet, 19.5 TFLOPS FP32' },
  { re: /l40s/i, fp32: 91600, source: 'NVIDIA L40S datasheet, 91.6 TFLOPS FP32' },
  { re: /rtx 4090/i, fp32: 82600, source: 'NVIDIA RTX 4090 specifications, 82.6 TFLOPS FP32' },
  { re: /\bt4\b|tesla t4/i, fp32: 8100, source: 'NVIDIA T4 datasheet, 8.1 TFLOPS FP32' },
];

/** { fp32 (GFLOP/s), source } for the adapter text, or null. */
export function peakOf(adapterText) {
  const hit = PEAKS.find((p) => p.re.test(adapterText));
  return hit ? { fp32: hit.fp32, source: hit.source } : null;
}
