// Types of dist/index.cjs (require): same as index.d.ts, over the CommonJS build.
import type { createInit } from "./cjs/index.js";
export * from "./cjs/index.js";
export declare const init: ReturnType<typeof createInit>;
declare const _default: { init: typeof init };
export default _default;
