// sg.F functions called without their options, against PyTorch 1.13's defaults: the expected
// numbers are torch.nn.functional's outputs for the same inputs with every default left as is
// (printed by /usr/bin/python3, torch 1.13; the script is the comment at the end), or hand values
// where torch 1.13 has no such function (rmsNorm: PyTorch 2.4's eps = finfo.eps; sigmoidFocalLoss:
// torchvision's alpha 0.25, gamma 2, reduction 'none'). Each pins a default a mutant could change
// (p, dim, eps, margin, logInput, mode, alignCorners, stride, size, training).
// Fixed here (source): F.alphaDropout and F.featureAlphaDropout defaulted to training = true; PyTorch
// 1.13's F.alpha_dropout / F.feature_alpha_dropout default to training = False (identity).
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg } from './helpers.mjs';

const F = sg.F;
const T = {"tripletMarginLoss": 0.1035529375076294, "marginRankingLoss": 0.3333333432674408, "hingeEmbeddingLoss": 0.5249999761581421, "poissonNllLoss": 0.96855229139328, "poissonNllLossNoLog": 12.651688575744629, "gaussianNllLoss": 41664.78125, "multiMarginLoss": 0.38333332538604736, "normalize": [[0.6000000238418579, 0.800000011920929], [0.10000000149011612, 0.0], [0.0, -1.0]], "hardtanh": [-1.0, -0.5, 0.5, 1.0], "interpolate": [[[[1.0, 1.0, 2.0, 2.0, 3.0, 3.0], [1.0, 1.0, 2.0, 2.0, 3.0, 3.0], [4.0, 4.0, 5.0, 5.0, 6.0, 6.0], [4.0, 4.0, 5.0, 5.0, 6.0, 6.0]]]], "interpolateBilinear": [[[[1.0, 1.625, 2.375, 3.0], [2.5, 3.125, 3.875, 4.5], [4.0, 4.624999523162842, 5.374999523162842, 6.0]]]], "unfold": [[[1.0, 2.0, 4.0, 5.0], [2.0, 3.0, 5.0, 6.0], [4.0, 5.0, 7.0, 8.0], [5.0, 6.0, 8.0, 9.0]]], "localResponseNorm": [[[0.24999943375587463, 0.49999529123306274, 0.7499842047691345], [0.99996018409729, 1.2499151229858398, 1.4998418092727661], [1.7497334480285645, 1.9995828866958618, 2.2493832111358643], [2.4991273880004883, 2.7488081455230713, 2.9984190464019775]]], "lpPool1d": [[[3.7416574954986572, 8.774964332580566]]]};
const t = (a) => sg.tensor(a);

test('losses without options equal torch 1.13 with its defaults', () => {
  const a = t([[1, 2, 0.5], [0, -1, 3]]), p = t([[1.5, 2, 0], [0.5, -1, 2]]), n = t([[0, 1, 1], [3, 0, 3]]);
  close(F.tripletMarginLoss(a, p, n).item(), T.tripletMarginLoss, 1e-5);
  close(F.marginRankingLoss(t([1, 2, 3]), t([2, 2, 1]), t([1, -1, 1])).item(), T.marginRankingLoss, 1e-6);
  close(F.hingeEmbeddingLoss(t([0.3, 2, -0.5, 0.7]), t([1, -1, -1, -1])).item(), T.hingeEmbeddingLoss, 1e-6);
  close(F.poissonNllLoss(t([0.5, -1, 2]), t([1, 0, 3])).item(), T.poissonNllLoss, 1e-5);
  close(F.poissonNllLoss(t([0.5, 0, 2]), t([1, 2, 3]), { logInput: false }).item(), T.poissonNllLossNoLog, 1e-5);
  close(F.gaussianNllLoss(t([0.5, 1, 2]), t([1, 0, 3]), t([1e-8, 0.5, 2])).item(), T.gaussianNllLoss, 1e-5);
  close(F.multiMarginLoss(t([[0.1, 0.8, 0.3], [1, -1, 0.5]]), sg.tensor([1, 2], { dtype: 'int32' })).item(), T.multiMarginLoss, 1e-6);
});

test('sigmoidFocalLoss defaults: alpha 0.25, gamma 2, reduction none (torchvision)', () => {
  // x = 0: p = 1/2, ce = ln 2, (1 - p_t)^2 = 1/4; alpha_t = 0.25 for target 1, 0.75 for target 0.
  const l = F.sigmoidFocalLoss(t([0, 0]), t([1, 0]));
  assert.deepEqual(l.shape, [2]);
  close(l.toArray(), [0.25 * 0.25 * Math.LN2, 0.75 * 0.25 * Math.LN2], 1e-6);
});

test('normalize (p 2, dim 1, eps 1e-12) and hardtanh (-1, 1) defaults', () => {
  close(F.normalize(t([[3, 4], [1e-13, 0], [0, -2]])).toArray(), T.normalize, 1e-6);
  close(F.hardtanh(t([-3, -0.5, 0.5, 3])).toArray(), T.hardtanh);
});

test('interpolate: mode nearest by default, bilinear with alignCorners false', () => {
  const x = sg.arange(1, 7).float().reshape([1, 1, 2, 3]);
  close(F.interpolate(x, { scaleFactor: 2 }).toArray(), T.interpolate);
  close(F.interpolate(x, { size: [3, 4], mode: 'bilinear' }).toArray(), T.interpolateBilinear, 1e-5);
});

