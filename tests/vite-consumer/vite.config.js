// Plain object (no `import from 'vite'`): the app is copied next to an installed simdgrad tarball,
// and vite itself lives in tests/browser/node_modules.
export default {
  // Relative asset URLs: dist/ can be served under any prefix.
  base: './',
  // The dev server's dependency pre-bundling (esbuild) moves simdgrad.mjs into
  // node_modules/.vite/deps, where new URL('simdgrad.wasm', import.meta.url) finds no file and the
  // dev server answers with index.html (seen: "expected magic word 00 61 73 6d, found 3c 21 64 6f").
  // Excluded, the package is served as installed. `vite build` needs nothing.
  optimizeDeps: { exclude: ['simdgrad'] },
  // Cross-origin isolation, so that ?threads=N (SharedArrayBuffer) works under the dev server too.
  server: { headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } },
  logLevel: 'warn',
};
