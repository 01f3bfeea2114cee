#!/usr/bin/python3
"""Generates tests/data/packed_sequence_ref.json: PyTorch 1.13's packed sequences
(torch.nn.utils.rnn.pack_padded_sequence, pad_packed_sequence, pack_sequence, unpack_sequence) and
nn.RNN / LSTM / GRU over a PackedSequence, for tests/js/nn_packed_sequence.test.mjs. Run with
Debian's PyTorch: /usr/bin/python3 tests/data/gen_packed_sequence.py

"ops": ref_json.grad_case entries (outputs include batch_sizes and the indices, int64 written as
int32; gradients of Σ out·upstream with respect to the float inputs).

"layers": a module (class, sizes, camelCase options, train/eval), its state dict (PyTorch's own
seeded initialisation, loaded into simdgrad with loadStateDict), a padded input, the lengths and
the packing flags, optional initial states (in the original batch order), the results (the output
PackedSequence's data, batch_sizes, and h_n [, c_n]) and the gradients of
L = Σ data·R_out + Σ h_n·R_h [+ Σ c_n·R_c] (R fixed random tensors, also written) with respect to
the padded input, the initial states and every parameter. Floats have 9 significant digits.
"""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, unpack_sequence

from ref_json import Cases, enc, randn as f, typed, write

TORCH_NAMES = {"numLayers": "num_layers", "bias": "bias", "batchFirst": "batch_first", "dropout": "dropout",
               "bidirectional": "bidirectional", "projSize": "proj_size", "nonlinearity": "nonlinearity"}


def fields(p):
    """A PackedSequence as its tensors (the indices only when present)."""
    out = [p.data, p.batch_sizes]
    if p.sorted_indices is not None:
        out += [p.sorted_indices, p.unsorted_indices]
    return out


def op_cases():
    cases = Cases(20261125)
    case = cases.case
    case("pack sorted", lambda x: fields(pack_padded_sequence(x, [4, 3, 3, 1])), [f(4, 4, 3)], grad=(0,))
    case("pack unsorted batchFirst", lambda x: fields(pack_padded_sequence(x, [2, 5, 1, 5], batch_first=True, enforce_sorted=False)),
         [f(4, 5, 2)], grad=(0,))
    case("pack equal lengths trailing dims", lambda x: fields(pack_padded_sequence(x, [3, 3])), [f(3, 2, 2, 3)], grad=(0,))
    case("pack shorter than padded", lambda x: fields(pack_padded_sequence(x, [2, 1], enforce_sorted=False)), [f(4, 2, 2)], grad=(0,))
    case("pad", lambda x: list(pad_packed_sequence(pack_padded_sequence(x, [1, 3, 2], enforce_sorted=False))), [f(3, 3, 2)], grad=(0,))
    case("pad batchFirst value totalLength", lambda x: list(pad_packed_sequence(
        pack_padded_sequence(x, [3, 3, 1], batch_first=True), batch_first=True, padding_value=-2.5, total_length=5)),
        [f(3, 4, 2)], grad=(0,))
    case("packSequence", lambda a, b, c: fields(pack_sequence([a, b, c])), [f(4, 2), f(2, 2), f(1, 2)], grad=(0, 1, 2))
    case("packSequence unsorted", lambda a, b, c: fields(pack_sequence([a, b, c], enforce_sorted=False)), [f(2, 3), f(4, 3), f(2, 3)],
         grad=(0, 1, 2))
    case("unpackSequence", lambda a, b, c: unpack_sequence(pack_sequence([a, b, c], enforce_sorted=False)), [f(1), f(3), f(2)],
         grad=(0, 1, 2))
    return list(cases)


