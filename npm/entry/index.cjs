// CommonJS entry of the simdgrad package (copied to dist/index.cjs by scripts/build.sh).
// Same shape as index.mjs: the JS layer from dist/cjs + the Emscripten glue. There is one glue,
// the ES module simdgrad.mjs (it finds simdgrad.wasm next to itself via import.meta.url): init()
// is async anyway, so the CommonJS entry import()s it on the first init(), as it does the
// threaded module (dist/mt/simdgrad-mt.mjs) for init({ threads: n > 1 }). A CommonJS glue of
// its own would cost CI a second -O3 link of the same wasm (~60 s of CPU) for no difference:
// Node's require() and bundlers both follow import() from CommonJS.
"use strict";
const api = require("./cjs/npm/src/index.js");

const createSimdgrad = (options) => import("./simdgrad.mjs").then((m) => m.default(options));
const init = api.createInit(createSimdgrad, () => import("./mt/simdgrad-mt.mjs").then((m) => m.default));
module.exports = { ...api, init, default: { init } };
Object.defineProperty(module.exports, "__esModule", { value: true });