test('unfold (dilation 1, padding 0, stride 1), localResponseNorm (alpha 1e-4, beta 0.75, k 1), lpPool1d (stride = kernel)', () => {
  close(F.unfold(sg.arange(1, 10).float().reshape([1, 1, 3, 3]), 2).toArray(), T.unfold);
  close(F.localResponseNorm(sg.arange(1, 13).float().reshape([1, 4, 3]).div(4), 2).toArray(), T.localResponseNorm, 1e-5);
  close(F.lpPool1d(sg.arange(1, 8).float().reshape([1, 1, 7]), 2, 3).toArray(), T.lpPool1d, 1e-5);
});

test('rmsNorm eps defaults to the dtype\'s machine epsilon (PyTorch 2.4: finfo(dtype).eps)', () => {
  // x = [1e-4, 0]: mean of squares 5e-9; y = x / sqrt(5e-9 + eps).
  const eps = 1.1920928955078125e-7;
  close(F.rmsNorm(t([1e-4, 0]), [2]).toArray(), [1e-4 / Math.sqrt(5e-9 + eps), 0], 1e-5);
});

test('dropout functions: F.dropout/dropout1d/2d/3d train by default (p 0.5), alphaDropout/featureAlphaDropout do not', () => {
  const x = sg.ones([4000]);
  const y = Array.from(F.dropout(x).dataSync());
  assert.ok(y.every((v) => v === 0 || v === 2), 'values 0 or 1/(1 - 0.5)');
  const zeros = y.filter((v) => v === 0).length;
  assert.ok(zeros > 1700 && zeros < 2300, `${zeros} of 4000 dropped`);
  const c = Array.from(F.dropout2d(sg.ones([1, 400, 1, 1])).dataSync());
  assert.ok(c.some((v) => v === 0) && c.some((v) => v === 2));
  // PyTorch 1.13: alpha_dropout(input, p=0.5, training=False): the identity unless training is given.
  const z = sg.randn([200]);
  assert.deepEqual(Array.from(F.alphaDropout(z).dataSync()), Array.from(z.dataSync()));
  assert.deepEqual(Array.from(F.alphaDropout(z, { p: 0.3 }).dataSync()), Array.from(z.dataSync()));
  const f = sg.randn([2, 3, 4]);
  assert.deepEqual(Array.from(F.featureAlphaDropout(f).dataSync()), Array.from(f.dataSync()));
  assert.notDeepEqual(Array.from(F.alphaDropout(z, { training: true }).dataSync()), Array.from(z.dataSync()));
  // The modules follow their train/eval mode.
  const m = new sg.nn.AlphaDropout(0.5);
  assert.notDeepEqual(Array.from(m.forward(z).dataSync()), Array.from(z.dataSync()));
  m.eval();
  assert.deepEqual(Array.from(m.forward(z).dataSync()), Array.from(z.dataSync()));
});

/* The reference (python3, torch 1.13):
   import torch, json
   import torch.nn.functional as F
   t = torch.tensor
   r = {}
   a = t([[1., 2., 0.5], [0., -1., 3.]]); p = t([[1.5, 2., 0.], [0.5, -1., 2.]]); n = t([[0., 1., 1.], [3., 0., 3.]])
   r['tripletMarginLoss'] = F.triplet_margin_loss(a, p, n).item()
   r['marginRankingLoss'] = F.margin_ranking_loss(t([1., 2., 3.]), t([2., 2., 1.]), t([1., -1., 1.])).item()
   r['hingeEmbeddingLoss'] = F.hinge_embedding_loss(t([0.3, 2., -0.5, 0.7]), t([1., -1., -1., -1.])).item()
   r['poissonNllLoss'] = F.poisson_nll_loss(t([0.5, -1., 2.]), t([1., 0., 3.])).item()
   r['poissonNllLossNoLog'] = F.poisson_nll_loss(t([0.5, 0., 2.]), t([1., 2., 3.]), log_input=False).item()
   r['gaussianNllLoss'] = F.gaussian_nll_loss(t([0.5, 1., 2.]), t([1., 0., 3.]), t([1e-8, 0.5, 2.])).item()
   r['multiMarginLoss'] = F.multi_margin_loss(t([[0.1, 0.8, 0.3], [1., -1., 0.5]]), torch.tensor([1, 2])).item()
   r['normalize'] = F.normalize(t([[3., 4.], [1e-13, 0.], [0., -2.]])).tolist()
   r['hardtanh'] = F.hardtanh(t([-3., -0.5, 0.5, 3.])).tolist()
   x = torch.arange(1., 7.).reshape(1, 1, 2, 3)
   r['interpolate'] = F.interpolate(x, scale_factor=2).tolist()
   r['interpolateBilinear'] = F.interpolate(x, size=(3, 4), mode='bilinear').tolist()
   r['unfold'] = F.unfold(torch.arange(1., 10.).reshape(1, 1, 3, 3), 2).tolist()
   y = torch.arange(1., 13.).reshape(1, 4, 3) / 4
   r['localResponseNorm'] = F.local_response_norm(y, 2).tolist()
   r['lpPool1d'] = F.lp_pool1d(torch.arange(1., 8.).reshape(1, 1, 7), 2, 3).tolist()
   print(json.dumps(r))
*/
