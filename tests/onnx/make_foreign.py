"""Writes an ONNX model that simdgrad did not produce, for tests/js/onnx_import.test.mjs: built with
onnx.helper (initializers in float_data / int64_data, not raw_data; Gemm with alpha, beta and transA;
ReduceMean with an axes attribute; a Reshape target with 0 and -1), checked by onnx's checker, and its
output on a fixed input computed with numpy (the expected values).
Usage: make_foreign.py OUT_DIR  → OUT_DIR/foreign.onnx and OUT_DIR/foreign.json."""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def main(out):
    rng = np.random.default_rng(7)
    w1 = rng.standard_normal((5, 6)).astype(np.float32)   # used transposed: transA on x is not, transB 0
    b1 = rng.standard_normal((6,)).astype(np.float32)
    w2 = rng.standard_normal((6, 4)).astype(np.float32)
    b2 = rng.standard_normal((4,)).astype(np.float32)
    x = rng.standard_normal((5, 3)).astype(np.float32)    # [features, batch]: Gemm's transA=1 makes it [batch, features]
    inits = [
        helper.make_tensor('w1', TensorProto.FLOAT, w1.shape, w1.flatten().tolist()),
        helper.make_tensor('b1', TensorProto.FLOAT, b1.shape, b1.tolist()),
        helper.make_tensor('w2', TensorProto.FLOAT, w2.shape, w2.flatten().tolist()),
        helper.make_tensor('b2', TensorProto.FLOAT, b2.shape, b2.tolist()),
        helper.make_tensor('shape', TensorProto.INT64, [3], [0, 2, -1]),
    ]
    nodes = [
        helper.make_node('Gemm', ['x', 'w1', 'b1'], ['h'], transA=1, alpha=0.5, beta=2.0),
        helper.make_node('Tanh', ['h'], ['t']),
        helper.make_node('MatMul', ['t', 'w2'], ['m']),
        helper.make_node('Add', ['m', 'b2'], ['a']),
        helper.make_node('Reshape', ['a', 'shape'], ['r']),
        helper.make_node('Softmax', ['r'], ['s'], axis=-1),
        helper.make_node('ReduceMean', ['s'], ['y'], axes=[1], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, 'foreign',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [5, 'n'])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['n', 2])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)], ir_version=8)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(out, 'foreign.onnx'))

    h = 0.5 * (x.T @ w1) + 2.0 * b1
    a = np.tanh(h) @ w2 + b2
    r = a.reshape(a.shape[0], 2, -1)
    e = np.exp(r - r.max(-1, keepdims=True))
    s = e / e.sum(-1, keepdims=True)
    y = s.mean(axis=1)
    with open(os.path.join(out, 'foreign.json'), 'w') as f:
        json.dump({'x': x.flatten().tolist(), 'xShape': list(x.shape), 'y': y.flatten().tolist(), 'yShape': list(y.shape)}, f)


if __name__ == '__main__':
    main(sys.argv[1])
