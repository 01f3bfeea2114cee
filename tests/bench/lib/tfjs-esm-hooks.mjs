// Node module-resolution hook (registered by lib/tfjs.mjs through module.register).
// @tensorflow/tfjs-core's Node bundle ships no gradient functions: they live only in its
// unbundled ES modules (dist/register_all_gradients.js), whose relative imports have no
// '.js' extension (written for bundlers). This hook adds the extension for relative
// imports made from inside tfjs-core's dist/, so Node can load that one file tree.
export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? '';
  if (parent.includes('/@tensorflow/tfjs-core/dist/') && /^\.\.?\//.test(specifier) && !/\.(m?js|json)$/.test(specifier)) {
    try {
      return await next(`${specifier}.js`, context);
    } catch {
      return next(`${specifier}/index.js`, context);  // a folder import ('./ops')
    }
  }
  return next(specifier, context);
}
