// simdgrad: appended (emcc --post-js) inside the factory of the threaded module simdgrad-mt.mjs,
// where Emscripten's PThread and wasmMemory are in scope. npm/src/runtime/threads.ts drives it.
//
// Why: a C++ std::thread needs an idle Web Worker (worker_threads in Node) that has already
// instantiated the wasm module, or pthread_create fails (PTHREAD_POOL_SIZE_STRICT=2) instead of
// deadlocking the caller. Instead of a fixed PTHREAD_POOL_SIZE, init({ threads: n }) loads
// exactly the workers it needs first (ensureIdleWorkers), then starts the C++ pool.
//
// The worker import()s the glue by this URL (see patch-glue.mjs, rewrite 4): _scriptDir is the
// glue's import.meta.url (Emscripten's ES6 wrapper; import.meta itself trips its JS optimizer
// here). Only where no caller set one, and never inside a worker itself.
if (!ENVIRONMENT_IS_PTHREAD && !Module["mainScriptUrlOrBlob"] && _scriptDir) Module["mainScriptUrlOrBlob"] = _scriptDir;

Module["sgThreads"] = {
  ensureIdleWorkers: function (count) {
    var missing = count - PThread.unusedWorkers.length;
    var loads = [];
    for (var i = 0; i < missing; ++i) {
      PThread.allocateUnusedWorker();
      var worker = PThread.unusedWorkers[PThread.unusedWorkers.length - 1];
      loads.push(new Promise(function (resolve, reject) {
        var fail = function (e) {
          reject(new Error("simdgrad: a thread worker (simdgrad-mt.worker.js) failed to load: " +
                           ((e && e.message) || e)));
        };
        if (ENVIRONMENT_IS_NODE) worker.once("error", fail);
        else worker.addEventListener("error", fail);
        PThread.loadWasmModuleToWorker(worker, function () { resolve(); });
      }));
    }
    return Promise.all(loads);
  },
  // Node: idle workers must not keep the process alive once the user's script is done (the C++
  // pool threads sleep on a futex between calls). Called after they are loaded.
  unrefWorkers: function () {
    if (!ENVIRONMENT_IS_NODE) return;
    PThread.unusedWorkers.concat(PThread.runningWorkers).forEach(function (w) {
      if (typeof w.unref == "function") w.unref();
    });
  },
  // Ends every worker (after the C++ side has joined its threads).
  terminateWorkers: function () {
    PThread.terminateAllThreads();
  },
  // The shared memory itself: a worker that grows the heap replaces wasmMemory.buffer, and the
  // main thread's HEAPU8 is only refreshed when the glue next touches the heap.
  memory: function () {
    return wasmMemory;
  },
};
