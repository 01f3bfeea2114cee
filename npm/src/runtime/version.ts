// The package version, kept equal to npm/package.json's "version" (tests/js check it).
export const version = '0.1.0';
