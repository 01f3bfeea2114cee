// Loss modules built without options against torch.nn's with its defaults (ignore_index -100,
// reduction 'mean', label_smoothing 0, MultiMarginLoss p 1 and margin 1): PyTorch's loss repr
// prints no settings, so only values pin them. Expected numbers: torch 1.13 on the same inputs
// (printed by /usr/bin/python3; the script is the comment at the end). The class -100 target of
// row 1 is ignored by CrossEntropyLoss/NLLLoss only with the default ignoreIndex.
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg } from './helpers.mjs';

const { nn } = sg;
const T = {"CrossEntropyLoss": 1.1859874725341797, "NLLLoss": 1.1859874725341797, "BCELoss": 0.7854787111282349, "BCEWithLogitsLoss": 0.8494620323181152, "MultiLabelSoftMarginLoss": 0.8494620323181152, "MultiMarginLoss": 0.9333333373069763};
const x = () => sg.tensor([[1, 2, 0.5], [0.1, -1, 0.3], [2, 0, 1]]);
const i32 = (a) => sg.tensor(a, { dtype: 'int32' });

test('CrossEntropyLoss and NLLLoss defaults: ignoreIndex -100, mean, no smoothing', () => {
  const ce = new nn.CrossEntropyLoss();
  assert.equal(ce.ignoreIndex, -100);
  assert.equal(ce.reduction, 'mean');
  assert.equal(ce.labelSmoothing, 0);
  close(ce.forward(x(), i32([2, -100, 0])).item(), T.CrossEntropyLoss, 1e-6);
  const nll = new nn.NLLLoss();
  assert.equal(nll.ignoreIndex, -100);
  close(nll.forward(x().logSoftmax(-1), i32([2, -100, 0])).item(), T.NLLLoss, 1e-6);
});

test('BCELoss, BCEWithLogitsLoss, MultiLabelSoftMarginLoss, MultiMarginLoss defaults: mean (and p 1, margin 1)', () => {
  const q = sg.tensor([[0, 1], [1, 1]]);
  close(new nn.BCELoss().forward(sg.tensor([[0.2, 0.9], [0.6, 0.1]]), q).item(), T.BCELoss, 1e-6);
  const lx = x().narrow(0, 0, 2).narrow(1, 0, 2);
  close(new nn.BCEWithLogitsLoss().forward(lx, q).item(), T.BCEWithLogitsLoss, 1e-6);
  close(new nn.MultiLabelSoftMarginLoss().forward(lx, q).item(), T.MultiLabelSoftMarginLoss, 1e-6);
  const mm = new nn.MultiMarginLoss();
  assert.equal(mm.p, 1);
  assert.equal(mm.margin, 1);
  close(mm.forward(x(), i32([2, 1, 0])).item(), T.MultiMarginLoss, 1e-6);
});

/* The reference (python3, torch 1.13):
   import torch, json
   nn = torch.nn; t = torch.tensor
   x = t([[1., 2., 0.5], [0.1, -1., 0.3], [2., 0., 1.]]); y = t([2, -100, 0])
   r = {}
   r['CrossEntropyLoss'] = nn.CrossEntropyLoss()(x, y).item()
   r['NLLLoss'] = nn.NLLLoss()(x.log_softmax(-1), y).item()
   p = t([[0.2, 0.9], [0.6, 0.1]]); q = t([[0., 1.], [1., 1.]])
   r['BCELoss'] = nn.BCELoss()(p, q).item()
   r['BCEWithLogitsLoss'] = nn.BCEWithLogitsLoss()(x[:2, :2], q).item()
   r['MultiLabelSoftMarginLoss'] = nn.MultiLabelSoftMarginLoss()(x[:2, :2], q).item()
   r['MultiMarginLoss'] = nn.MultiMarginLoss()(x, t([2, 1, 0])).item()
   print(json.dumps(r))
*/
