// Compiled by `npm run typecheck` (never run): the declared types fit how
// the API is used.
import { HiveMind, HiveMindError, NewerSchemaError, type Recall, type Saved } from '../src/index.js';

async function use(): Promise<void> {
  const mind = await HiveMind.open('/tmp/data', { model: 'all-MiniLM-L6-v2', reranker: false, memoryBytes: 512 * 2 ** 20, deadlinesMs: { recall: 5000 } });
  const constants = await mind.call('admin', 'getPlanConstants');
  console.log(constants);
  const saved: Saved = await mind.save('text', { importance: 'important', workspace: 'acme', createdAt: new Date() });
  const recall: Recall = await mind.recall('query', { limit: 5, scope: 'all', profile: 'recent', now: '2026-06-01' });
  for (const memory of recall.memories) console.log(memory.ref, memory.lane, memory.score.toFixed(3), memory.content, saved.ref);
  const learned = await mind.rememberExchange('user', 'assistant', { workspace: 'acme' });
  const report = await mind.importFile('notes.md', { workspace: 'acme', distillation: 'heuristic' });
  console.log(report.imported, report.frames.documents, report.sources[0]?.format);
  const [personal] = await mind.status();
  console.log(learned.length, personal.frames, personal.embedder?.model);
  try {
    await mind.recall('x');
  } catch (error) {
    if (error instanceof NewerSchemaError) console.log(error.schemaVersion, error.storageCase);
    else if (error instanceof HiveMindError) console.log(error.case, error.detail);
  }
  const preview = await mind.forget({ matching: 'kyoto', since: '2026-01-01' });
  const erased = await mind.forget(preview.memories.map((m) => m.frame), { confirm: true, reason: 'owner' });
  const { memory } = await mind.correct('personal:1', 'new text', { createdAt: '2026-06-01' });
  const versions = await mind.history(memory.ref);
  const trace = await mind.trace(memory.ref);
  const lines = await mind.export({ workspace: 'acme' });
  const restored = await mind.restore(lines, { workspace: 'copy' });
  const frame = await mind.review(memory.ref, { archived: true, addTags: ['x'] });
  const page = await mind.wikiPage('you');
  const rows = await mind.log('erasures', { limit: 5 });
  const held = await mind.flagged();
  const gone = await mind.deleteWorkspace('copy', { confirm: true });
  console.log(erased.bytesAfter, versions[0]?.validTo, trace.replaced, restored.tables, frame.status, page.markdown, rows[0]?.detail, held[0]?.memory.screening?.score, gone.deleted);
  // @ts-expect-error: not a log
  await mind.log('everything');
  // @ts-expect-error: not an importance
  await mind.save('text', { importance: 'urgent' });
  await mind.close();
}
void use;
