#!/usr/bin/env node
// Completes tests/browser/package-lock.json for `npm ci` (run after every `npm install` here):
//   node lib/complete-lockfile.mjs
//
// Why: rollup (Vite's bundler) lists one optional native package per platform
// (@rollup/rollup-<os>-<cpu>[-<abi>]). The registry this project installs from serves only some
// of them (linux x64/arm64 glibc); npm install skips the rest without a lock entry, and then
// `npm ci` refuses the lockfile ("Missing: @rollup/rollup-darwin-x64@ from lock file"). This adds
// an entry for each missing one, with the os/cpu/libc its name encodes (the napi-rs platform
// triples), so npm ci sees a complete tree and skips them on this platform without fetching.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LOCK = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const TRIPLE = /-(android|darwin|freebsd|linux|openbsd|openharmony|win32)-(arm64|arm|x64|ia32|loong64|ppc64|riscv64|s390x)(?:-(gnu|musl|gnueabihf|musleabihf|eabi|msvc))?$/;

const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const pkgs = lock.packages;
let added = 0;
for (const [path, info] of Object.entries(pkgs)) {
  for (const [name, version] of Object.entries(info.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (pkgs[key]) continue;
    const m = TRIPLE.exec(name);
    if (!m) throw new Error(`${path}: optional dependency ${name} is missing from the lockfile and names no platform`);
    const [, os, cpu, abi] = m;
    const libc = abi === 'gnu' || abi === 'gnueabihf' ? ['glibc'] : abi === 'musl' || abi === 'musleabihf' ? ['musl'] : undefined;
    if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`${name}: expected an exact version, got ${version}`);
    pkgs[key] = { version, cpu: [cpu], dev: true, ...(libc && os === 'linux' ? { libc } : {}), optional: true, os: [os] };
    added++;
  }
}
// npm keeps entries sorted by path.
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entr${added === 1 ? 'y' : 'ies'}`);
