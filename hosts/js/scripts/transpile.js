// Transpiles the engine component (and the sandbox probe beside it, when
// built) into the component cache, so the first HiveMind.open does not
// have to: `npm run transpile [COMPONENT.wasm ...]`. Without arguments, the
// default component (`$HIVE_MIND_COMPONENT`, else this source tree's guest
// build). Idempotent: a component already in the cache is left as it is.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { cacheDir, defaultComponentPath, loadComponent } from '../src/component.js';

const paths = process.argv.slice(2);
if (!paths.length) {
  paths.push(defaultComponentPath());
  const probe = join(dirname(defaultComponentPath()), 'hive-mind-sandbox-probe.wasm');
  if (existsSync(probe)) paths.push(probe);
}
for (const path of paths) {
  if (!existsSync(path)) {
    console.error(`transpile: no component at ${path} (build it with \`just build-guest\`, or set HIVE_MIND_COMPONENT); skipped`);
    continue;
  }
  const { dir } = await loadComponent(path);
  console.error(`transpile: ${path} -> ${dir}`);
}
console.error(`transpile: cache ${cacheDir()}`);