def layer_case(name, cls, input_size, hidden_size, opts, T, lengths, enforce_sorted=True, states=False, mode="eval"):
    module = getattr(nn, cls)(input_size, hidden_size, **{TORCH_NAMES[k]: v for k, v in opts.items()})
    module.train(mode == "train")
    batch_first = opts.get("batchFirst", False)
    B = len(lengths)
    x = torch.randn(*([B, T, input_size] if batch_first else [T, B, input_size]), requires_grad=True)
    dirs = 2 if opts.get("bidirectional") else 1
    layers = opts.get("numLayers", 1)
    proj = opts.get("projSize", 0)
    given = []
    hx = None
    if states:
        h0 = torch.randn(layers * dirs, B, proj or hidden_size, requires_grad=True)
        given.append(h0)
        if cls == "LSTM":
            c0 = torch.randn(layers * dirs, B, hidden_size, requires_grad=True)
            given.append(c0)
            hx = (h0, c0)
        else:
            hx = h0
    packed = pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    out, hidden = module(packed, hx) if hx is not None else module(packed)
    states_out = list(hidden) if cls == "LSTM" else [hidden]
    results = [out.data] + states_out
    weights = [torch.randn_like(r) for r in results]
    loss = sum((r * w).sum() for r, w in zip(results, weights))
    loss.backward()
    inputs = [x] + given
    return {
        "name": name, "cls": cls, "inputSize": input_size, "hiddenSize": hidden_size, "opts": opts, "mode": mode,
        "lengths": lengths, "enforceSorted": enforce_sorted,
        "state": {k: enc(v) for k, v in module.state_dict().items()},
        "inputs": [enc(t) for t in inputs],
        "batchSizes": out.batch_sizes.tolist(),
        "results": [enc(r) for r in results],
        "weights": [enc(w) for w in weights],
        "inputGrads": [enc(t.grad) for t in inputs],
        "paramGrads": {k: enc(p.grad) for k, p in module.named_parameters()},
    }


def layer_cases():
    torch.manual_seed(1425)
    return [
        layer_case("RNN tanh sorted with a length-1 sequence", "RNN", 3, 4, {}, 5, [5, 3, 3, 1]),
        layer_case("RNN relu two layers with h0, unsorted", "RNN", 3, 4, {"numLayers": 2, "nonlinearity": "relu"}, 5, [2, 5, 1, 4],
                   enforce_sorted=False, states=True),
        layer_case("RNN bidirectional two layers no bias with h0", "RNN", 2, 3, {"numLayers": 2, "bidirectional": True, "bias": False},
                   5, [5, 2, 2, 1], states=True),
        layer_case("LSTM sorted, padded past the longest", "LSTM", 3, 4, {}, 6, [4, 4, 2]),
        layer_case("LSTM two layers bidirectional batchFirst with states, unsorted with ties", "LSTM", 3, 4,
                   {"numLayers": 2, "bidirectional": True, "batchFirst": True}, 6, [3, 6, 1, 6, 2], enforce_sorted=False, states=True),
        layer_case("LSTM bidirectional projection, unsorted", "LSTM", 3, 5, {"projSize": 2, "bidirectional": True}, 4, [2, 4, 3],
                   enforce_sorted=False, states=True),
        layer_case("LSTM all lengths 1", "LSTM", 2, 3, {"bidirectional": True}, 1, [1, 1]),
        layer_case("LSTM dropout 1 in training (the second layer sees zeros)", "LSTM", 3, 4, {"numLayers": 2, "dropout": 1.0}, 4,
                   [4, 2, 1], mode="train"),
        layer_case("GRU bidirectional batchFirst with h0, unsorted", "GRU", 3, 4, {"bidirectional": True, "batchFirst": True}, 3,
                   [1, 3, 2], enforce_sorted=False, states=True),
        layer_case("GRU two layers, equal lengths", "GRU", 2, 3, {"numLayers": 2}, 4, [4, 4, 4]),
        layer_case("GRU one sequence", "GRU", 2, 3, {"bidirectional": True}, 3, [3]),
    ]


def main():
    write("gen_packed_sequence.py", "packed_sequence_ref.json", {"ops": op_cases(), "layers": layer_cases()})


if __name__ == "__main__":
    main()
