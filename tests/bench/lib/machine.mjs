// What the bench runs on: the CPU model and the facts that tell its kind apart (vendor,
// family/model, caches), read from /proc/cpuinfo and sysfs on Linux, os.cpus() elsewhere.
// Kernels tuned on one CPU kind can lose on another, so every result names its machine,
// and results/ keeps one file per kind (see kindSlug).
import { readFileSync } from 'node:fs';
import os from 'node:os';

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The first processor's fields of /proc/cpuinfo ("model name" → "AMD EPYC", ...), or {}. */
function cpuinfoFields() {
  const text = readText('/proc/cpuinfo');
  if (!text) return {};
  const first = text.split(/\n\s*\n/)[0];
  return Object.fromEntries(first.split('\n').map((l) => l.split(/\s*:\s*/, 2)).filter((kv) => kv.length === 2));
}

/** Size of cache `index` of cpu0 from sysfs ("48K"), or null. */
function cacheSize(level, type) {
  for (let i = 0; i < 6; i++) {
    const dir = `/sys/devices/system/cpu/cpu0/cache/index${i}`;
    const lvl = readText(`${dir}/level`)?.trim();
    const t = readText(`${dir}/type`)?.trim();
    if (lvl === String(level) && (t === type || t === 'Unified')) return readText(`${dir}/size`)?.trim() ?? null;
  }
  return null;
}

export function machineInfo() {
  const f = cpuinfoFields();
  const flags = new Set((f.flags ?? '').split(/\s+/));
  const model = f['model name'] ?? os.cpus()[0]?.model ?? 'unknown CPU';
  return {
    model,
    vendor: f.vendor_id ?? null,
    family: f['cpu family'] != null ? Number(f['cpu family']) : null,
    modelNumber: f.model != null ? Number(f.model) : null,
    stepping: f.stepping != null ? Number(f.stepping) : null,
    cores: os.cpus().length,
    l1d: cacheSize(1, 'Data'),
    l2: cacheSize(2, 'Unified'),
    avx512: flags.has('avx512f'),
    arch: process.arch,
    node: process.version,
  };
}

/** One line for headers: "AMD EPYC (AuthenticAMD family 26 model 2, L1d 48K, L2 1024K, AVX-512), 2 cores". */
export function machineLine(m) {
  const id = m.vendor ? `${m.vendor} family ${m.family} model ${m.modelNumber}` : m.arch;
  const caches = [m.l1d && `L1d ${m.l1d}`, m.l2 && `L2 ${m.l2}`, m.avx512 && 'AVX-512'].filter(Boolean).join(', ');
  return `${m.model} (${id}${caches ? `, ${caches}` : ''}), ${m.cores} cores`;
}

/**
 * The file name of a machine kind in results/: the model name plus family and model number,
 * which tell CPU generations apart when the model name is masked (as "AMD EPYC" is on
 * virtual machines): e.g. "amd-epyc-f26-m2".
 */
export function kindSlug(m) {
  const base = m.model.toLowerCase().replace(/\(r\)|\(tm\)|cpu|processor|@.*$/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return m.family != null ? `${base}-f${m.family}-m${m.modelNumber}` : `${base}-${m.arch}`;
}
