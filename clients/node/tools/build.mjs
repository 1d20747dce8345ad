// The dual build: tsc twice (ES module and CommonJS, each with its .d.ts) into a fresh dist/,
// each half marked with its own package.json so Node reads its .js files as the right kind.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const [config, kind] of [['tsconfig.json', 'esm'], ['tsconfig.cjs.json', 'cjs']]) {
  execFileSync(process.execPath, [tsc, '-p', join(root, config)], { stdio: 'inherit' });
  mkdirSync(join(root, 'dist', kind), { recursive: true });
  const type = kind === 'esm' ? 'module' : 'commonjs';
  writeFileSync(join(root, 'dist', kind, 'package.json'), JSON.stringify({ type }) + '\n');
}
