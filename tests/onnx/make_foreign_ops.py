"""Writes an ONNX model of elementwise operators that simdgrad did not produce, for
tests/js/onnx_import_ops.test.mjs: one node per operator on two float inputs x and y (comparisons
give bool outputs, Not and Where take them), built with onnx.helper and checked by onnx's checker,
and its outputs on fixed inputs computed with numpy (the expected values; erf with math.erf).
x and y share some entries, so Equal, LessOrEqual and GreaterOrEqual meet ties.
Usage: make_foreign_ops.py OUT_DIR  -> OUT_DIR/foreign_ops.onnx and OUT_DIR/foreign_ops.json."""
import json
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def main(out):
    x = np.array([[0.5, -1.25, 2.0], [1.5, 0.75, -0.5]], dtype=np.float32)
    y = np.array([[0.5, 1.0, -2.0], [2.0, 0.75, 3.0]], dtype=np.float32)
    pos = np.abs(x) + np.float32(0.5)   # for Pow, Log, Sqrt, Reciprocal
    e = {  # output name -> (op, inputs, numpy value)
        'pow': ('Pow', ['p', 'y'], np.power(pos, y)),
        'max': ('Max', ['x', 'y'], np.maximum(x, y)),
        'min': ('Min', ['x', 'y'], np.minimum(x, y)),
        'eq': ('Equal', ['x', 'y'], x == y),
        'lt': ('Less', ['x', 'y'], x < y),
        'le': ('LessOrEqual', ['x', 'y'], x <= y),
        'gt': ('Greater', ['x', 'y'], x > y),
        'ge': ('GreaterOrEqual', ['x', 'y'], x >= y),
        'not_lt': ('Not', ['lt'], ~(x < y)),
        'where': ('Where', ['gt', 'x', 'y'], np.where(x > y, x, y * 10)),
        'neg': ('Neg', ['x'], -x),
        'exp': ('Exp', ['x'], np.exp(x)),
        'log': ('Log', ['p'], np.log(pos)),
        'sqrt': ('Sqrt', ['p'], np.sqrt(pos)),
        'abs': ('Abs', ['x'], np.abs(x)),
        'erf': ('Erf', ['x'], np.vectorize(math.erf)(x.astype(np.float64))),
        'sin': ('Sin', ['x'], np.sin(x)),
        'cos': ('Cos', ['x'], np.cos(x)),
        'recip': ('Reciprocal', ['p'], 1 / pos),
        'floor': ('Floor', ['x'], np.floor(x)),
        'ceil': ('Ceil', ['x'], np.ceil(x)),
        'sign': ('Sign', ['x'], np.sign(x)),
    }
    nodes = [helper.make_node('Abs', ['x'], ['ax']), helper.make_node('Add', ['ax', 'c_half'], ['p']),
             helper.make_node('Mul', ['y', 'c_ten'], ['y10'])]
    for name, (op, ins, _) in e.items():
        if op == 'Where':
            ins = ['gt', 'x', 'y10']
        nodes.append(helper.make_node(op, ins, [name]))
    # (c_ names: an initializer named like a Module method, 'half', is refused by the importer's registerParameter)
    inits = [helper.make_tensor('c_half', TensorProto.FLOAT, [], [0.5]), helper.make_tensor('c_ten', TensorProto.FLOAT, [], [10.0])]
    outputs = [helper.make_tensor_value_info(k, TensorProto.BOOL if v.dtype == bool else TensorProto.FLOAT, [2, 3]) for k, (_, _, v) in e.items()]
    graph = helper.make_graph(
        nodes, 'foreign_ops',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [2, 3]), helper.make_tensor_value_info('y', TensorProto.FLOAT, [2, 3])],
        outputs, inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)], ir_version=8)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(out, 'foreign_ops.onnx'))
    ref = {'x': x.flatten().tolist(), 'y': y.flatten().tolist(),
           'outputs': {k: [float(a) for a in v.flatten()] for k, (_, _, v) in e.items()}}
    with open(os.path.join(out, 'foreign_ops.json'), 'w') as f:
        json.dump(ref, f)


if __name__ == '__main__':
    main(sys.argv[1])
