// Loading a component: transpiled to JavaScript by jco (once per component
// file and jco version, cached on disk), its core modules compiled, and an
// `instantiate(imports)` that runs jco's synchronous instantiation.
//
// The cache is `$HIVE_MIND_CACHE_DIR`, else `$XDG_CACHE_HOME/hive-mind/
// components` (`~/.cache` when unset), as the other hosts cache their
// compiled components: one folder per component, named by its file's stem,
// the jco-transpile version and the first 32 hex digits of its SHA-256,
// written under a temporary name and renamed into place. Beside jco's files
// the folder keeps `interfaces.json`: the component's imports and exports
// as jco listed them, so a component of another version, or another
// component, is named as such (see `checkEngine`) rather than failing on
// its first call.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync, mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** The engine component's file name in a guest build. */
export const COMPONENT_FILE = 'hive_mind_engine_component.wasm';

/** This package's folder (`hosts/js`). */
export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The repository root when this package sits in its source tree. */
export const REPOSITORY = resolve(PACKAGE_DIR, '..', '..');

/**
 * The jco-transpile version, part of the cache key: read from its
 * package.json, found above its entry point wherever npm installed it (its
 * `exports` do not expose the file itself).
 */
function transpilerVersion() {
  const name = '@bytecodealliance/jco-transpile';
  let dir = dirname(require.resolve(name));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8'));
      if (parsed.name === name) return parsed.version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${name}: no package.json above ${require.resolve(name)}`);
    dir = parent;
  }
}

/** The component inside an installed package (`cargo xtask dist` puts it there). */
export const PACKAGED_COMPONENT = join(PACKAGE_DIR, 'components', COMPONENT_FILE);

/**
 * `$HIVE_MIND_COMPONENT`, else the component installed with this package,
 * else the guest build of this source tree.
 */
export function defaultComponentPath() {
  const configured = process.env.HIVE_MIND_COMPONENT;
  if (configured) return configured;
  if (existsSync(PACKAGED_COMPONENT)) return PACKAGED_COMPONENT;
  return join(REPOSITORY, 'target', 'guest', 'wasm32-wasip2', 'guest', COMPONENT_FILE);
}

/** Where transpiled components are cached. */
export function cacheDir() {
  const configured = process.env.HIVE_MIND_CACHE_DIR;
  if (configured) return configured;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'hive-mind', 'components');
}

/** The version of the WIT package `hive:mind` this host implements
 * (test/component.test.js compares it with wit/). */
export const WIT_VERSION = '0.2.0';

/** The interfaces the engine component exports, each
 * `hive:mind/<name>@WIT_VERSION`. */
export const ENGINE_EXPORTS = ['memory', 'admin', 'review', 'harvest', 'wiki'];

/** A component file that is not one (missing, truncated, not a component,
 * not the engine of this host's version). */
export class ComponentError extends Error {
  constructor(path, message) {
    super(`${path}: ${message}`);
    this.name = 'ComponentError';
    this.path = path;
  }
}

// The component-model binary starts with `\0asm`, then version 0x0d and
// layer 1 (a core module has layer 0).
const COMPONENT_HEADER = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];

/** The file beside jco's output listing the component's interfaces. */
const INTERFACES = 'interfaces.json';

/**
 * Check that `component` (from loadComponent) is the engine of this host's
 * WIT version: it exports every ENGINE_EXPORTS interface as
 * `hive:mind/<name>@WIT_VERSION`. Else a ComponentError saying what it is:
 * the engine of another version, or another component.
 */
export function checkEngine(component) {
  const versions = new Map();
  for (const name of component.exports) {
    const match = /^hive:mind\/([a-z-]+)@(.+)$/.exec(name);
    if (match && ENGINE_EXPORTS.includes(match[1])) versions.set(match[1], match[2]);
  }
  const others = [...new Set(versions.values())].filter((version) => version !== WIT_VERSION);
  if (others.length > 0) {
    throw new ComponentError(
      component.path,
      `an engine of hive:mind@${others.join(', ')}; this host speaks hive:mind@${WIT_VERSION} (use the component this package ships, or a host of that version)`,
    );
  }
  const lacking = ENGINE_EXPORTS.filter((name) => !versions.has(name));
  if (lacking.length > 0) {
    const exported = component.exports.filter((name) => name.includes(':'));
    throw new ComponentError(
      component.path,
      `not the engine component: it does not export ${lacking.map((name) => `hive:mind/${name}@${WIT_VERSION}`).join(', ')} (it exports ${exported.join(', ') || 'nothing named'})`,
    );
  }
}

/** WebAssembly's page: 64 KiB. */
const PAGE_BYTES = 65536;

function readLeb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (at >= bytes.length) throw new RangeError('a LEB128 number runs past the end');
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return [value, at];
  }
}

function leb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

/**
 * A core module's bytes with its own memory (the memory section's one
 * 32-bit memory) given a maximum of `maxBytes` (whole pages; at least its
 * minimum): a `memory.grow` past it then fails inside the guest, as the
 * Rust host's limiter refuses it. A module without a memory section, or
 * whose memory already has a lower maximum, is returned as it is.
 */
export function withMemoryMax(bytes, maxBytes) {
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, body] = readLeb(bytes, at + 1);
    if (id === 5) {
      const [count, flagsAt] = readLeb(bytes, body);
      const flags = bytes[flagsAt];
      if (count !== 1 || (flags & ~1) !== 0) return bytes; // 64-bit or shared: not this engine's
      const [minimum, afterMin] = readLeb(bytes, flagsAt + 1);
      let rest = afterMin;
      if (flags & 1) {
        const [maximum, afterMax] = readLeb(bytes, afterMin);
        if (maximum * PAGE_BYTES <= maxBytes) return bytes;
        rest = afterMax;
      }
      const pages = Math.max(minimum, Math.floor(maxBytes / PAGE_BYTES));
      const section = [...leb(count), flags | 1, ...leb(minimum), ...leb(pages), ...bytes.subarray(rest, body + size)];
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([5, ...leb(section.length), ...section]), bytes.subarray(body + size)]);
    }
    at = body + size;
  }
  return bytes;
}

/** What `WebAssembly.promising` falls back to in jco's bindings. */
function plainExport(exported) {
  return exported;
}

/**
 * The transpiled component at `path`: `{ instantiate(imports), dir }`,
 * transpiling it into the cache on the first use; `memoryBytes` caps its
 * memory (`withMemoryMax`; null: wasm32's 4 GiB). Raises ComponentError
 * naming the file when it is missing or not a component.
 */
export async function loadComponent(path, { memoryBytes = null } = {}) {
  path = resolve(path);
  let bytes;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if (error.code === 'ENOENT') {
      throw new ComponentError(
        path,
        'no engine component here; build it (`just build-guest`) or set HIVE_MIND_COMPONENT',
      );
    }
    throw new ComponentError(path, `unreadable: ${error.message}`);
  }
  if (bytes.length < 8 || COMPONENT_HEADER.some((byte, i) => bytes[i] !== byte)) {
    throw new ComponentError(path, 'not a WebAssembly component (its header is not a component\'s)');
  }
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  const stem = basename(path).replace(/\.wasm$/, '').replace(/[^A-Za-z0-9_.-]/g, '_');
  const name = 'component';
  const dir = join(cacheDir(), `${stem}-js-jco-transpile${transpilerVersion()}-${digest}`);
  if (!existsSync(join(dir, `${name}.js`)) || !existsSync(join(dir, INTERFACES))) {
    const { transpileBytes } = await import('@bytecodealliance/jco-transpile');
    let result;
    try {
      result = await transpileBytes(bytes, {
        name,
        instantiation: 'sync',
        emitTypescriptDeclarations: false,
        wasiShim: false,
      });
    } catch (error) {
      throw new ComponentError(path, `jco could not transpile it (truncated or damaged?): ${error.message ?? error}`);
    }
    mkdirSync(dirname(dir), { recursive: true });
    const temporary = mkdtempSync(`${dir}.tmp-`);
    try {
      for (const [file, content] of Object.entries(result.files)) {
        mkdirSync(dirname(join(temporary, file)), { recursive: true });
        writeFileSync(join(temporary, file), content);
      }
      writeFileSync(
        join(temporary, INTERFACES),
        JSON.stringify({ imports: result.imports, exports: result.exports.map(([exported]) => exported) }),
      );
      // A folder of an older version of this host, without the interfaces.
      if (existsSync(dir) && !existsSync(join(dir, INTERFACES))) rmSync(dir, { recursive: true, force: true });
      try {
        renameSync(temporary, dir);
      } catch (error) {
        // Another process renamed its copy into place first: use that one.
        if (!existsSync(join(dir, `${name}.js`))) throw error;
      }
    } finally {
      rmSync(temporary, { recursive: true, force: true });
    }
  }
  const interfaces = JSON.parse(readFileSync(join(dir, INTERFACES), 'utf8'));
  const module = await import(pathToFileURL(join(dir, `${name}.js`)).href);
  const cores = new Map();
  for (const file of ['core', 'core2', 'core3', 'core4', 'core5']) {
    const core = join(dir, `${name}.${file}.wasm`);
    if (existsSync(core)) {
      const bytes = readFileSync(core);
      cores.set(`${name}.${file}.wasm`, await WebAssembly.compile(memoryBytes === null ? bytes : withMemoryMax(bytes, memoryBytes)));
    }
  }
  return {
    dir,
    path,
    /** The component's imports (interface names without versions, as jco
     * lists them). */
    imports: interfaces.imports,
    /** Its exports (each instance by its short and its full name). */
    exports: interfaces.exports,
    /** Instantiate it with `imports`; an import it needs that `imports`
     * lacks is a ComponentError naming it. */
    instantiate(imports) {
      const missing = interfaces.imports.filter((name) => !Object.hasOwn(imports, name));
      if (missing.length > 0) {
        throw new ComponentError(path, `it needs ${missing.join(', ')}, which this host does not supply (a component of another version?)`);
      }
      // jco's bindings wrap each export in `WebAssembly.promising` (JSPI)
      // inside a try, falling back to the plain export where it is missing,
      // as in Node 20; the wrapped ones are used only by async
      // instantiation. Each miss throws inside jco's giant initialisation
      // function, which costs ~7 ms a throw there: ~500 ms an instance for
      // the engine's 70 exports. The plain export is what it falls back to,
      // so it is handed over at once for the length of the instantiation.
      const noJspi = typeof WebAssembly.promising !== 'function';
      if (noJspi) WebAssembly.promising = plainExport;
      try {
        return module.instantiate((file) => {
          const compiled = cores.get(file);
          if (compiled === undefined) throw new ComponentError(path, `the transpiled component lacks ${file}`);
          return compiled;
        }, imports);
      } finally {
        if (noJspi) delete WebAssembly.promising;
      }
    },
  };
}
