// Types of dist/index.mjs (import). Everything the JS layer exports, plus the
// ready-made init() bound to the bundled wasm module.
import type { createInit } from "./esm/npm/src/index.js";
export * from "./esm/npm/src/index.js";
export declare const init: ReturnType<typeof createInit>;
declare const _default: { init: typeof init };
export default _default;
