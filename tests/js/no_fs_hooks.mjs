// Module hooks (node:module register) for pretrained_no_fs.test.mjs: the package's own dynamic
// import of 'node:fs/promises' fails, as it does in a browser or a worker without Node's fs, while
// every other import (the test's, Node's) resolves as usual. Only imports made from the package's
// files (npm/dist) are refused.
export async function resolve(specifier, context, next) {
  if (specifier === 'node:fs/promises' && /[\\/]npm[\\/]dist[\\/]/.test(context.parentURL ?? '')) {
    throw new Error("Cannot find package 'node:fs/promises' (no fs in this runtime)");
  }
  return next(specifier, context);
}
