// ES-module entry of the simdgrad package (copied to dist/index.mjs by scripts/build.sh).
// The JS layer (dist/esm, compiled from npm/src) is written against an injected
// Emscripten factory, so the same code serves the ESM and CommonJS entries.
// simdgrad.mjs finds simdgrad.wasm next to itself via import.meta.url, which
// Node, browsers and bundlers (Vite's new URL(..., import.meta.url)) all follow.
// The threaded module (init({ threads: n > 1 })) is imported only when asked for; it finds
// its .wasm and .worker.js next to itself in dist/mt/ the same way.
import createSimdgrad from "./simdgrad.mjs";
import { createInit } from "./esm/npm/src/index.js";

export * from "./esm/npm/src/index.js";
export const init = createInit(createSimdgrad, () => import("./mt/simdgrad-mt.mjs").then((m) => m.default));
export default { init };
