#!/usr/bin/env node
// Post-link fixes for Emscripten 3.1.6 glue (run by CMake after each link).
//   node web/emscripten/patch-glue.mjs <glue.js|glue.mjs|glue.worker.js> [...]
//
// 1. Node 20 has a global fetch(), so the stock glue fetch()es the .wasm path in
//    Node and fails ("Failed to parse URL" for a path, "not implemented" for a
//    file: URL). Every fetch test gets "&& !ENVIRONMENT_IS_NODE": Node reads the
//    file with fs, browsers and workers keep fetch/instantiateStreaming.
// 2. The ESM glue locates the wasm as new URL("x.wasm", import.meta.url), i.e. a
//    file: URL in Node, which fs cannot open after path.normalize: convert it.
// 3. ESM only: route the default export through sgWithNodeShim (defined by
//    esm-node-shim.js, which emcc prepends) so require/__dirname exist in Node.
// 4. The threaded module's worker file (x.worker.js): its two import()s of the glue go through
//    `new Function("u", "return import(u)")`. Bundlers bundle what `new Worker(new URL(...,
//    import.meta.url))` points at; Vite, seeing import() in it, code-splits the worker and then
//    fails ("Invalid value 'iife' for option worker.format"): `vite build` broke for every user
//    of the package, threads or not. Hidden, the worker bundles as one file and import()s the
//    glue by its real URL at run time (mt-post.js sets mainScriptUrlOrBlob: a bundler renames
//    and moves the glue). Costs: pages whose CSP forbids eval cannot start threads.
// Each rewrite must match or the build fails: a silent no-op after an emscripten
// upgrade would only show up as a broken package.
import { readFileSync, writeFileSync } from "node:fs";

const MARK = "/* simdgrad: patched by web/emscripten/patch-glue.mjs */";

function replaceAll(src, re, fn, what, file, { min = 1, max = Infinity } = {}) {
  let n = 0;
  const out = src.replace(re, (...m) => { n++; return fn(...m); });
  if (n < min || n > max) {
    throw new Error(`${file}: expected ${min}..${max} match(es) for ${what}, found ${n}; ` +
                    `the emscripten glue changed, update web/emscripten/patch-glue.mjs`);
  }
  return out;
}

for (const file of process.argv.slice(2)) {
  let src = readFileSync(file, "utf8");
  if (src.includes(MARK)) continue;  // already patched (re-run without relink)

  if (file.endsWith(".worker.js")) {
    src = replaceAll(src, /\bimport\(/g, () => "sgImport(", "import( in the worker", file, { min: 2, max: 2 });
    // After the "use strict" directive, which must stay first.
    const strict = /^\s*(["'])use strict\1;?/.exec(src);
    const at = strict ? strict[0].length : 0;
    src = `${src.slice(0, at)}\nvar sgImport = new Function("u", "return import(u)");\n${src.slice(at)}`;
    writeFileSync(file, `${src}\n${MARK}\n`);
    continue;
  }

  src = replaceAll(src, /typeof fetch\s*==\s*(["'])function\1/g,
    (m) => `${m}&&!ENVIRONMENT_IS_NODE`, "typeof fetch tests", file);

  src = replaceAll(src, /filename\s*=\s*nodePath\[(["'])normalize\1\]\(filename\)/g,
    (_m, q) => `filename=nodePath[${q}normalize${q}](String(filename).startsWith("file:")?require("url").fileURLToPath(filename):filename)`,
    "Node readers (read_/readAsync)", file, { min: 1, max: 2 });

  if (file.endsWith(".mjs")) {
    if (!src.includes("function sgWithNodeShim(")) {
      throw new Error(`${file}: esm-node-shim.js is missing (link with --extern-pre-js)`);
    }
    src = replaceAll(src, /export default (\w+);/g,
      (_m, name) => `export default sgWithNodeShim(${name});`, "export default", file, { min: 1, max: 1 });
  }
  writeFileSync(file, `${src}\n${MARK}\n`);
}
