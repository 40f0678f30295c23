// WASI 0.2 for the engine, as a sandbox: no arguments, no environment, no
// preopened directory, no stdin, no network. The engine reads the clocks and
// the random seed through it and nothing else; its storage is the `sqlite`
// import only. What the guest writes to stdout and stderr goes to the
// callbacks given (the host keeps the tail of stderr to classify a trap),
// else nowhere. test/sandbox.test.js runs the repository's sandbox probe
// under it: the probe must see nothing.
//
// Every interface the engine (and the probe) may import is defined here, so
// jco's instantiation finds each name; the file system and sockets exist
// only to refuse (`access` / `access-denied`), as wasmtime's empty context
// does.

import { randomBytes, randomFillSync } from 'node:crypto';

/** The wasi:io/error resource: an opaque error with a debug string. */
class IoError {
  constructor(message) {
    this.message = message;
  }
  toDebugString() {
    return this.message;
  }
}

/** A pollable that is always ready (every stream here answers at once), or
 * ready at a monotonic instant (a clock subscription: blocks until then). */
class Pollable {
  constructor(deadlineNs = 0n) {
    this.deadlineNs = deadlineNs;
  }
  ready() {
    return process.hrtime.bigint() >= this.deadlineNs;
  }
  block() {
    const wait = this.deadlineNs - process.hrtime.bigint();
    if (wait > 0n) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(wait / 1_000_000n) + 1);
    }
  }
}

function poll(pollables) {
  if (pollables.length === 0) throw new Error('poll: no pollables');
  for (;;) {
    const ready = [];
    pollables.forEach((p, index) => {
      if (p.ready()) ready.push(index);
    });
    if (ready.length) return new Uint32Array(ready);
    const soonest = pollables.reduce((a, p) => (p.deadlineNs < a ? p.deadlineNs : a), pollables[0].deadlineNs);
    new Pollable(soonest).block();
  }
}

/** stdin: always closed. */
class InputStream {
  read(_len) {
    throw { tag: 'closed' };
  }
  blockingRead(_len) {
    throw { tag: 'closed' };
  }
  skip(_len) {
    throw { tag: 'closed' };
  }
  blockingSkip(_len) {
    throw { tag: 'closed' };
  }
  subscribe() {
    return new Pollable();
  }
}

/** stdout or stderr: bytes go to `sink` (or nowhere). */
class OutputStream {
  constructor(sink) {
    this.sink = sink;
  }
  checkWrite() {
    return 1n << 20n;
  }
  write(contents) {
    if (this.sink) this.sink(Uint8Array.from(contents));
  }
  blockingWriteAndFlush(contents) {
    this.write(contents);
  }
  flush() {}
  blockingFlush() {}
  writeZeroes(len) {
    this.write(new Uint8Array(Number(len)));
  }
  blockingWriteZeroesAndFlush(len) {
    this.writeZeroes(len);
  }
  splice(_src, _len) {
    throw { tag: 'closed' };
  }
  blockingSplice(_src, _len) {
    throw { tag: 'closed' };
  }
  subscribe() {
    return new Pollable();
  }
}

class TerminalInput {}
class TerminalOutput {}

/** Never handed out (no preopens): each method refuses. */
class Descriptor {}
class DirectoryEntryStream {
  readDirectoryEntry() {
    throw 'access';
  }
}
for (const name of [
  'readViaStream', 'writeViaStream', 'appendViaStream', 'advise', 'syncData', 'getFlags', 'getType',
  'setSize', 'setTimes', 'read', 'write', 'readDirectory', 'sync', 'createDirectoryAt', 'stat', 'statAt',
  'setTimesAt', 'linkAt', 'openAt', 'readlinkAt', 'removeDirectoryAt', 'renameAt', 'symlinkAt',
  'unlinkFileAt', 'isSameObject', 'metadataHash', 'metadataHashAt',
]) {
  Descriptor.prototype[name] = function refused() {
    throw 'access';
  };
}

