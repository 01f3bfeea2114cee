// Stryker's build command (scripts/mutation_ts.mjs), run inside its sandbox: transpiles the given
// .ts files (Stryker's instrumented copies, every mutant of the sample switched at run time) to
// npm/dist/esm/<same path>.js with the compiler options of npm/tsconfig.esm.json. Per-file
// transpiling gives tsc's own output for this project: its tsconfig sets isolatedModules, which
// guarantees that each file compiles on its own. The other dist files stay the copies of the real
// build (Stryker links npm/node_modules into the sandbox itself). Type errors are not looked for here: the TypeScript checker has already dropped the
// mutants that do not compile (without it, mutation_ts.mjs --no-checker, they run as JavaScript).
//   node scripts/mutation_ts_transpile.mjs npm/src/a.ts [more.ts...]   (cwd: the sandbox)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

// TypeScript is npm/'s devDependency (this repository has no top-level node_modules).
const ts = createRequire(new URL('../npm/package.json', import.meta.url))('typescript');

const configFile = 'npm/tsconfig.esm.json';
const parsed = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
const options = { ...parsed.options, declaration: false, sourceMap: false, rootDir: undefined, outDir: undefined,
  // NodeNext would make transpileModule (which sees no package.json) emit CommonJS; the files are ES
  // modules ("type": "module"), for which NodeNext emits what ES2022 does.
  module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler, incremental: false, tsBuildInfoFile: undefined, noEmit: false };
for (const file of process.argv.slice(2)) {
  const out = join('npm/dist/esm', file.replace(/\.ts$/, '.js'));
  const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file, reportDiagnostics: true });
  if (diagnostics?.length) {
    console.error(`${file}: ${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`);
    process.exit(1);
  }
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, outputText);
  console.log(`transpiled ${file} -> ${out}`);
}
