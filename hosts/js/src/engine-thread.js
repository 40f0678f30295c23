// The engine's own thread: the component instance (src/host.js) and its
// SQLite connections, with a connection to the model worker (src/bridge.js),
// which the main thread owns so that it outlives this thread. The main thread (src/thread.js) sends one request at a
// time and waits for its answer without blocking Node's event loop; when a
// call runs past its deadline it terminates this thread, which stops the
// running WebAssembly, and starts another.
//
// Requests are `{ id, op, ... }`; answers `{ id, ok: true, value }` or
// `{ id, ok: false, error }` with the error described (`describeError`) so
// the main thread can rebuild its class.
//
//   open        requireFts5, the component (its memory capped), the check
//               that it is the engine, the instance over the models the
//               main thread loaded
//   call        one export: the engine's `{ ok, value | error }` outcome
//   job-start   a harvest job over the documents; answers its number
//   job-step    one step of a job; job-report, job-drop

import { parentPort } from 'node:worker_threads';

import { ModelClient } from './bridge.js';
import { checkEngine, loadComponent } from './component.js';
import { describeError } from './errors.js';
import { ComponentHost } from './host.js';
import { requireFts5 } from './sqlite.js';

let host;
let models;
const jobs = new Map();
let nextJob = 1;

async function open({ dataDir, component, memoryBytes, models: endpoint, embedderInfo, rerankerInfo, rerankerWhy }) {
  requireFts5();
  const loaded = await loadComponent(component, { memoryBytes });
  checkEngine(loaded);
  models = new ModelClient(endpoint);
  host = new ComponentHost({ component: loaded, dataDir, worker: models, embedderInfo, rerankerInfo, rerankerWhy });
  return null;
}

function job(number) {
  const found = jobs.get(number);
  if (found === undefined) throw new RangeError(`no import job ${number}`);
  return found;
}

const ops = {
  open,
  call: ({ iface, name, args }) => host.call(iface, name, ...args),
  'job-start': ({ documents, options }) => {
    const { ImportJob } = host.instance.harvest;
    const outcome = host.run('import-job.start', () => ImportJob.start(documents, options));
    if (!outcome.ok) return outcome;
    const number = nextJob++;
    jobs.set(number, { job: outcome.value, instance: host.restarts });
    return { ok: true, value: number };
  },
  'job-step': ({ job: number, items }) => {
    const { job: running } = job(number);
    return host.run('import-job.step', () => running.step(items));
  },
  'job-report': ({ job: number }) => {
    const { job: running } = job(number);
    return host.run('import-job.report', () => running.report());
  },
  'job-drop': ({ job: number }) => {
    const found = jobs.get(number);
    jobs.delete(number);
    // A job whose instance trapped died with it.
    if (found !== undefined && found.instance === host.restarts) found.job[Symbol.dispose ?? Symbol.for('dispose')]();
    return null;
  },
  close: () => {
    host?.close();
    host = undefined;
    models?.port.close();
    models = undefined;
    return null;
  },
};

parentPort.on('message', async ({ id, op, ...request }) => {
  try {
    const value = await ops[op](request);
    parentPort.postMessage({ id, ok: true, value });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: describeError(error) });
  }
});
