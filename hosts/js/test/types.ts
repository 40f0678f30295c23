// Compiled by `npm run typecheck` (never run): the declared types fit how
// the API is used.
import { HiveMind, HiveMindError, NewerSchemaError, type Recall, type Saved } from '../src/index.js';

async function use(): Promise<void> {
  const mind = await HiveMind.open('/tmp/data', { model: 'all-MiniLM-L6-v2', reranker: false });
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
  // @ts-expect-error: not an importance
  await mind.save('text', { importance: 'urgent' });
  await mind.close();
}
void use;
