// Module hooks (node:module register) for tokenizers_no_package.test.mjs: the package's import of
// '@huggingface/tokenizers' fails, as in a browser page without a bundler or an import map; other
// imports resolve as usual.
export async function resolve(specifier, context, next) {
  if (specifier === '@huggingface/tokenizers' && /[\\/]npm[\\/]dist[\\/]/.test(context.parentURL ?? '')) {
    throw new Error("Cannot find package '@huggingface/tokenizers'");
  }
  return next(specifier, context);
}
