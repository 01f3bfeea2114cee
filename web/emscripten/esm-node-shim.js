// simdgrad: prepended (emcc --extern-pre-js) to the ES-module glue simdgrad.mjs,
// outside the module factory.
//
// Why: Emscripten 3.1.6's Node code path calls require("fs"), require("path")
// and reads __dirname, none of which exist in a Node ES module. We declare them
// here (module-scoped, so nothing global is touched) and fill them in, in Node
// only, before the real factory runs; patch-glue.mjs wraps the default export
// with sgWithNodeShim. Browsers and bundlers never take the Node branch: the
// specifier is a variable and marked ignored, so Vite/webpack/Rollup do not try
// to resolve Node's "module" builtin, and there is no top-level await (which
// Vite's default build targets reject).
var require, __dirname, __filename;
var sgNodeShimPromise = null;
function sgWithNodeShim(factory) {
  var isNode = typeof process == "object" && typeof process.versions == "object" &&
               typeof process.versions.node == "string";
  if (!isNode) return factory;
  return function (moduleArg) {
    if (!sgNodeShimPromise) {
      var spec = "module";
      // process.getBuiltinModule (Node >= 20.16) is synchronous; older Node 20 use import().
      var load = typeof process.getBuiltinModule == "function"
        ? Promise.resolve(process.getBuiltinModule(spec))
        : import(/* webpackIgnore: true */ /* @vite-ignore */ spec);
      sgNodeShimPromise = load.then(function (m) {
        var req = m.createRequire(import.meta.url);
        if (typeof require != "function") require = req;
        if (__filename === undefined) __filename = req("url").fileURLToPath(import.meta.url);
        if (__dirname === undefined) __dirname = req("path").dirname(__filename);
      });
    }
    return sgNodeShimPromise.then(function () { return factory(moduleArg); });
  };
}
