// CommonJS entry of the simdgrad package (copied to dist/index.cjs by scripts/build.sh).
// Same shape as index.mjs: the JS layer from dist/cjs + the CommonJS glue, which
// finds simdgrad.wasm next to itself (__dirname in Node, script URL in browsers).
// The threaded module exists as an ES module only (dist/mt/simdgrad-mt.mjs): init() is async
// anyway, so it is import()ed when init({ threads: n > 1 }) asks for it.
"use strict";
const createSimdgrad = require("./simdgrad.cjs");
const api = require("./cjs/npm/src/index.js");

const init = api.createInit(createSimdgrad, () => import("./mt/simdgrad-mt.mjs").then((m) => m.default));
module.exports = { ...api, init, default: { init } };
Object.defineProperty(module.exports, "__esModule", { value: true });
