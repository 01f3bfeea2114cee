// What C++ asks of JavaScript during compiled calls and backward passes (graph_binding.ts's
// GraphHost): a callback's name, its vjp, and host steps. None of these throws into wasm: an
// error comes back as its message.
import * as G from './graph_binding.js';
import { entry, type VjpFn } from './jscall_registry.js';
import { tidy } from '../runtime/memory.js';
import { describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A user's vjp as the binding calls it: residuals built, its result checked. */
export function tensorVjp(vjp: VjpFn, statics: unknown[], label: string): G.VjpAdapter {
  return {
    vjp: (inputs, outputs, grads) => {
      let r: unknown = vjp({ inputs, outputs, statics }, grads);
      if (!Array.isArray(r)) r = [r];
      const list = r as unknown[];
      if (list.length !== inputs.length) {
        throw new Error(`expected ${inputs.length} gradient${inputs.length === 1 ? '' : 's'} (one per tensor input, null for none), got ${list.length}`);
      }
      return list.map((g, i) => {
        if (g === null || g === undefined) return null;
        if (!(g instanceof Tensor) || g.isDisposed) throw new Error(`gradient ${i} must be a Tensor or null, got ${describe(g)}`);
        // Where its input is: a vjp that builds a gradient from host values (as its callback got
        // host copies of GPU inputs, compile.ts) may make it on the CPU for an input on a GPU.
        const device = inputs[i]!.device;
        return g.device === device ? g : g.to(device);
      });
    },
    describeError: (e) => `jsCall: the vjp of callback ${label} raised: ${message(e)}`,
    tidy,
  };
}

const host: G.GraphHost = {
  describe(id) {
    return entry(id)?.label ?? `#${id}`;
  },
  hasVjp(id) {
    const e = entry(id);
    return e !== undefined && e.kind === 'callback' && e.vjp !== undefined;
  },
  vjpOf(id) {
    const e = entry(id);
    if (e === undefined || e.kind !== 'callback' || e.vjp === undefined) return undefined;
    return tensorVjp(e.vjp, e.statics, e.label);
  },
  hostStep(id) {
    try {
      const e = entry(id);
      if (e === undefined || e.kind !== 'host') throw new Error(`sg.compile: no host step #${id}`);
      e.run();
      return undefined;
    } catch (e) {
      return message(e);
    }
  },
};

/** Installs the host in the current module (idempotent). */
export function ensureGraphHost(): void {
  G.ensureHost(host);
}
