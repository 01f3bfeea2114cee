// nn.MultiheadAttention: the shape checks no other test reached (query/key/value of different
// ranks, a 3-D attnMask of the wrong shape, a keyPaddingMask of the wrong shape), each message
// asserted with the module working after; and its defaults (batchFirst false, bias true, dropout 0,
// averageAttnWeights true, addZeroAttn false, kdim = vdim = embedDim) pinned against PyTorch 1.13:
// the expected values are torch.nn.MultiheadAttention(4, 2) in train() mode with the same weights,
// printed by /usr/bin/python3 (torch 1.13; the script is in the comment at the end of this file).
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg, throwsWith } from './helpers.mjs';

const REF = {"out": [[[-0.09007034450769424, 0.884371280670166, -0.9006925821304321, 0.6238213777542114]], [[-0.03504077345132828, 0.8349553346633911, -0.8911213278770447, 0.6607249975204468]], [[0.1438896358013153, 0.6165006756782532, -0.7844687104225159, 0.7397541999816895]]], "w": [[[0.281957745552063, 0.718042254447937], [0.30199384689331055, 0.6980061531066895], [0.570893406867981, 0.4291066527366638]]], "out3d": [[[-0.12720613181591034, 0.8527202010154724, -0.8221796751022339, 0.5528336763381958]], [[0.010997229255735874, 0.7835614085197449, -0.8699725866317749, 0.6844714879989624]], [[-0.18504971265792847, 0.9466037154197693, -0.8870687484741211, 0.5437788367271423]]], "w3d": [[[0.4976522922515869, 0.5023477077484131], [0.35420626401901245, 0.6457936763763428], [0.32868874073028564, 0.6713111996650696]]]};

const E = 4, L = 3, S = 2;
function built() {
  const m = new sg.nn.MultiheadAttention(E, 2);
  const inW = [], inB = [], outW = [], outB = [];
  for (let i = 0; i < 3 * E; i++) {
    inW.push([0, 1, 2, 3].map((j) => Math.sin(i * E + j) * 0.5));
    inB.push(0.1 * i);
  }
  for (let i = 0; i < E; i++) {
    outW.push([0, 1, 2, 3].map((j) => Math.cos(i * E + j) * 0.5));
    outB.push(0.05 * i);
  }
  const r = m.loadStateDict({ in_proj_weight: sg.tensor(inW), in_proj_bias: sg.tensor(inB), 'out_proj.weight': sg.tensor(outW), 'out_proj.bias': sg.tensor(outB) });
  assert.deepEqual(r, { missingKeys: [], unexpectedKeys: [] });
  return m;
}
const seq = (n, f) => sg.tensor(Array.from({ length: n }, (_, a) => [Array.from({ length: E }, (_, e) => f(a * E + e))]));
const q = () => seq(L, (i) => Math.sin(0.3 * i + 1));
const k = () => seq(S, (i) => Math.cos(0.7 * i));
const v = () => seq(S, (i) => Math.sin(1.1 * i - 0.5));
const AM3 = [[[0, -1], [0.5, 0], [-2, 1]], [[1, 0], [0, 0], [0, -0.5]]];

test('MultiheadAttention defaults: [L, N, E] inputs, biases, no dropout, head-averaged weights over S keys (torch 1.13 values)', () => {
  const m = built();
  m.train();
  assert.equal(m.batchFirst, false);
  assert.deepEqual(m.in_proj_weight.shape, [3 * E, E]);
  assert.equal(m.q_proj_weight, null);
  const [out, w] = m.forward(q(), k(), v());
  assert.deepEqual(out.shape, [L, 1, E]);
  assert.deepEqual(w.shape, [1, L, S]);
  close(out.toArray(), REF.out, 1e-5);
  close(w.toArray(), REF.w, 1e-5);
  // dropout 0 by default: a second training-mode forward is the same.
  close(m.forward(q(), k(), v())[0].toArray(), REF.out, 1e-5);
  // Per-head weights ([N, H, L, S]) average to the default's.
  const [, wh] = m.forward(q(), k(), v(), { averageAttnWeights: false });
  assert.deepEqual(wh.shape, [1, 2, L, S]);
  close(wh.mean(1).toArray(), REF.w, 1e-5);
});

