// The configuration object of a ready model: named options (camelCase of the Python
// originals), each checked, with the originals' defaults for those left out.
import { checkOptions, describe, isInteger, type Spec } from '../runtime/options.js';

export const positiveInteger = { check: (v: unknown) => isInteger(v) && v > 0, expected: 'a positive integer' };
export const probability = { check: (v: unknown) => typeof v === 'number' && v >= 0 && v < 1, expected: 'a number in [0, 1)' };
export const positiveNumber = { check: (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0, expected: 'a positive finite number' };

/** The full configuration: `config`'s values over `defaults`, every key checked against `spec`. */
export function modelConfig<T extends object>(fn: string, config: unknown, spec: Spec, defaults: T): T {
  if (config !== undefined && (config === null || typeof config !== 'object' || Array.isArray(config))) {
    throw new Error(`${fn}: expected a configuration object, got ${describe(config)}`);
  }
  const given = checkOptions<T>(fn, config, spec);
  const out = { ...defaults };
  for (const [k, v] of Object.entries(given)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * A state dict (object or Map) as a Map without the keys `ignored` picks (buffers PyTorch saves
 * that a model here does not have); anything else is returned as is for loadStateDict to refuse.
 */
export function withoutKeys(stateDict: unknown, ignored: (key: string) => boolean): unknown {
  let entries: [string, unknown][];
  if (stateDict instanceof Map) entries = [...stateDict.entries()];
  else if (stateDict !== null && typeof stateDict === 'object' && Object.getPrototypeOf(stateDict) === Object.prototype) entries = Object.entries(stateDict);
  else return stateDict;
  return new Map(entries.filter(([k]) => !ignored(k)));
}
