// The lint toolchain, re-exported so that eslint.config.mjs at the root loads it from here: this
// package's node_modules hold TypeScript 6 (the root has TypeScript 7, which has no JS compiler API),
// and typescript-eslint resolves `typescript` from where it is installed.
export { default as js } from '@eslint/js';
export { default as tseslint } from 'typescript-eslint';
export { default as globals } from 'globals';
