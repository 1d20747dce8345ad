// What `npm pack` ships (tools/dist.sh packs it for a release): the compiled JS and .d.ts of
// both builds, README, LICENSE; no sources or tests. With RSBLOOM_TEST_NPM_INSTALL set (the
// Rust suite sets it) the tarball is also installed into a fresh project and loaded both ways.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = join(dirname(fileURLToPath(import.meta.url)), '..');

test('npm pack lists the builds, their declarations, README and LICENSE only', async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: here });
  const [packed] = JSON.parse(stdout);
  assert.equal(packed.name, 'rsbloom');
  assert.equal(packed.version, '0.1.0');
  const files = packed.files.map((f) => f.path);
  for (const f of ['README.md', 'LICENSE', 'package.json', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/esm/package.json', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json']) {
    assert.ok(files.includes(f), `${f} is packed`);
  }
  assert.deepEqual(files.filter((f) => !/^(README\.md|LICENSE|package\.json|dist\/(esm|cjs)\/[a-z]+\.(js|d\.ts)|dist\/(esm|cjs)\/package\.json)$/.test(f)), []);
});

test('the packed tarball installs and loads by import and by require', { skip: process.env.RSBLOOM_TEST_NPM_INSTALL ? false : 'RSBLOOM_TEST_NPM_INSTALL not set', timeout: 180_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'rsbloom-install-'));
  try {
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: here });
    assert.ok((await readdir(dir)).includes('rsbloom-0.1.0.tgz'));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'try-rsbloom', version: '1.0.0', private: true }));
    // redis comes from npm's cache where it can (the package's own install fetched it).
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', './rsbloom-0.1.0.tgz'], { cwd: dir, timeout: 170_000 });
    const cjs = await run(process.execPath, ['-e', "const r = require('rsbloom'); console.log(r.keySlot('foo'), typeof r.ShardedCuckoo, require.resolve('rsbloom'))"], { cwd: dir });
    assert.match(cjs.stdout, /^12182 function .*node_modules\/rsbloom\/dist\/cjs\/index\.js$/m);
    const esm = await run(process.execPath, ['--input-type=module', '-e', "import { keySlot, ShardedBloom } from 'rsbloom'; console.log(keySlot('foo'), typeof ShardedBloom, import.meta.resolve('rsbloom'))"], { cwd: dir });
    assert.match(esm.stdout, /^12182 function .*node_modules\/rsbloom\/dist\/esm\/index\.js$/m);
    assert.deepEqual((await readdir(join(dir, 'node_modules', 'rsbloom'))).sort(), ['LICENSE', 'README.md', 'dist', 'package.json']);
    assert.ok((await readdir(join(dir, 'node_modules'))).includes('redis'), 'the redis peer dependency was installed');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