test('MultiheadAttention: a 3-D attnMask [N·H, L, S] is added per head (torch 1.13 values); another shape is an Error naming both', () => {
  const m = built();
  const [out, w] = m.forward(q(), k(), v(), { attnMask: sg.tensor(AM3) });
  close(out.toArray(), REF.out3d, 1e-5);
  close(w.toArray(), REF.w3d, 1e-5);
  throwsWith(() => m.forward(q(), k(), v(), { attnMask: sg.zeros([1, L, S]) }), /^MultiheadAttention: the shape of the 3D attnMask is \[1, 3, 2\], but should be \[2, 3, 2\]\.$/);
  throwsWith(() => m.forward(q(), k(), v(), { attnMask: sg.zeros([2, L, 3]) }), 'the shape of the 3D attnMask is [2, 3, 3], but should be [2, 3, 2].');
  throwsWith(() => m.forward(q(), k(), v(), { attnMask: sg.zeros([2, 2, S]) }), 'the shape of the 3D attnMask is [2, 2, 2], but should be [2, 3, 2].');
});

test('MultiheadAttention: a keyPaddingMask not of shape [N, S] is an Error naming the expected and given shapes', () => {
  const m = built();
  throwsWith(() => m.forward(q(), k(), v(), { keyPaddingMask: sg.tensor([[false, true, false]]) }), /^MultiheadAttention: expected keyPaddingMask of shape \[1, 2\], got \[1, 3\]$/);
  throwsWith(() => m.forward(q(), k(), v(), { keyPaddingMask: sg.tensor([[false], [true]]) }), 'expected keyPaddingMask of shape [1, 2], got [2, 1]');
  throwsWith(() => m.forward(q(), k(), v(), { keyPaddingMask: sg.tensor([false, true]) }), 'expected keyPaddingMask of shape [1, 2], got [2]');
  throwsWith(() => m.forward(q(), k(), v(), { keyPaddingMask: sg.tensor([[false, true], [false, false]]) }), 'expected keyPaddingMask of shape [1, 2], got [2, 2]');
  throwsWith(() => m.forward(q(), k(), v(), { keyPaddingMask: sg.tensor([[[false], [true]]]) }), 'expected keyPaddingMask of shape [1, 2], got [1, 2, 1]');
  // A right one: masking key 1 puts all the weight on key 0.
  const [, w] = m.forward(q(), k(), v(), { keyPaddingMask: sg.tensor([[false, true]]) });
  close(w.toArray(), [[[1, 0], [1, 0], [1, 0]]], 1e-6);
});

test('MultiheadAttention: query, key and value of different ranks are an Error naming the three shapes', () => {
  const m = new sg.nn.MultiheadAttention(E, 2);
  throwsWith(() => m.forward(sg.zeros([3, 1, 4]), sg.zeros([2, 4]), sg.zeros([2, 1, 4])),
    /^MultiheadAttention: query, key and value must have the same number of dims, got \[3, 1, 4\], \[2, 4\], \[2, 1, 4\]$/);
  throwsWith(() => m.forward(sg.zeros([3, 4]), sg.zeros([2, 4]), sg.zeros([2, 1, 4])), 'must have the same number of dims, got [3, 4], [2, 4], [2, 1, 4]');
  // Unbatched, all 2-D: works.
  const [out, w] = m.forward(sg.zeros([3, 4]), sg.zeros([2, 4]), sg.zeros([2, 4]));
  assert.deepEqual(out.shape, [3, 4]);
  assert.deepEqual(w.shape, [3, 2]);
});

const REF2 = {"out": [[[-0.19228002429008484, 0.21566809713840485, -0.08966013044118881, -0.09845654666423798], [-0.12228698283433914, 0.12713894248008728, -0.04392014443874359, -0.06972270458936691], [-0.18530958890914917, 0.3548967242240906, -0.27864232659339905, 0.00936888251453638]], [[-0.21079076826572418, 0.17617855966091156, -0.019525229930877686, -0.15065348148345947], [-0.19385512173175812, 0.13012880086898804, 0.02373937889933586, -0.16116300225257874], [-0.07031551003456116, -0.02880370430648327, 0.107970230281353, -0.1123443990945816]]], "w": [[[0.3484683334827423, 0.0, 0.6515315771102905], [0.49417686462402344, 0.0, 0.5058231353759766], [0.15462501347064972, 0.0, 0.8453749418258667]], [[0.6349433660507202, 0.0810762345790863, 0.28398042917251587], [0.45387953519821167, 0.28578680753707886, 0.26033368706703186], [0.012949245050549507, 0.7843972444534302, 0.20265352725982666]]]};

