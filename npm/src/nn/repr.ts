// How PyTorch's extra_repr writes a module's settings (Python's repr of each), so that
// String(module) reads as PyTorch 1.13 prints the same module (tests/js/nn_repr_torch.test.mjs
// compares with PyTorch's own reprs, tests/data/gen_module_repr.py).

/**
 * A number as Python's repr of a float (1e-05, 0.0001, 0.25, nan, inf), except that an integer
 * prints as one (1, not 1.0): JavaScript has one number type, and PyTorch's repr of a setting
 * given as an int prints it so too.
 */
export function pyNumber(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (Number.isInteger(v)) return String(v);
  // Python switches to the exponent form below 1e-4 (JavaScript below 1e-6), with a sign and at
  // least two exponent digits; a non-integer is below 2^53, so never large enough for 1e+16.
  const [mantissa, e] = v.toExponential().split('e') as [string, string];
  const exp = Number(e);
  return exp < -4 ? `${mantissa}e-${String(-exp).padStart(2, '0')}` : String(v);
}

/** A setting as Python's repr writes it: True/False, None, numbers as pyNumber, arrays as tuples ((3,) for one); strings as they are. */
export function pyRepr(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'number') return pyNumber(v);
  if (Array.isArray(v)) return `(${v.map(pyRepr).join(', ')}${v.length === 1 ? ',' : ''})`;
  return String(v);
}
