// The engine's values as a JavaScript caller reads and writes them.
//
// jco lifts WIT values as camelCase records, `{ tag, val }` variants,
// bigint u64/s64 and millisecond timestamps. The API speaks the CLI's and
// the Python host's language instead:
//
//   WIT                         here
//   mind                        'personal', 'workspace:<id>'
//   frame-ref                   'personal:42', 'workspace:acme:42'
//   timestamp (s64 ms)          ISO-8601 UTC text ('2026-05-02T10:00:00Z')
//   u64 counts and ids          number (a bigint only past 2^53)
//
// `plain` applies this to any lifted value, knowing a timestamp by its
// field's name: TIME_FIELDS lists every field the WIT types `timestamp`
// (test/values.test.js compares the list with wit/*.wit).

/** Every record field the WIT types `timestamp` or `option<timestamp>`,
 * camelCase. */
export const TIME_FIELDS = new Set([
  'asOf',
  'at',
  'createdAt',
  'date',
  'decidedAt',
  'endedAt',
  'expiresAt',
  'firstEvent',
  'firstImported',
  'insertedAt',
  'lastAccessed',
  'lastEvent',
  'lastImported',
  'now',
  'occurredAt',
  'retiredAt',
  'startedAt',
  'updatedAt',
  'validFrom',
  'validTo',
  'writtenAt',
]);

/** A WIT timestamp (Unix milliseconds, bigint) as ISO-8601 UTC, as the
 * Python host writes it: whole seconds without milliseconds. */
export function iso(timestamp) {
  const ms = Number(timestamp);
  const text = new Date(ms).toISOString();
  return ms % 1000 === 0 ? text.replace(/\.000Z$/, 'Z') : text;
}

/** ISO-8601 text (or a Date) as a WIT timestamp; a time without a zone, or
 * a date alone, is UTC. */
export function timestamp(value) {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return BigInt(value.getTime());
  const text = String(value).trim();
  const zoned = /([zZ]|[+-]\d\d:?\d\d)$/.test(text) || !/T|\s\d/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned.replace(' ', 'T'));
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO-8601 time: ${JSON.stringify(value)}`);
  return BigInt(ms);
}

/** A WIT `mind` by name. */
export function mindName(mind) {
  return mind.tag === 'personal' ? 'personal' : `workspace:${mind.val}`;
}

/** The personal mind, or `workspace`'s, as the WIT `mind`. */
export function workspaceMind(workspace) {
  return workspace === undefined || workspace === null ? { tag: 'personal' } : { tag: 'workspace', val: String(workspace) };
}

/** A WIT `frame-ref` as the CLI writes it. */
export function ref(frameRef) {
  return frameRef.mind.tag === 'personal'
    ? `personal:${frameRef.id}`
    : `workspace:${frameRef.mind.val}:${frameRef.id}`;
}

/** A frame reference as the CLI writes it (`personal:42`,
 * `workspace:acme:42`) as the WIT `frame-ref`; anything else is a
 * RangeError naming it. */
export function refIn(name) {
  if (typeof name !== 'string') throw new TypeError(`a memory is named by its reference (personal:42), not ${typeof name}`);
  const colon = name.lastIndexOf(':');
  const mind = name.slice(0, Math.max(colon, 0));
  const id = name.slice(colon + 1);
  if (colon < 0 || !/^\d{1,20}$/.test(id) || BigInt(id) > 0xffffffffffffffffn) {
    throw new RangeError(`invalid memory reference ${JSON.stringify(name)}: expected MIND:ID (personal:42)`);
  }
  if (mind === 'personal') return { mind: { tag: 'personal' }, id: BigInt(id) };
  if (mind.startsWith('workspace:') && mind.length > 'workspace:'.length) {
    return { mind: { tag: 'workspace', val: mind.slice('workspace:'.length) }, id: BigInt(id) };
  }
  throw new RangeError(`invalid memory reference ${JSON.stringify(name)}: the mind is personal or workspace:<id>`);
}

function isMind(value) {
  return (value.tag === 'personal' && !('val' in value && value.val !== undefined)) || (value.tag === 'workspace' && typeof value.val === 'string');
}

function isFrameRef(value) {
  const keys = Object.keys(value);
  return keys.length === 2 && typeof value.id === 'bigint' && value.mind !== null && typeof value.mind === 'object' && isMind(value.mind);
}

function number(value) {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** A value lifted by jco as plain JavaScript (see the module's table); a
 * `{ tag, val }` variant other than a mind stays one, its payload plain. */
export function plain(value, key) {
  if (typeof value === 'bigint') return key !== undefined && TIME_FIELDS.has(key) ? iso(value) : number(value);
  if (typeof value === 'number' && key !== undefined && TIME_FIELDS.has(key)) return iso(value);
  if (value === null || value === undefined) return value ?? null;
  if (Array.isArray(value)) return value.map((item) => plain(item));
  if (ArrayBuffer.isView(value) || typeof value !== 'object') return value;
  if (isFrameRef(value)) return ref(value);
  if ('tag' in value && Object.keys(value).every((name) => name === 'tag' || name === 'val')) {
    if (isMind(value)) return mindName(value);
    return value.val === undefined ? { tag: value.tag } : { tag: value.tag, val: plain(value.val) };
  }
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, plain(item, name)]));
}
