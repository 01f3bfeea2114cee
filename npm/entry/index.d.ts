// Types of dist/index.mjs (import). Everything the JS layer exports, plus the
// ready-made init() bound to the bundled wasm module.
import type { createInit } from "./esm/index.js";
export * from "./esm/index.js";
export declare const init: ReturnType<typeof createInit>;
declare const _default: { init: typeof init };
export default _default;
