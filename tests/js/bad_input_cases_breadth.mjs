// Bad-input rows (the format of bad_input_cases.mjs) for the recurrent layers, the newer losses,
// interpolate/Upsample, the Transformer wrapper, ParameterList/Dict, the optimizers Adadelta,
// Adamax, NAdam, RAdam, LBFGS and the newer lr schedulers. Called by buildCases with its add()
// and its helpers, so the runner checks these rows like every other one (an Error with the
// patterns, inputs unchanged, nothing leaked, the module still usable).
import assert from 'node:assert/strict';

export function addBreadthCases(sg, add, { same, linear, withStep }) {
  const { nn, F, optim } = sg;
  const sched = optim.lrScheduler;
  const model = () => ({ m: linear() });

  /** An LSTM(2, 3) with known weights: every weight 0.1, biases 0; its output is checked by hand. */
  const lstm = () => {
    const m = new nn.LSTM(2, 3);
    for (const [, p] of m.namedParameters()) nn.init.constant_(p, 0.1);
    return { m };
  };
  // One step from zero states with x = (1, 1): every gate's pre-activation is
  // a = 0.1·1 + 0.1·1 + 0.1 (bias_ih) + 0.1 (bias_hh) = 0.4, so c = σ(a)·tanh(a), h = σ(a)·tanh(c).
  const lstmOk = ({ m }) => {
    const s = 1 / (1 + Math.exp(-0.4));
    const c = s * Math.tanh(0.4);
    const [out] = m.forward(sg.ones([1, 1, 2]));
    same(out, [[[s * Math.tanh(c), s * Math.tanh(c), s * Math.tanh(c)]]]);
  };

  add('recurrent', [
    { n: 'LSTM on an input of the wrong size', make: lstm, call: ({ m }) => m.forward(sg.ones([4, 1, 3])), err: ['LSTM', /inputSize/, /expected 2, got 3/], ok: lstmOk },
    { n: 'LSTM on a 4-D input', make: lstm, call: ({ m }) => m.forward(sg.ones([4, 1, 1, 2])), err: ['LSTM', /2 \(unbatched\) or 3 dims/, /got 4 dims/], ok: lstmOk },
    { n: 'LSTM with h0 of the wrong shape', make: lstm, call: ({ m }) => m.forward(sg.ones([4, 1, 2]), [sg.zeros([1, 2, 3]), sg.zeros([1, 1, 3])]), err: ['LSTM', /h0 of shape \[1, 1, 3\]/, /got \[1, 2, 3\]/], ok: lstmOk },
    { n: 'LSTM with a single state tensor', make: lstm, call: ({ m }) => m.forward(sg.ones([4, 1, 2]), sg.zeros([1, 1, 3])), err: ['LSTM', /\[h0, c0\]/, /Tensor of shape \[1, 1, 3\]/], ok: lstmOk },
    { n: 'LSTM on an int32 input', make: lstm, call: ({ m }) => m.forward(sg.ones([4, 1, 2], { dtype: 'int32' })), err: ['LSTM', /'input' to be a floating tensor/, /got int32/], ok: lstmOk },
    { n: 'LSTM with projSize equal to hiddenSize', call: () => new nn.LSTM(2, 3, { projSize: 3 }), err: ['LSTM', /projSize has to be smaller than hiddenSize/, /3/] },
    { n: 'GRU with hiddenSize 0', call: () => new nn.GRU(2, 0), err: ['GRU', /'hiddenSize'/, /integer >= 1/, /got 0/] },
    { n: 'GRU with dropout 2', call: () => new nn.GRU(2, 3, { dropout: 2 }), err: ['GRU', /dropout probability/, /got 2/] },
    { n: 'RNN with a misspelled option', call: () => new nn.RNN(2, 3, { num_layers: 2 }), err: ["RNN: unknown option 'num_layers'", /numLayers/] },
    { n: "RNN with nonlinearity 'gelu'", call: () => new nn.RNN(2, 3, { nonlinearity: 'gelu' }), err: ['RNN', /'nonlinearity'/, /'tanh', 'relu'/, /'gelu'/] },
    { n: 'GRUCell with a state of the wrong size', make: () => ({ m: new nn.GRUCell(2, 3) }), call: ({ m }) => m.forward(sg.ones([4, 2]), sg.zeros([4, 2])), err: ['GRUCell', /hx of shape \[4, 3\]/, /got \[4, 2\]/], ok: ({ m }) => assert.deepEqual(m.forward(sg.ones([4, 2])).shape, [4, 3]) },
    { n: 'LSTMCell on a 3-D input', make: () => ({ m: new nn.LSTMCell(2, 3) }), call: ({ m }) => m.forward(sg.ones([1, 4, 2])), err: ['LSTMCell', /1-D or 2-D/, /got 3-D/] },
  ]);

  add('loss more', [
    { n: 'tripletMarginLoss with 3-D inputs', call: () => F.tripletMarginLoss(sg.ones([1, 2, 3]), sg.ones([1, 2, 3]), sg.ones([1, 2, 3])), err: ['tripletMarginLoss', /all 1-D or all 2-D/, /anchor \[1, 2, 3\]/] },
    { n: 'tripletMarginLoss with p -1', call: () => F.tripletMarginLoss(sg.ones([2]), sg.ones([2]), sg.ones([2]), { p: -1 }), err: ['tripletMarginLoss', /'p'/, /positive/, /-1/] },
    { n: 'marginRankingLoss with targets of another rank', call: () => F.marginRankingLoss(sg.ones([3]), sg.ones([3]), sg.ones([1, 3])), err: ['marginRankingLoss', /same number of dims/, /target \[1, 3\]/] },
    { n: 'hingeEmbeddingLoss with an array target', call: () => F.hingeEmbeddingLoss(sg.ones([2]), [1, -1]), err: ['hingeEmbeddingLoss', /'target' to be a Tensor/, /\[1, -1\]/] },
    { n: 'multilabelSoftMarginLoss with a target of another shape', call: () => F.multilabelSoftMarginLoss(sg.ones([2, 3]), sg.ones([3])), err: ['multilabelSoftMarginLoss', /same shape/, /target \[3\]/] },
    { n: 'poissonNllLoss with eps "small"', call: () => F.poissonNllLoss(sg.ones([2]), sg.ones([2]), { eps: 'small' }), err: ['poissonNllLoss', /'eps'/, /finite number/, /'small'/] },
    { n: 'gaussianNllLoss with a negative variance', call: () => F.gaussianNllLoss(sg.ones([2]), sg.ones([2]), sg.tensor([1, -1])), err: ['gaussianNllLoss', /var has negative entry/] },
    { n: 'gaussianNllLoss with var of another size', call: () => F.gaussianNllLoss(sg.ones([2, 3]), sg.ones([2, 3]), sg.ones([3, 2])), err: ['gaussianNllLoss', /var is of incorrect size \[3, 2\]/, /\[2, 3\]/] },
    { n: "sigmoidFocalLoss with reduction 'mean ' ", call: () => F.sigmoidFocalLoss(sg.ones([2]), sg.ones([2]), { reduction: 'mean ' }), err: ['sigmoidFocalLoss', /'reduction'/, /'mean', 'sum', 'none'/] },
    { n: 'TripletMarginLoss with swap "yes"', call: () => new nn.TripletMarginLoss({ swap: 'yes' }), err: ['TripletMarginLoss', /'swap'/, /boolean/, /'yes'/] },
    { n: 'MultiLabelSoftMarginLoss with a number weight', call: () => new nn.MultiLabelSoftMarginLoss({ weight: 2 }), err: ['MultiLabelSoftMarginLoss', /'weight'/, /Tensor or null/, /got 2/] },
  ]);

  add('interpolate', [
    { n: 'interpolate without size or scaleFactor', call: () => F.interpolate(sg.ones([1, 1, 2, 2])), err: ['interpolate', /either size or scaleFactor/] },
    { n: 'interpolate with both size and scaleFactor', call: () => F.interpolate(sg.ones([1, 1, 2, 2]), { size: 4, scaleFactor: 2 }), err: ['interpolate', /only one of size or scaleFactor/] },
    { n: 'interpolate bilinear of a 3-D input', call: () => F.interpolate(sg.ones([1, 2, 2]), { scaleFactor: 2, mode: 'bilinear' }), err: ['interpolate', /'bilinear' expects a 4-D input/, /\[1, 2, 2\]/] },
    { n: 'interpolate nearest with alignCorners', call: () => F.interpolate(sg.ones([1, 1, 2, 2]), { scaleFactor: 2, alignCorners: false }), err: ['interpolate', /alignCorners/, /'nearest'/] },
    { n: 'interpolate to an empty size', call: () => F.interpolate(sg.ones([1, 1, 2, 2]), { scaleFactor: 0.2 }), err: ['interpolate', /greater than 0/, /output \[0, 0\]/] },
    { n: "interpolate with mode 'trilinear'", call: () => F.interpolate(sg.ones([1, 1, 2, 2]), { scaleFactor: 2, mode: 'trilinear' }), err: ['interpolate', /'mode'/, /'trilinear'/] },
    { n: 'Upsample with a size list of the wrong length', make: () => ({ m: new nn.Upsample({ size: [2, 3, 4] }) }), call: ({ m }) => m.forward(sg.ones([1, 1, 2, 2])), err: ['interpolate', /same number of spatial dims/, /size \[2, 3, 4\]/], ok: () => same(new nn.Upsample({ size: 2 }).forward(sg.ones([1, 1, 1, 1])), [[[[1, 1], [1, 1]]]]) },
  ]);

  add('containers and Transformer', [
    { n: 'ParameterList.append of an array', make: () => ({ m: new nn.ParameterList([sg.ones([2])]) }), call: ({ m }) => m.append([1, 2]), err: ['ParameterList.append', /Parameter or a Tensor/, /\[1, 2\]/], ok: ({ m }) => assert.equal(m.length, 1) },
    { n: 'ParameterList.get out of range', make: () => ({ m: new nn.ParameterList([sg.ones([2])]) }), call: ({ m }) => m.get(1), err: ['ParameterList.get', /index 1 is out of range/] },
    { n: 'ParameterDict.set of a number', make: () => ({ m: new nn.ParameterDict({ a: sg.ones([2]) }) }), call: ({ m }) => m.set('b', 3), err: ['ParameterDict.set', /Parameter or a Tensor/, /got 3/], ok: ({ m }) => assert.deepEqual(m.keys(), ['a']) },
    { n: "ParameterDict.set over 'forward'", make: () => ({ m: new nn.ParameterDict() }), call: ({ m }) => m.set('forward', sg.ones([1])), err: [/registerParameter|ParameterDict/, /'forward'/] },
    { n: 'Transformer with nhead 0', call: () => new nn.Transformer({ dModel: 8, nhead: 0 }), err: ['Transformer', /'nhead'/, /positive integer/, /got 0/] },
    { n: 'Transformer with dModel not divisible by nhead', call: () => new nn.Transformer({ dModel: 6, nhead: 4, numEncoderLayers: 1, numDecoderLayers: 1 }), err: ['MultiheadAttention', /embedDim \(6\)/, /numHeads \(4\)/] },
    {
      n: 'Transformer on src and tgt of different batch sizes',
      make: () => ({ m: new nn.Transformer({ dModel: 4, nhead: 2, numEncoderLayers: 1, numDecoderLayers: 1, dimFeedforward: 4, dropout: 0 }) }),
      call: ({ m }) => m.forward(sg.ones([3, 2, 4]), sg.ones([3, 1, 4])),
      err: ['Transformer', /batch number of src and tgt must be equal/, /\[3, 1, 4\]/],
      ok: ({ m }) => assert.deepEqual(m.forward(sg.ones([3, 2, 4]), sg.ones([5, 2, 4])).shape, [5, 2, 4]),
    },
  ]);

  add('optim more', [
    { n: 'Adadelta with rho 1.5', make: model, call: ({ m }) => new optim.Adadelta(m.parameters(), { rho: 1.5 }), err: ['Adadelta', /invalid rho value/, /1\.5/, /\[0, 1\]/] },
    { n: 'Adamax with betas [0.9, 1]', make: model, call: ({ m }) => new optim.Adamax(m.parameters(), { betas: [0.9, 1] }), err: ['Adamax', /beta parameter at index 1/, /\[0, 1\)/] },
    { n: 'NAdam with momentumDecay -1', make: model, call: ({ m }) => new optim.NAdam(m.parameters(), { momentumDecay: -1 }), err: ['NAdam', /momentumDecay/, /-1/, />= 0/] },
    { n: 'NAdam with maximize (not in PyTorch 1.13)', make: model, call: ({ m }) => new optim.NAdam(m.parameters(), { maximize: true }), err: ["NAdam: unknown option 'maximize'", /momentumDecay/] },
    { n: 'RAdam with lr NaN', make: model, call: ({ m }) => new optim.RAdam(m.parameters(), { lr: NaN }), err: ['RAdam', /'lr'/, /finite number/, /NaN/] },
    {
      n: 'Adamax loadStateDict with a wrong exp_inf shape changes nothing',
      make: () => {
        const m = linear();
        const opt = new optim.Adamax(m.parameters());
        m.forward(sg.ones([1, 3])).sum().backward();
        opt.step();
        return { m, opt };
      },
      call: ({ opt }) => {
        const good = opt.stateDict();
        try {
          opt.loadStateDict({ state: { ...good.state, 0: { ...good.state[0], exp_inf: sg.zeros([5]) } }, param_groups: good.param_groups });
        } finally {
          sg.dispose(good.state);
        }
      },
      err: ['Adamax.loadStateDict', /exp_inf/, /\[2, 3\]/],
    },
    { n: 'LBFGS without a closure', make: () => ({ m: linear() }), call: ({ m }) => new optim.LBFGS(m.parameters()).step(), err: ['LBFGS.step', /closure/, /undefined/], ok: ({ m }) => linearOk(m) },
    { n: 'LBFGS whose closure returns a string', make: () => ({ m: linear() }), call: ({ m }) => new optim.LBFGS(m.parameters()).step(() => 'loss'), err: ['LBFGS.step', /must return the loss/, /'loss'/], ok: ({ m }) => linearOk(m) },
    { n: "LBFGS with lineSearchFn 'armijo'", make: model, call: ({ m }) => new optim.LBFGS(m.parameters(), { lineSearchFn: 'armijo' }), err: ['LBFGS', /'lineSearchFn'/, /'strong_wolfe'/, /'armijo'/] },
    { n: 'LBFGS over two param groups', make: model, call: ({ m }) => { const [w, b] = m.parameters(); return new optim.LBFGS([{ params: [w] }, { params: [b] }]); }, err: ['LBFGS', /parameter groups/] },
  ]);

  add('schedulers more', [
    { n: 'LambdaLR with a number', make: withStep, call: ({ opt }) => new sched.LambdaLR(opt, 0.9), err: ['LambdaLR', /lrLambda/, /function/, /got 0\.9/], ok: ({ opt }) => assert.equal(opt.paramGroups[0].lr, 0.1) },
    { n: 'LambdaLR whose lambda returns NaN', make: withStep, call: ({ opt }) => new sched.LambdaLR(opt, () => NaN), err: ['LambdaLR', /lrLambda\(0\) must return a number/, /NaN/] },
    { n: 'MultiplicativeLR with two lambdas for one group', make: withStep, call: ({ opt }) => new sched.MultiplicativeLR(opt, [() => 1, () => 1]), err: ['MultiplicativeLR', /expected 1 lrLambdas/, /got 2/] },
    { n: 'ConstantLR with factor 0', make: withStep, call: ({ opt }) => new sched.ConstantLR(opt, { factor: 0 }), err: ['ConstantLR', /greater than 0/, /got 0/], ok: ({ opt }) => assert.equal(opt.paramGroups[0].lr, 0.1) },
    { n: 'PolynomialLR with power "2"', make: withStep, call: ({ opt }) => new sched.PolynomialLR(opt, { power: '2' }), err: ['PolynomialLR', /'power'/, /finite number/, /'2'/] },
    { n: 'CosineAnnealingWarmRestarts with t0 2.5', make: withStep, call: ({ opt }) => new sched.CosineAnnealingWarmRestarts(opt, 2.5), err: ['CosineAnnealingWarmRestarts', /t0/, /positive integer/, /2\.5/] },
    { n: 'CyclicLR on Adam with cycleMomentum', make: () => { const m = linear(); return { m, opt: new optim.Adam(m.parameters()) }; }, call: ({ opt }) => new sched.CyclicLR(opt, 0.001, 0.01), err: ['CyclicLR', /must support momentum/, /cycleMomentum: false/] },
    { n: "CyclicLR with mode 'triangle'", make: withStep, call: ({ opt }) => new sched.CyclicLR(opt, 0.001, 0.01, { mode: 'triangle' }), err: ['CyclicLR', /'mode'/, /'triangular2'/, /'triangle'/] },
    { n: 'SequentialLR with too many milestones', make: () => { const c = withStep(); return { ...c, s: new sched.StepLR(c.opt, 2) }; }, call: ({ opt, s }) => new sched.SequentialLR(opt, [s], [3]), err: ['SequentialLR', /one more than the number of milestone/, /1 schedulers and 1 milestones/] },
    { n: 'ChainedScheduler of a number', call: () => new sched.ChainedScheduler([5]), err: ['ChainedScheduler', /schedulers\[0\]/, /got 5|is 5/] },
  ]);

  function linearOk(m) {
    same(m.forward(sg.tensor([[1, 2, 3]])), [[-1.5, 3.5]]);
  }
}
