// Module hooks (node:module register) for onnx_no_proto.test.mjs: the package's own import of the
// optional peer dependency 'onnx-proto' fails, as when it is not installed; imports made by other
// files (the test's own import of onnx-proto) resolve as usual.
export async function resolve(specifier, context, next) {
  if (specifier === 'onnx-proto' && /[\\/]npm[\\/]dist[\\/]/.test(context.parentURL ?? '')) {
    throw new Error("Cannot find package 'onnx-proto' (not installed)");
  }
  return next(specifier, context);
}
