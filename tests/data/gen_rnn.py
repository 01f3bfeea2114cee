#!/usr/bin/python3
"""Generates tests/data/rnn_ref.json: PyTorch 1.13's nn.RNN / LSTM / GRU and their cells, for
tests/js/nn_rnn.test.mjs. Run with Debian's PyTorch: /usr/bin/python3 tests/data/gen_rnn.py

Each case: the JS construction (class, inputSize, hiddenSize, camelCase options), the mode
('train' | 'eval'), PyTorch's state dict (its own initialisation, moved into simdgrad with
loadStateDict), the forward inputs (input and, when given, the initial states), the results
(output and h_n [, c_n]; a cell's new state(s)), and the gradients of
L = Σ out·R_out + Σ h_n·R_h [+ Σ c_n·R_c] (R fixed random tensors, also written) with respect
to the input, the initial states and every parameter. Floats have 9 significant digits.
"""
import torch
import torch.nn as nn
from ref_json import enc, write

torch.manual_seed(1313)
TORCH_NAMES = {"numLayers": "num_layers", "bias": "bias", "batchFirst": "batch_first", "dropout": "dropout",
               "bidirectional": "bidirectional", "projSize": "proj_size", "nonlinearity": "nonlinearity"}



def layer_case(name, cls, input_size, hidden_size, opts, input_shape, states=False, mode="eval"):
    module = getattr(nn, cls)(input_size, hidden_size, **{TORCH_NAMES[k]: v for k, v in opts.items()})
    module.train(mode == "train")
    x = torch.randn(*input_shape, requires_grad=True)
    batched = len(input_shape) == 3
    dirs = 2 if opts.get("bidirectional") else 1
    layers = opts.get("numLayers", 1)
    batch = (input_shape[0] if opts.get("batchFirst") else input_shape[1]) if batched else None
    proj = opts.get("projSize", 0)
    h_size = proj if proj else hidden_size

    def state_shape(size):
        return [layers * dirs, batch, size] if batched else [layers * dirs, size]

    hx = None
    given = []
    if states:
        h0 = torch.randn(*state_shape(h_size), requires_grad=True)
        given.append(h0)
        if cls == "LSTM":
            c0 = torch.randn(*state_shape(hidden_size), requires_grad=True)
            given.append(c0)
            hx = (h0, c0)
        else:
            hx = h0
    out = module(x, hx) if hx is not None else module(x)
    output, hidden = out
    results = [output] + (list(hidden) if cls == "LSTM" else [hidden])
    return finish(name, cls, input_size, hidden_size, opts, mode, module, [x] + given, results)


def cell_case(name, cls, input_size, hidden_size, opts, input_shape, states=False):
    module = getattr(nn, cls)(input_size, hidden_size, **{TORCH_NAMES[k]: v for k, v in opts.items()})
    x = torch.randn(*input_shape, requires_grad=True)
    state_shape = [input_shape[0], hidden_size] if len(input_shape) == 2 else [hidden_size]
    given = []
    if states:
        given = [torch.randn(*state_shape, requires_grad=True) for _ in range(2 if cls == "LSTMCell" else 1)]
    if cls == "LSTMCell":
        out = module(x, tuple(given)) if given else module(x)
        results = list(out)
    else:
        results = [module(x, given[0]) if given else module(x)]
    return finish(name, cls, input_size, hidden_size, opts, "eval", module, [x] + given, results)


def finish(name, cls, input_size, hidden_size, opts, mode, module, inputs, results):
    weights = [torch.randn_like(r) for r in results]
    loss = sum((r * w).sum() for r, w in zip(results, weights))
    loss.backward()
    return {
        "name": name, "cls": cls, "inputSize": input_size, "hiddenSize": hidden_size, "opts": opts, "mode": mode,
        "state": {k: enc(v) for k, v in module.state_dict().items()},
        "inputs": [enc(t) for t in inputs],
        "results": [enc(r) for r in results],
        "weights": [enc(w) for w in weights],
        "inputGrads": [enc(t.grad) for t in inputs],
        "paramGrads": {k: enc(p.grad) for k, p in module.named_parameters()},
    }


def main():
    cases = [
        layer_case("RNN tanh", "RNN", 4, 6, {}, [5, 3, 4]),
        layer_case("RNN relu two layers with h0", "RNN", 4, 5, {"numLayers": 2, "nonlinearity": "relu"}, [5, 3, 4], states=True),
        layer_case("RNN bidirectional batchFirst no bias", "RNN", 3, 4, {"bidirectional": True, "batchFirst": True, "bias": False}, [2, 6, 3]),
        layer_case("LSTM", "LSTM", 4, 6, {}, [5, 3, 4]),
        layer_case("LSTM two layers bidirectional with states", "LSTM", 4, 5,
                   {"numLayers": 2, "bidirectional": True}, [6, 2, 4], states=True),
        layer_case("LSTM batchFirst projection two layers", "LSTM", 3, 6, {"projSize": 4, "batchFirst": True, "numLayers": 2},
                   [2, 5, 3], states=True),
        layer_case("LSTM bidirectional projection no bias", "LSTM", 3, 5, {"projSize": 2, "bidirectional": True, "bias": False},
                   [4, 2, 3]),
        layer_case("LSTM unbatched with states", "LSTM", 4, 3, {"numLayers": 2}, [5, 4], states=True),
        layer_case("LSTM dropout 1 in training (the second layer sees zeros)", "LSTM", 4, 3,
                   {"numLayers": 2, "dropout": 1.0}, [4, 2, 4], mode="train"),
        layer_case("GRU", "GRU", 4, 6, {}, [5, 3, 4]),
        layer_case("GRU three layers bidirectional batchFirst with h0", "GRU", 3, 4,
                   {"numLayers": 3, "bidirectional": True, "batchFirst": True}, [2, 5, 3], states=True),
        layer_case("GRU unbatched no bias", "GRU", 4, 5, {"bias": False}, [6, 4]),
        layer_case("GRU dropout 0.5 in eval mode (no dropout)", "GRU", 4, 5, {"numLayers": 2, "dropout": 0.5}, [4, 2, 4]),
        cell_case("RNNCell tanh", "RNNCell", 4, 5, {}, [3, 4], states=True),
        cell_case("RNNCell relu unbatched no state", "RNNCell", 4, 5, {"nonlinearity": "relu"}, [4]),
        cell_case("LSTMCell", "LSTMCell", 4, 5, {}, [3, 4], states=True),
        cell_case("LSTMCell unbatched no state no bias", "LSTMCell", 3, 4, {"bias": False}, [3]),
        cell_case("GRUCell", "GRUCell", 4, 5, {}, [3, 4], states=True),
        cell_case("GRUCell unbatched", "GRUCell", 3, 4, {}, [3], states=True),
    ]
    write("gen_rnn.py", "rnn_ref.json", {"cases": cases})


if __name__ == "__main__":
    main()
