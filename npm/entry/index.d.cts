// Types of dist/index.cjs (require): same as index.d.ts, over the CommonJS build.
import type { createInit } from "./cjs/npm/src/index.js";
export * from "./cjs/npm/src/index.js";
export declare const init: ReturnType<typeof createInit>;
declare const _default: { init: typeof init };
export default _default;