class Network {}
class TcpSocket {}
class UdpSocket {}
class IncomingDatagramStream {}
class OutgoingDatagramStream {}
class ResolveAddressStream {
  resolveNextAddress() {
    throw 'access-denied';
  }
  subscribe() {
    return new Pollable();
  }
}

/** The WASI imports of a sandboxed instance, keyed as jco's instantiation
 * reads them. `stdout` and `stderr` receive what the guest writes. */
export function sandboxWasi({ stdout, stderr } = {}) {
  const out = new OutputStream(stdout);
  const err = new OutputStream(stderr);
  const stdin = new InputStream();
  const started = process.hrtime.bigint();
  return {
    'wasi:cli/environment': {
      getEnvironment: () => [],
      getArguments: () => [],
      initialCwd: () => undefined,
    },
    'wasi:cli/exit': {
      exit(status) {
        throw new Error(`the guest exited (${status.tag === 'ok' ? 'success' : 'failure'})`);
      },
      exitWithCode(code) {
        throw new Error(`the guest exited with code ${code}`);
      },
    },
    'wasi:cli/stdin': { getStdin: () => stdin },
    'wasi:cli/stdout': { getStdout: () => out },
    'wasi:cli/stderr': { getStderr: () => err },
    'wasi:cli/terminal-input': { TerminalInput },
    'wasi:cli/terminal-output': { TerminalOutput },
    'wasi:cli/terminal-stdin': { getTerminalStdin: () => undefined },
    'wasi:cli/terminal-stdout': { getTerminalStdout: () => undefined },
    'wasi:cli/terminal-stderr': { getTerminalStderr: () => undefined },
    'wasi:clocks/monotonic-clock': {
      now: () => process.hrtime.bigint() - started,
      resolution: () => 1n,
      subscribeInstant: (when) => new Pollable(started + when),
      subscribeDuration: (duration) => new Pollable(process.hrtime.bigint() + duration),
    },
    'wasi:clocks/wall-clock': {
      now() {
        const ms = Date.now();
        return { seconds: BigInt(Math.floor(ms / 1000)), nanoseconds: (ms % 1000) * 1_000_000 };
      },
      resolution: () => ({ seconds: 0n, nanoseconds: 1_000_000 }),
    },
    'wasi:io/error': { Error: IoError },
    'wasi:io/poll': { Pollable, poll },
    'wasi:io/streams': { InputStream, OutputStream },
    'wasi:random/random': {
      getRandomBytes: (len) => new Uint8Array(randomBytes(Number(len))),
      getRandomU64: () => randomFillSync(new BigUint64Array(1))[0],
    },
    'wasi:random/insecure': {
      getInsecureRandomBytes: (len) => new Uint8Array(randomBytes(Number(len))),
      getInsecureRandomU64: () => randomFillSync(new BigUint64Array(1))[0],
    },
    'wasi:random/insecure-seed': {
      insecureSeed: () => {
        const seed = randomFillSync(new BigUint64Array(2));
        return [seed[0], seed[1]];
      },
    },
    'wasi:filesystem/types': {
      Descriptor,
      DirectoryEntryStream,
      filesystemErrorCode: () => undefined,
    },
    'wasi:filesystem/preopens': { getDirectories: () => [] },
    'wasi:sockets/network': { Network },
    'wasi:sockets/instance-network': { instanceNetwork: () => new Network() },
    'wasi:sockets/tcp': { TcpSocket },
    'wasi:sockets/udp': { UdpSocket, IncomingDatagramStream, OutgoingDatagramStream },
    'wasi:sockets/tcp-create-socket': {
      createTcpSocket() {
        throw 'access-denied';
      },
    },
    'wasi:sockets/udp-create-socket': {
      createUdpSocket() {
        throw 'access-denied';
      },
    },
    'wasi:sockets/ip-name-lookup': {
      ResolveAddressStream,
      resolveAddresses() {
        throw 'access-denied';
      },
    },
  };
}