test('MultiheadAttention with bias false, addBiasKv and batchFirst, a 2-D attnMask and a keyPaddingMask (torch 1.13 values)', () => {
  const N = 2;
  const m = new sg.nn.MultiheadAttention(E, 2, { bias: false, addBiasKv: true, batchFirst: true });
  assert.equal(m.in_proj_bias, null);
  const inW = [], outW = [];
  for (let i = 0; i < 3 * E; i++) inW.push([0, 1, 2, 3].map((j) => Math.sin(i * E + j) * 0.5));
  for (let i = 0; i < E; i++) outW.push([0, 1, 2, 3].map((j) => Math.cos(i * E + j) * 0.5));
  const r = m.loadStateDict({ in_proj_weight: sg.tensor(inW), 'out_proj.weight': sg.tensor(outW), bias_k: sg.tensor([[[0.3, -0.2, 0.1, 0.4]]]), bias_v: sg.tensor([[[-0.5, 0.25, 0.6, -0.1]]]) });
  assert.deepEqual(r, { missingKeys: [], unexpectedKeys: [] });
  const batch = (len, f) => sg.tensor(Array.from({ length: N }, (_, n) => Array.from({ length: len }, (_, a) => Array.from({ length: E }, (_, e) => f(n * len * E + a * E + e)))));
  const q = batch(L, (i) => Math.sin(0.3 * i + 1)), k = batch(S, (i) => Math.cos(0.7 * i)), v = batch(S, (i) => Math.sin(1.1 * i - 0.5));
  const [out, w] = m.forward(q, k, v, { attnMask: sg.tensor([[0, -1], [0.5, 0], [-2, 1]]), keyPaddingMask: sg.tensor([[false, true], [false, false]]) });
  assert.deepEqual(out.shape, [N, L, E]);
  assert.deepEqual(w.shape, [N, L, S + 1]);
  close(out.toArray(), REF2.out, 1e-5);
  close(w.toArray(), REF2.w, 1e-5);
});

