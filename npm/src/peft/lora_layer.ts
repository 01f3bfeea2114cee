// PEFT's lora.Linear (peft/tuners/lora/layer.py) around a Linear or a GPT-2 Conv1D:
// y = base_layer(x) + lora_B(lora_A(lora_dropout(x))) · (lora_alpha / r), with lora_A, lora_B
// and lora_dropout ModuleDicts keyed by the adapter name ('default'), so the state-dict keys are
// PEFT's ('….q_proj.base_layer.weight', '….q_proj.lora_A.default.weight'). lora_A is Kaiming-uniform
// (a = √5, as nn.Linear's own init and PEFT's reset_lora_parameters), lora_B zero, so a fresh
// adapter leaves the model's output unchanged. A Conv1D base is PEFT's fan_in_fan_out case: its
// weight is [in, out], and the merged delta is (B·A)ᵀ. Over a bfloat16/float16 base the adapter is
// float32, as get_peft_model leaves it (autocast_adapter_dtype): the adapter's input is cast to
// float32 and the layer's output back to the base's dtype, as PEFT's forward does.
import { Dropout } from '../nn/dropout.js';
import { kaimingUniform_, zeros_ } from '../nn/init.js';
import { Identity, Linear } from '../nn/linear.js';
import { ModuleDict } from '../nn/container.js';
import { Module } from '../nn/module.js';
import { noGrad } from '../autograd/backward.js';
import { tidy } from '../runtime/memory.js';
import type { Tensor } from '../tensor/tensor.js';
import { Conv1D } from '../models/gpt2_hf.js';
import { onDevice } from '../models/pretrained.js';

/** The adapter name PEFT uses when none is given; it is left out of the saved keys. */
export const ADAPTER = 'default';

/** A layer LoRA can wrap: nn.Linear (weight [out, in]) or HF's Conv1D (weight [in, out]). */
export type LoraBase = Linear | Conv1D;

export function isLoraBase(m: unknown): m is LoraBase {
  return m instanceof Linear || m instanceof Conv1D;
}

/** [in, out] features of a base layer. */
export function baseFeatures(base: LoraBase): [number, number] {
  return base instanceof Conv1D ? [base.nx, base.nf] : [base.inFeatures, base.outFeatures];
}

export class LoraLinear extends Module {
  declare base_layer: LoraBase;
  declare lora_dropout: ModuleDict;
  declare lora_A: ModuleDict;
  declare lora_B: ModuleDict;
  declare r: number;
  declare loraAlpha: number;
  declare scaling: number;
  /** PEFT's fan_in_fan_out: true over a Conv1D. */
  declare fanInFanOut: boolean;

  constructor(base: LoraBase, r: number, loraAlpha: number, loraDropout: number) {
    super();
    const [inF, outF] = baseFeatures(base);
    this.base_layer = base;
    this.lora_dropout = new ModuleDict({ [ADAPTER]: loraDropout > 0 ? new Dropout(loraDropout) : new Identity() });
    // Made and initialized on the cpu whatever the default device (the same draws on every device), then moved:
    // a copy moved from the GPU to the cpu could not be written (loadAdapter) before it arrived.
    const [a, b] = onDevice('cpu', () => {
      const la = new Linear(inF, r, { bias: false });
      const lb = new Linear(r, outF, { bias: false });
      kaimingUniform_(la.weight, { a: Math.sqrt(5) });
      zeros_(lb.weight);
      return [la, lb];
    });
    this.lora_A = new ModuleDict({ [ADAPTER]: a });
    this.lora_B = new ModuleDict({ [ADAPTER]: b });
    this.r = r;
    this.loraAlpha = loraAlpha;
    this.scaling = loraAlpha / r;
    this.fanInFanOut = base instanceof Conv1D;
    // The adapter follows the base layer's device, and its dtype when that is float32 or float64.
    const w = base.weight;
    const dtype = w.dtype === 'float64' ? 'float64' : 'float32';
    if (w.device !== 'cpu' || dtype !== 'float32') {
      a.to({ device: w.device, dtype });
      b.to({ device: w.device, dtype });
    }
  }

  get loraA(): Linear {
    return this.lora_A.get(ADAPTER) as Linear;
  }

  get loraB(): Linear {
    return this.lora_B.get(ADAPTER) as Linear;
  }

  forward(x: Tensor): Tensor {
    const y = this.base_layer.forward(x);
    const drop = this.lora_dropout.get(ADAPTER)!;
    const a = this.loraA;
    const xa = x.dtype === a.weight.dtype ? x : x.to(a.weight.dtype);
    // (alpha/r) scales A's output [.., r] rather than B's [.., out] (PEFT scales B's): the same by
    // linearity, and one activation of the layer's width less to keep for backward.
    const out = y.add(this.loraB.forward(a.forward(drop.forward(xa)).mul(this.scaling)));
    return out.dtype === y.dtype ? out : out.to(y.dtype);
  }

  /** Folds (lora_alpha/r)·B·A into the base layer's weight (transposed for a Conv1D) in place; returns the base layer. */
  merge(): LoraBase {
    noGrad(() =>
      tidy(() => {
        const delta = this.loraB.weight.matmul(this.loraA.weight).mul(this.scaling); // [out, in]
        const w = this.base_layer.weight;
        w.add_((this.fanInFanOut ? delta.transpose(0, 1) : delta).to(w.dtype));
      }),
    );
    return this.base_layer;
  }

  extraRepr(): string {
    return `r=${this.r}, lora_alpha=${this.loraAlpha}`;
  }
}
