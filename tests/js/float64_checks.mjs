// The registry ops marked float64 (OpInfo::float64, set in src/ops/registry_table.cpp mark_float64
// and the nn registries) and the cases of float64_ref.json (gen_float64.py) that check each one's
// float64 values and gradients against PyTorch, on reference and wasm (float64.test.mjs). A newly
// marked op without a case fails float64.test.mjs; backend_grad_completeness.test.mjs counts these
// cases as the float64 gradient rows of the support table's f64 entries.
export const FLOAT64_CHECKS = {
  add: ['add', 'addNumber'], sub: ['sub'], mul: ['mul', 'mulNumber'], div: ['div'], pow: ['pow'],
  maximum: ['maximum'], minimum: ['minimum'], eq: ['compare'], ne: ['compare'], lt: ['compare'], le: ['compare'],
  gt: ['compare', 'whereGt'], ge: ['compare'], matmul: ['matmul', 'matmulBatched', 'matmulVec'], neg: ['neg'],
  exp: ['exp'], log: ['log'], log2: ['log2'], log10: ['log10'], log1p: ['log1p'], expm1: ['expm1'], sqrt: ['sqrt'],
  rsqrt: ['rsqrt'], abs: ['abs'], sign: ['sign'], sin: ['sin'], cos: ['cos'], erf: ['erf'], square: ['square'],
  reciprocal: ['reciprocal'], relu: ['relu'], selu: ['selu'], sigmoid: ['sigmoid'], tanh: ['tanh'], silu: ['silu'],
  where: ['whereGt'], maskedFill: ['maskedFill'], clamp: ['clamp'], leakyRelu: ['leakyRelu'], elu: ['elu'],
  gelu: ['gelu', 'geluTanh'], softplus: ['softplus'], hardtanh: ['hardtanh'], softmax: ['softmax'],
  causalSoftmax: ['causalSoftmax'],
  logSoftmax: ['logSoftmax', 'mlp'], sum: ['sumAll', 'sumDim'], mean: ['mean'], prod: ['prod'], max: ['amax'],
  min: ['amin'], logsumexp: ['logsumexp'], var: ['var'], std: ['std'], norm: ['norm'], argmax: ['argmax'],
  argmin: ['argmin'], cumsum: ['cumsum'], sort: ['sortValues'], argsort: ['argsort'], topk: ['topkValues'],
  scatter: ['scatter'], scatterAdd: ['scatterAdd'], linear: ['linear', 'mlp'], layerNorm: ['layerNorm'],
  batchNorm: ['batchNorm'], groupNorm: ['groupNorm'], instanceNorm: ['instanceNorm'], mseLoss: ['mseLoss'],
  l1Loss: ['l1Loss'], smoothL1Loss: ['smoothL1Loss'], huberLoss: ['huberLoss'],
  crossEntropy: ['crossEntropy', 'crossEntropyWeighted'], flip: ['flip'], roll: ['roll'], repeat: ['repeat'],
  tile: ['tile'], erfinv: ['erfinv'], erfc: ['erfc'], lgamma: ['lgamma'], digamma: ['digamma'],
  polygamma: ['polygamma1', 'polygamma3'], i0: ['i0'], nllLoss: ['nllLoss', 'nllLossWeighted'],
  binaryCrossEntropy: ['binaryCrossEntropy'], binaryCrossEntropyWithLogits: ['binaryCrossEntropyWithLogits'],
  klDiv: ['klDiv', 'klDivLogTarget'], embedding: ['embedding', 'embeddingPadding'],
  pad: ['padConstant', 'padReflect', 'padReplicate', 'conv3d'],
  conv1d: ['conv1d', 'convTranspose1d'], conv2d: ['conv2d', 'conv2dGroups', 'conv3d', 'convTranspose3d'],
  convTranspose2d: ['convTranspose2d', 'convTranspose1d', 'convTranspose3d'], maxPool1d: ['maxPool1d'],
  maxPool2d: ['maxPool2d', 'maxPool3d', 'adaptiveMaxPool2d'], avgPool1d: ['avgPool1d'],
  avgPool2d: ['avgPool2d', 'avgPool3d'], adaptiveAvgPool2d: ['adaptiveAvgPool2d'],
  rnnLayer: ['lstmProj', 'gruBidirectional', 'rnnReluNoBias'],
};
