// The matrix products of one step of issue 23's LoRA bench (tests/bench/lora_gpt2.mjs: GPT-2-124M shapes, batch
// 4 × 128 = 512 tokens, r 8 on c_attn and attn.c_proj), shared by lora_products.mjs (each in isolation) and
// step_profile.mjs --step lora --floor (all of them beside the step).
const M = 512, D = 768, V = 50257, R = 8, H = 48, T = 128, HS = 64;
// name, A's stored shape, B's stored shape, and which operand the step reads transposed (a view).
// Forward: linear(x, W) = x·Wᵀ; HF's Conv1D passes its [in, out] weight's transposed view, so its product reads
// the weight row-major (no transpose), while the tied head reads wte [V, D] transposed. Input gradients:
// dX = dY·W, the transpose of the forward's read. LoRA (A [r, in], B [out, r]): h = x·Aᵀ, y += h·Bᵀ; backward
// dh = dy·B, dx += dh·A, dB = dyᵀ·h, dA = dhᵀ·x.
// n: how many times one step of the 12-layer model runs the product (layer 0's input is the frozen embeddings', so
// its c_attn gets no input gradient: 11 of those; the attention's dq = dS·k has att·v's shape: 24 of those).
export const PRODUCTS = [
  { name: 'c_attn fwd x·W', a: [M, D], b: [D, 3 * D], n: 12 },
  { name: 'c_attn dX dY·Wᵀ', a: [M, 3 * D], b: [D, 3 * D], tb: true, n: 11 },
  { name: 'attn c_proj fwd', a: [M, D], b: [D, D], n: 12 },
  { name: 'attn c_proj dX', a: [M, D], b: [D, D], tb: true, n: 12 },
  { name: 'c_fc fwd', a: [M, D], b: [D, 4 * D], n: 12 },
  { name: 'c_fc dX', a: [M, 4 * D], b: [D, 4 * D], tb: true, n: 12 },
  { name: 'mlp c_proj fwd', a: [M, 4 * D], b: [4 * D, D], n: 12 },
  { name: 'mlp c_proj dX', a: [M, D], b: [4 * D, D], tb: true, n: 12 },
  { name: 'head fwd x·wteᵀ', a: [M, D], b: [V, D], tb: true, n: 1 },
  { name: 'head dX dlogits·wte', a: [M, V], b: [V, D], n: 1 },
  { name: 'attn q·kᵀ', a: [H, T, HS], b: [H, T, HS], tb: true, n: 12 },
  { name: 'attn att·v, dq dS·k', a: [H, T, T], b: [H, T, HS], n: 24 },
  { name: 'attn dv attᵀ·dY', a: [H, T, T], b: [H, T, HS], ta: true, n: 12 },
  { name: 'attn datt dY·vᵀ', a: [H, T, HS], b: [H, T, HS], tb: true, n: 12 },
  { name: 'attn dk dSᵀ·q', a: [H, T, T], b: [H, T, HS], ta: true, n: 12 },
  { name: 'lora x·Aᵀ', a: [M, D], b: [R, D], tb: true, n: 24 },
  { name: 'lora c_attn h·Bᵀ', a: [M, R], b: [3 * D, R], tb: true, n: 12 },
  { name: 'lora c_attn dh dY·B', a: [M, 3 * D], b: [3 * D, R], n: 12 },
  { name: 'lora dx dh·A', a: [M, R], b: [R, D], n: 23 },
  { name: 'lora c_attn dB dYᵀ·h', a: [M, 3 * D], b: [M, R], ta: true, n: 12 },
  { name: 'lora dA dhᵀ·x', a: [M, R], b: [M, D], ta: true, n: 24 },
  { name: 'lora c_proj h·Bᵀ', a: [M, R], b: [D, R], tb: true, n: 12 },
  { name: 'lora c_proj dh dY·B', a: [M, D], b: [D, R], n: 12 },
  { name: 'lora c_proj dB dYᵀ·h', a: [M, D], b: [M, R], ta: true, n: 12 },
];

// The operands as the step sees them: stored shapes, transposed over their last two dims when asked (views).
export function operands(sg, p) {
  const a = sg.randn(p.a), b = sg.randn(p.b);
  return { a, b, A: p.ta ? a.transpose(-2, -1) : a, B: p.tb ? b.transpose(-2, -1) : b };
}
