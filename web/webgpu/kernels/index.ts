// Every WGSL kernel by the name bindings/webgpu_backend.cpp calls it with.
import { elementwise } from './elementwise.js';
import { casts } from './casts.js';
import { reduce } from './reduce.js';
import { gemm } from './gemm.js';
import { layer } from './layer.js';
import { layerNorm } from './layer_norm.js';
import { rnn } from './rnn.js';
import { optim } from './optim.js';
import { random } from './random.js';
import { indexing } from './indexing.js';
import { conv } from './conv.js';
import { pool } from './pool.js';
import { fused } from './fused.js';
import { scan } from './scan.js';
import { sort } from './sort.js';
import type { KernelFn } from './common.js';

export type { KernelContext, KernelFn } from './common.js';

export const KERNELS: Record<string, KernelFn> = {
  ...elementwise,
  ...casts,
  ...reduce,
  ...gemm,
  ...layer,
  ...layerNorm,
  ...rnn,
  ...optim,
  ...random,
  ...indexing,
  ...conv,
  ...pool,
  ...fused,
  ...scan,
  ...sort,
};