test('MultiheadAttention: the other argument checks of forward, each naming what it got', () => {
  const m = new sg.nn.MultiheadAttention(E, 2);
  const x = sg.zeros([3, 1, 4]);
  throwsWith(() => m.forward([[0]], x, x), /^MultiheadAttention: expected 'query' to be a Tensor, got \[\[0\]\]$/);
  throwsWith(() => m.forward(x, null, x), "MultiheadAttention: expected 'key' to be a Tensor, got null");
  throwsWith(() => m.forward(x, x, 1), "MultiheadAttention: expected 'value' to be a Tensor, got 1");
  throwsWith(() => m.forward(sg.zeros([4]), sg.zeros([4]), sg.zeros([4])), /^MultiheadAttention: query should be unbatched 2D or batched 3D tensor but received 1-D query tensor$/);
  throwsWith(() => m.forward(sg.zeros([3, 1, 5]), sg.zeros([3, 1, 5]), sg.zeros([3, 1, 5])), /^MultiheadAttention: was expecting embedding dimension of 4, but got 5$/);
  // key and value lengths differ; key or value batch differs from the query's.
  throwsWith(() => m.forward(x, sg.zeros([2, 1, 4]), sg.zeros([3, 1, 4])), /^MultiheadAttention: key \[2, 1, 4\] and value \[3, 1, 4\] do not match query \[3, 1, 4\]$/);
  throwsWith(() => m.forward(x, sg.zeros([2, 2, 4]), sg.zeros([2, 1, 4])), 'key [2, 2, 4] and value [2, 1, 4] do not match query [3, 1, 4]');
  throwsWith(() => m.forward(x, sg.zeros([2, 1, 4]), sg.zeros([2, 2, 4])), 'key [2, 1, 4] and value [2, 2, 4] do not match query [3, 1, 4]');
  // 2-D masks must be [L, S] (L = 3, S = 2 here); a 4-D mask is refused.
  const kv = sg.zeros([2, 1, 4]);
  throwsWith(() => m.forward(x, kv, kv, { attnMask: sg.zeros([2, 2]) }), /^MultiheadAttention: the shape of the 2D attnMask is \[2, 2\], but should be \[3, 2\]\.$/);
  throwsWith(() => m.forward(x, kv, kv, { attnMask: sg.zeros([3, 3]) }), 'the shape of the 2D attnMask is [3, 3], but should be [3, 2].');
  throwsWith(() => m.forward(x, kv, kv, { attnMask: sg.zeros([1, 2, 3, 2]) }), /^MultiheadAttention: attnMask's dimension 4 is not supported \(2 or 3\)$/);
  assert.deepEqual(m.forward(x, kv, kv, { attnMask: sg.zeros([3, 2]) })[1].shape, [1, 3, 2]);
});

/* The reference (python3, torch 1.13):
   import torch, math, json
   torch.set_printoptions(precision=8)
   E,H,L,S,N=4,2,3,2,1
   m=torch.nn.MultiheadAttention(E,H)
   with torch.no_grad():
     m.in_proj_weight.copy_(torch.tensor([[math.sin(i*E+j)*0.5 for j in range(E)] for i in range(3*E)]))
     m.in_proj_bias.copy_(torch.tensor([0.1*i for i in range(3*E)]))
     m.out_proj.weight.copy_(torch.tensor([[math.cos(i*E+j)*0.5 for j in range(E)] for i in range(E)]))
     m.out_proj.bias.copy_(torch.tensor([0.05*i for i in range(E)]))
   q=torch.tensor([[[math.sin(0.3*(l*E+e)+1) for e in range(E)]] for l in range(L)])
   k=torch.tensor([[[math.cos(0.7*(s*E+e)) for e in range(E)]] for s in range(S)])
   v=torch.tensor([[[math.sin(1.1*(s*E+e)-0.5) for e in range(E)]] for s in range(S)])
   am=torch.tensor([[[0.0,-1.0],[0.5,0.0],[-2.0,1.0]],[[1.0,0.0],[0.0,0.0],[0.0,-0.5]]])
   m.train()
   o,w=m(q,k,v)
   o2,w2=m(q,k,v,attn_mask=am)
   print(json.dumps({'out':o.tolist(),'w':w.tolist(),'out3d':o2.tolist(),'w3d':w2.tolist()}))

   And for the bias-false / addBiasKv / batchFirst case:
   import torch, math, json
   E,H,L,S,N=4,2,3,2,2
   m=torch.nn.MultiheadAttention(E,H,bias=False,add_bias_kv=True,batch_first=True)
   with torch.no_grad():
     m.in_proj_weight.copy_(torch.tensor([[math.sin(i*E+j)*0.5 for j in range(E)] for i in range(3*E)]))
     m.out_proj.weight.copy_(torch.tensor([[math.cos(i*E+j)*0.5 for j in range(E)] for i in range(E)]))
     m.bias_k.copy_(torch.tensor([[[0.3,-0.2,0.1,0.4]]]))
     m.bias_v.copy_(torch.tensor([[[-0.5,0.25,0.6,-0.1]]]))
   q=torch.tensor([[[math.sin(0.3*(n*L*E+l*E+e)+1) for e in range(E)] for l in range(L)] for n in range(N)])
   k=torch.tensor([[[math.cos(0.7*(n*S*E+s*E+e)) for e in range(E)] for s in range(S)] for n in range(N)])
   v=torch.tensor([[[math.sin(1.1*(n*S*E+s*E+e)-0.5) for e in range(E)] for s in range(S)] for n in range(N)])
   am=torch.tensor([[0.0,-1.0],[0.5,0.0],[-2.0,1.0]])
   kpm=torch.tensor([[False,True],[False,False]])
   o,w=m(q,k,v,attn_mask=am,key_padding_mask=kpm)
   print(json.dumps({'out':o.tolist(),'w':w.tolist()}))
*/
