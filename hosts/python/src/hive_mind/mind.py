"""The Pythonic API: :class:`HiveMind` over the engine component.

::

    from hive_mind import HiveMind

    with HiveMind("~/.hive-mind") as mind:
        mind.save("We decided to use Postgres for the ledger.", importance="important")
        recall = mind.recall("which database for the ledger?")
        print(recall.text)
        for memory in recall.memories:
            print(memory.ref, memory.lane, round(memory.score, 4), memory.text)

Every method is one call of the engine's ``memory``, ``admin`` or
``harvest`` export (``wit/memory.wit``, ``wit/admin.wit``,
``wit/harvest.wit``; :meth:`HiveMind.import_file` steps an import job); the data directory holds the same
files the ``hive-mind`` CLI and MCP server use (``personal.sqlite``,
``workspaces/<id>.sqlite``), so they share minds. Frame references are
written as the CLI writes them: ``personal:42``, ``workspace:acme:42``.

A :class:`HiveMind` may be shared between threads; calls into the engine
run one at a time.
"""

from __future__ import annotations

import json

import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any

import wasmtime

from . import _wit_enums
from ._wit import Record, Variant, field, record, split_result
from .embedder import InProcessEmbedder
from .engine import ADMIN, HARVEST, MEMORY, REVIEW, WIKI, ComponentHost, default_component_path
from .errors import EngineTrap, HiveMindError, from_variant
from .reranker import RerankerImports, default_reranker
from .sqlite import require_fts5

# The enums' case names come from the WIT (``_wit_enums``, generated from
# ``wit/``); none is spelled here.
#: The importance levels, most important first (``types.importance``).
IMPORTANCE = _wit_enums.IMPORTANCE
#: Where a memory came from (``types.source``).
SOURCES = _wit_enums.SOURCE
#: Which minds a recall searches (``memory.recall-scope``).
SCOPES = _wit_enums.RECALL_SCOPE
#: The formats harvest reads (``harvest.source-format``).
FORMATS = _wit_enums.SOURCE_FORMAT
#: How harvest distills (``harvest.distillation``).
DISTILLATIONS = _wit_enums.DISTILLATION
#: How recall weighs its relevance signals (``types.scoring-profile``).
PROFILES = _wit_enums.SCORING_PROFILE
#: The logs :meth:`HiveMind.log` reads.
LOGS = _wit_enums.LOG_KIND
#: The rules :meth:`HiveMind.clean_entities` applies.
ENTITY_RULES = _wit_enums.ENTITY_RULE
#: What a recall note can be about.
RECALL_NOTE_KINDS = _wit_enums.RECALL_NOTE_KIND
#: The owner's verdicts on a pair of memories (:meth:`HiveMind.decide_pair`).
PAIR_VERDICTS = _wit_enums.PAIR_VERDICT
#: Memories embedded per ``reindex-step`` call after a restore (the CLI's
#: batch).
REINDEX_BATCH = 64


@dataclass(frozen=True)
class Saved:
    """A memory as saved."""

    #: ``personal:<id>`` or ``workspace:<workspace>:<id>``.
    ref: str
    #: Whether it was already known (deduplicated, nothing written).
    duplicate: bool
    #: The text as stored (with the engine's storage markings).
    content: str
    #: What it says, for a person: ``content`` without the engine's markings.
    text: str
    importance: str
    #: Event time, ISO-8601 UTC.
    created_at: str
    #: The conversation turn it is, for a verbatim raw turn.
    origin: TurnOrigin | None = None
    #: Why the injection detector held it back, when it did: it is kept for
    #: its owner's review and never recalled until released.
    quarantine: Quarantine | None = None

    @property
    def notice(self) -> str | None:
        """What to tell the person who saved it, when it was quarantined:
        the detector's score and reasons, and how to let it through (the
        CLI and MCP say the same in their own commands)."""
        if self.quarantine is None:
            return None
        why = f": {'; '.join(self.quarantine.reasons)}" if self.quarantine.reasons else ""
        return (
            f"quarantined: the injection detector scored it {self.quarantine.score:.2f}{why}. "
            "It is kept for its owner's review and never recalled: HiveMind.flagged() lists it, "
            f"HiveMind.release({self.ref!r}) lets it through."
        )


@dataclass(frozen=True)
class Quarantine:
    """The detector's verdict on a memory it held back when it was written
    (``types.screening`` of a quarantined frame)."""

    #: The score, 0 to 1.
    score: float
    #: Which detector judged (``ngram-lr-v1-…``, or the regex fallback).
    detector: str
    #: Why, strongest first: the sentence that scored highest, then words,
    #: phrases and patterns.
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class TurnOrigin:
    """Where a verbatim conversation turn came from (``types.turn-origin``)."""

    #: The conversation's key, as imported.
    conversation: str
    #: The turn's 1-based position in the conversation.
    turn: int
    #: Who spoke.
    speaker: str


@dataclass(frozen=True)
class Memory:
    """One recalled memory and why it was chosen."""

    ref: str
    #: The lane that found it (``semantic``, ``importance``, ``date-window``, …).
    lane: str
    score: float
    #: A short human-readable reason.
    why: str
    #: The text as stored (with the engine's storage markings).
    content: str
    #: What it says, for a person: ``content`` without the engine's markings.
    text: str
    importance: str
    #: Event time, ISO-8601 UTC.
    created_at: str
    #: The conversation turn it is, for a verbatim raw turn.
    origin: TurnOrigin | None = None


@dataclass(frozen=True)
class RecallNote:
    """One note of a recall: act on its kind, show its text."""

    #: What it is about (``near-miss``, ``quarantined``, ``reranker``, …:
    #: ``RECALL_NOTE_KINDS``).
    kind: str
    #: What it says, for a person.
    text: str


@dataclass(frozen=True)
class Recall:
    """The outcome of a recall."""

    #: The formatted block to add to the model's context.
    text: str
    #: The recalled memories, best first.
    memories: list[Memory]
    #: Identity and awareness, for the system prompt; empty when none.
    context: str
    #: How this recall ran (a mind skipped, no reranker, …).
    notes: list[RecallNote]
    #: Set when the injection scan withheld the whole recall: why.
    withheld: str | None


@dataclass(frozen=True)
class Fingerprint:
    """The embedder a mind's vectors were made with."""

    provider: str
    model: str
    dimensions: int


@dataclass(frozen=True)
class MindStatus:
    """A mind's counts."""

    #: ``personal`` or ``workspace:<id>``.
    mind: str
    schema_version: int
    #: The embedder its vectors were made with; None while it has no vectors.
    embedder: Fingerprint | None
    frames: int
    fts_rows: int
    frame_vectors: int
    chunks: int
    chunk_vectors: int
    entities: int
    relations: int
    sessions: int
    #: The plan its chunks follow (``256 tokens``, or ``2000 characters`` for a
    #: mind chunked before plans were sized by the embedder's window).
    chunk_plan: str = ""
    #: The token window its chunks are planned for; None for the legacy plan.
    chunk_window: int | None = None
    #: What the operator should hear (chunks planned for another window than
    #: the embedder reads: run reindex).
    notes: tuple[str, ...] = ()


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _iso(timestamp: int) -> str:
    """A WIT ``timestamp`` (Unix milliseconds, signed) as ISO-8601 UTC."""
    instant = datetime.fromtimestamp(timestamp / 1000, tz=timezone.utc)
    spec = "seconds" if timestamp % 1000 == 0 else "milliseconds"
    return instant.isoformat(timespec=spec).replace("+00:00", "Z")


def _timestamp(text: str | None) -> int | None:
    """ISO-8601 text as a WIT ``timestamp``; a time without a zone, or a
    date alone, is UTC."""
    if text is None:
        return None
    instant = datetime.fromisoformat(text.strip())
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=timezone.utc)
    return round(instant.timestamp() * 1000)


def _origin(frame: Any) -> TurnOrigin | None:
    """A frame's turn origin, from its typed metadata's ``raw-turn`` kind."""
    kind = field(field(frame, "metadata"), "kind")
    if not isinstance(kind, Variant) or kind.tag != "raw-turn":
        return None
    origin = kind.payload
    return TurnOrigin(field(origin, "conversation"), field(origin, "turn"), field(origin, "speaker"))


def _mind(mind: str | None) -> str:
    return "personal" if mind is None else f"workspace:{mind}"


def _ref(frame_ref: Any) -> str:
    mind = field(frame_ref, "mind")
    frame_id = field(frame_ref, "id")
    return f"personal:{frame_id}" if mind is None else f"workspace:{mind}:{frame_id}"


def _ref_in(name: str) -> Record:
    """A frame reference as the CLI writes it (``personal:42``,
    ``workspace:acme:42``) as the WIT ``frame-ref``."""
    mind, _, frame_id = name.rpartition(":")
    if not frame_id.isdigit():
        raise ValueError(f"invalid frame reference {name!r}: expected MIND:ID")
    if mind == "personal":
        return record(mind=None, id=int(frame_id))
    if mind.startswith("workspace:") and mind != "workspace:":
        return record(mind=mind.removeprefix("workspace:"), id=int(frame_id))
    raise ValueError(f"invalid frame reference {name!r}: the mind is personal or workspace:<id>")


def _forget_report(report: Any) -> dict[str, Any]:
    def memory(item: Any) -> dict[str, Any]:
        branch_of = field(item, "branch_of")
        return {
            "ref": _ref(field(item, "frame")),
            "content_hash": field(item, "content_hash"),
            "event_day": field(item, "event_day"),
            "preview": field(item, "preview"),
            "branch_of": None if branch_of is None else _ref(branch_of),
        }

    return {
        "dry_run": field(report, "dry_run"),
        "memories": [memory(item) for item in field(report, "memories")],
        "entities": [
            {"mind": _mind(field(entity, "mind")), "name": field(entity, "name")}
            for entity in field(report, "entities")
        ],
        "contexts_rewritten": field(report, "contexts_rewritten"),
        "bytes_before": field(report, "bytes_before"),
        "bytes_after": field(report, "bytes_after"),
    }


def _saved(saved: Any) -> Saved:
    frame = field(saved, "frame")
    return Saved(
        ref=_ref(field(frame, "ref")),
        duplicate=field(saved, "duplicate"),
        content=field(frame, "content"),
        text=field(frame, "text"),
        importance=field(frame, "importance"),
        created_at=_iso(field(frame, "created_at")),
        origin=_origin(frame),
        quarantine=_quarantine(frame),
    )


def _quarantine(frame: Any) -> Quarantine | None:
    """A frame's screening, when it holds the frame back."""
    screening = field(frame, "screening")
    if screening is None or not field(screening, "quarantined"):
        return None
    return Quarantine(
        score=field(screening, "score"),
        detector=field(screening, "detector"),
        reasons=tuple(field(screening, "reasons")),
    )


def _memory(recalled: Any) -> Memory:
    frame = field(recalled, "frame")
    return Memory(
        ref=_ref(field(frame, "ref")),
        lane=field(recalled, "lane"),
        score=field(recalled, "score"),
        why=field(recalled, "why"),
        content=field(frame, "content"),
        text=field(frame, "text"),
        importance=field(frame, "importance"),
        created_at=_iso(field(frame, "created_at")),
        origin=_origin(frame),
    )


def _status(status: Any) -> MindStatus:
    fingerprint = field(status, "embedder")
    counts = (
        "frames",
        "fts_rows",
        "frame_vectors",
        "chunks",
        "chunk_vectors",
        "entities",
        "relations",
        "sessions",
    )
    return MindStatus(
        mind=_mind(field(status, "mind")),
        schema_version=field(status, "schema_version"),
        embedder=None
        if fingerprint is None
        else Fingerprint(
            field(fingerprint, "provider"), field(fingerprint, "model"), field(fingerprint, "dimensions")
        ),
        **{name: field(status, name) for name in counts},
        chunk_plan=field(status, "chunk_plan"),
        chunk_window=field(status, "chunk_window"),
        notes=tuple(field(status, "notes")),
    )


def _plain(value: Any) -> Any:
    """A lifted WIT value as plain Python: records as dicts (snake_case)."""
    if isinstance(value, Variant):
        return value
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if hasattr(value, "__dict__") and not isinstance(value, (str, bytes, int, float)):
        return {name.replace("-", "_"): _plain(item) for name, item in vars(value).items()}
    return value


def _plain_frame(frame: Any) -> dict[str, Any]:
    """A WIT frame as a dict (snake_case), its references as the CLI writes
    them (``personal:42``)."""
    plain = _plain(frame)
    plain["ref"] = _ref(field(frame, "ref"))
    for key in ("base_frame", "superseded_by", "merged_into"):
        value = field(frame, key)
        plain[key] = None if value is None else _ref(value)
    return plain


def _log_row(entry: Any) -> dict[str, Any]:
    """A WIT ``log-entry`` as a dict: its time ISO-8601, its memory a
    reference, its detail parsed from JSON."""
    memory = field(entry, "memory")
    return {
        "id": field(entry, "id"),
        "at": _iso(field(entry, "at")),
        "action": field(entry, "action"),
        "memory": None if memory is None else _ref(memory),
        "detail": json.loads(field(entry, "detail")),
    }


def _report(report: Any) -> dict[str, Any]:
    plain = _plain(report)
    for source in plain.get("sources", []):
        error = source.get("error")
        if error is not None:
            source["error"] = str(from_variant(error))
    return plain


class HiveMind:
    """The memory engine over one data directory."""

    def __init__(
        self,
        data_dir: str | Path,
        component: str | Path | None = None,
        model_dir: str | Path | None = None,
        model: str | None = None,
    ) -> None:
        """Open the minds in ``data_dir`` (created on the first save).

        ``component`` is the engine ``.wasm`` (default:
        :func:`hive_mind.engine.default_component_path`); ``model_dir`` the
        embedding model's folder, else ``model`` its name (``bge-small-en-v1.5``,
        ``all-MiniLM-L6-v2``; default ``$HIVE_MIND_IN_PROCESS_MODEL``, else
        bge-small-en-v1.5), looked for by
        :func:`hive_mind.embedder.default_model_dir`. Raises
        :class:`hive_mind.embedder.ModelError` when the model files are
        missing or not the shipped ones, :class:`hive_mind.engine.ComponentError`
        when the component is missing, damaged, or not the engine of this
        host's WIT version, :class:`hive_mind.sqlite.Fts5MissingError` when
        this Python's SQLite lacks FTS5.
        """
        require_fts5()
        path = Path(component) if component is not None else default_component_path()
        cross_encoder, why = default_reranker()
        self._host: ComponentHost | None = ComponentHost(
            path,
            Path(data_dir).expanduser(),
            InProcessEmbedder(model_dir, model),
            reranker=RerankerImports(cross_encoder, why),
            engine_only=True,
        )
        self._lock = threading.Lock()

    def _call(self, interface: str, name: str, *args: Any) -> Any:
        with self._lock:
            if self._host is None:
                raise HiveMindError("closed", "this HiveMind is closed")
            try:
                value = self._host.call(name, *args, interface=interface)
            except wasmtime.WasmtimeError as trap:
                raise EngineTrap("trap", str(trap)) from trap
        ok, payload = split_result(value)
        if not ok:
            raise from_variant(payload)
        return payload

    def save(
        self,
        content: str,
        importance: str | None = None,
        workspace: str | None = None,
        created_at: str | None = None,
        source: str | None = None,
    ) -> Saved:
        """Save one memory to the personal mind, or to ``workspace``'s.

        ``importance`` is one of :data:`IMPORTANCE` (default ``normal``),
        ``source`` one of :data:`SOURCES` (default ``user-stated``),
        ``created_at`` the event time (ISO-8601; default now).
        """
        saved = self._call(
            MEMORY,
            "save-memory",
            record(
                content=content,
                importance=None if importance is None else _choice("importance", importance, IMPORTANCE),
                source=None if source is None else _choice("source", source, SOURCES),
                mind=workspace,
                created_at=_timestamp(created_at),
                kind=None,
            ),
        )
        return _saved(saved)

    def recall(
        self,
        query: str,
        limit: int | None = None,
        workspace: str | None = None,
        scope: str | None = None,
        now: str | None = None,
        profile: str | None = None,
        rerank_pool: int | None = None,
        as_of: str | None = None,
        max_tokens: int | None = None,
    ) -> Recall:
        """Recall the memories most relevant to ``query``.

        Every option left None gets the engine's default (``recall-options``
        in ``wit/memory.wit``), as every surface does: ``limit`` 10;
        ``workspace`` is the active workspace; ``scope`` which minds to
        search (:data:`SCOPES`): ``all`` (the default) is the workspace's and
        the personal mind, ``current`` the workspace's only (it needs a
        workspace), ``personal`` the personal mind only. ``now`` is the time
        recency is scored against (ISO-8601; default now); ``profile`` one of
        :data:`PROFILES` (default ``balanced``); ``rerank_pool`` how many of
        the best candidates the reranker reads (default: the engine's; 0:
        none). ``as_of`` (ISO-8601) answers with what was valid then:
        memories from before it that had not been replaced by then (default:
        now, where a replaced memory is answered by its current version).
        ``max_tokens`` bounds the recall block's text: the lowest-ranked
        memories are left out until it fits (default: no bound).
        """
        result = self._call(
            MEMORY,
            "recall-memory",
            query,
            record(
                limit=limit,
                workspace=workspace,
                scope=None if scope is None else _choice("scope", scope, SCOPES),
                profile=None if profile is None else _choice("profile", profile, PROFILES),
                now=_timestamp(now),
                floor=None,
                rerank_pool=rerank_pool,
                as_of=_timestamp(as_of),
                max_tokens=max_tokens,
            ),
        )
        return Recall(
            text=field(result, "text"),
            memories=[_memory(recalled) for recalled in field(result, "memories")],
            context=field(result, "context"),
            notes=[
                RecallNote(kind=field(note, "kind"), text=field(note, "text"))
                for note in field(result, "notes")
            ],
            withheld=field(result, "withheld"),
        )

    def remember_exchange(self, user: str, assistant: str, workspace: str | None = None) -> list[Saved]:
        """Learn from one successful (user, assistant) exchange: the
        memories the write-back patterns find, as saved."""
        saved = self._call(
            MEMORY,
            "remember-exchange",
            user,
            assistant,
            record(workspace=workspace, gop_id=None, succeeded=True, occurred_at=None),
        )
        return [_saved(item) for item in saved]

    def import_file(
        self,
        path: str | Path,
        source: str | None = None,
        workspace: str | None = None,
        distillation: str = "auto",
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Harvest one file (an export, its zip, Markdown, PDF, …) into the
        personal mind or ``workspace``'s: the engine detects the format by
        content (``source``, one of :data:`FORMATS`, overrides it), parses
        it in the sandbox and runs the passes; ``distillation`` is one of
        :data:`DISTILLATIONS` (this host has no language model, so ``auto``
        is heuristic). Returns the import's report as a dict (the WIT
        ``import-report``'s fields, snake_case, with ``frames`` a dict), with
        a ``notice`` when items were quarantined (how to list and release
        them). Importing the same file again writes nothing."""
        document = record(name=str(path), bytes=Path(path).read_bytes())
        options = record(
            source=None if source is None else _choice("source", source, FORMATS),
            mind=workspace,
            distillation=_choice("distillation", distillation, DISTILLATIONS),
            dry_run=dry_run,
        )
        with self._lock:
            if self._host is None:
                raise HiveMindError("closed", "this HiveMind is closed")
            host = self._host
            instance = host.restarts
            try:
                # Items per step: the engine's classification batch.
                step_items = field(host.call("get-plan-constants", interface=ADMIN), "harvest_step_items")
                started = host.call("[static]import-job.start", [document], options, interface=HARVEST)
                ok, job = split_result(started)
                if not ok:
                    raise from_variant(job)
                try:
                    while True:
                        ok, progress = split_result(
                            host.call("[method]import-job.step", job, step_items, interface=HARVEST)
                        )
                        if not ok:
                            raise from_variant(progress)
                        if field(progress, "finished"):
                            break
                    report = host.call("[method]import-job.report", job, interface=HARVEST)
                finally:
                    if host.restarts == instance:  # else the job died with its instance
                        job.drop(host.store)
            except wasmtime.WasmtimeError as trap:
                raise EngineTrap("trap", str(trap)) from trap
        result = _report(report)
        if result["quarantined_items"] and not result["dry_run"]:
            result["notice"] = (
                f"{result['quarantined_items']} item(s) quarantined by the injection detector: kept for "
                "their owner's review and never recalled. HiveMind.flagged() lists them, "
                "HiveMind.release(ref) lets one through."
            )
        return result

    def forget(
        self,
        memories: list[str] | None = None,
        *,
        matching: str | None = None,
        since: str | None = None,
        until: str | None = None,
        learned_since: str | None = None,
        learned_until: str | None = None,
        harvest_format: str | None = None,
        document: str | None = None,
        workspace: str | None = None,
        reason: str | None = None,
        confirm: bool = False,
    ) -> dict[str, Any]:
        """Forget memories for real (``memory.forget``): ``memories`` by
        reference (``personal:42``), or every memory of the personal mind (or
        ``workspace``'s) passing a filter: ``matching`` (all its words),
        ``since``/``until`` (event days, ``YYYY-MM-DD``),
        ``learned_since``/``learned_until`` (the days it was written into the
        mind, UTC), ``harvest_format``,
        ``document``. Without ``confirm=True`` nothing changes and the report
        lists exactly what would be erased. With it, each memory goes with
        its search entries, vectors, the entities left without evidence and
        the copies of its text; the freed pages are reclaimed. ``reason`` is
        kept in the erasure log (which never keeps the text). Returns the
        report as a dict (the WIT ``forget-report``'s fields, snake_case)."""
        has_filter = any(
            value is not None
            for value in (matching, since, until, learned_since, learned_until, harvest_format, document)
        )
        if memories and has_filter:
            raise ValueError("give memories or a filter, not both")
        if memories:
            if workspace is not None:
                raise ValueError("workspace applies to a filter; a reference names its mind (workspace:ID:N)")
            selector: Any = [_ref_in(name) for name in memories]
        elif has_filter:
            selector = record(
                mind=workspace,
                text=matching,
                since=since,
                until=until,
                learned_since=learned_since,
                learned_until=learned_until,
                harvest_format=harvest_format,
                document=document,
            )
        else:
            raise ValueError("name the memories to forget or give a filter")
        report = self._call(
            MEMORY,
            "forget",
            record(selector=selector, reason=reason, dry_run=not confirm),
        )
        return _forget_report(report)

    def correct(self, memory: str, content: str, created_at: str | None = None) -> tuple[Saved, Saved]:
        """Correct a memory (``memory.correct-memory``): ``content`` becomes
        its new version (event time ``created_at``, default now) and the old
        one is closed; recall answers with the new one, a recall ``as_of``
        before it with the old. Returns ``(new, replaced)``."""
        corrected = self._call(
            MEMORY,
            "correct-memory",
            record(frame=_ref_in(memory), content=content, created_at=_timestamp(created_at)),
        )
        return (
            _saved(record(frame=field(corrected, "memory"), duplicate=False)),
            _saved(record(frame=field(corrected, "replaced"), duplicate=False)),
        )

    def history(self, memory: str) -> list[dict[str, Any]]:
        """The versions of a memory, oldest first (``memory.memory-history``):
        each with ``ref``, ``content``, ``created_at``, ``valid_to`` and
        ``superseded_by`` (None while current)."""
        versions = self._call(MEMORY, "memory-history", _ref_in(memory))
        out = []
        for frame in versions:
            valid_to = field(frame, "valid_to")
            superseded_by = field(frame, "superseded_by")
            out.append(
                {
                    "ref": _ref(field(frame, "ref")),
                    "content": field(frame, "content"),
                    "created_at": _iso(field(frame, "created_at")),
                    "valid_to": None if valid_to is None else _iso(valid_to),
                    "superseded_by": None if superseded_by is None else _ref(superseded_by),
                }
            )
        return out

    def export(self, workspace: str | None = None, markdown: bool = False) -> list[str]:
        """Export the personal mind (or ``workspace``'s), read in one
        transaction: the lines of the portable ``hive-mind-export`` JSON
        Lines format (restorable with :meth:`restore`), or with
        ``markdown=True`` a document to read. Vectors are not exported."""
        return list(self._call(ADMIN, "export-mind", workspace, "markdown" if markdown else "json-lines"))

    def restore(self, lines: list[str], workspace: str | None = None) -> dict[str, Any]:
        """Restore a JSON Lines export (:meth:`export`'s lines, or a file's
        non-empty lines) into the personal mind (or ``workspace``'s), which
        must be empty; every line is checked before anything is written.
        The restored memories are then embedded with this host's model.
        Returns ``{"frames": n, "tables": {table: rows}, "reindexed": n}``."""
        report = self._call(ADMIN, "restore-mind", workspace, [line for line in lines if line.strip()])
        while True:
            step = self._call(ADMIN, "reindex-step", workspace, REINDEX_BATCH)
            if field(step, "finished"):
                break
        return {
            "frames": field(report, "frames"),
            "tables": {field(table, "table"): field(table, "rows") for table in field(report, "tables")},
            "reindexed": field(step, "total"),
        }

    def review(
        self,
        memory: str,
        *,
        archived: bool | None = None,
        pinned: bool | None = None,
        add_tags: list[str] | tuple[str, ...] = (),
        remove_tags: list[str] | tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """Review a memory by hand (``review.set-metadata``): ``archived``
        archives it (kept, out of recall) or brings it back, ``pinned`` pins
        it (cleanup never retires it), and tags are added or removed; what
        is left out stays. Returns the memory as a dict."""
        change = record(
            status=None if archived is None else ("archived" if archived else "active"),
            pinned=pinned,
            add_tags=list(add_tags),
            remove_tags=list(remove_tags),
        )
        return _plain_frame(self._call(REVIEW, "set-metadata", _ref_in(memory), change))

    def merge(self, memories: list[str], content: str | None = None) -> dict[str, Any]:
        """Merge memories of one mind into one (``review.merge``): the
        originals are archived with ``merged_into`` set, never deleted.
        Returns ``{"memory": …, "originals": [...]}``."""
        merged = self._call(REVIEW, "merge", record(memories=[_ref_in(name) for name in memories], content=content))
        return {
            "memory": _plain_frame(field(merged, "memory")),
            "originals": [_plain_frame(frame) for frame in field(merged, "originals")],
        }

    def trace(self, memory: str) -> dict[str, Any]:
        """Where a memory came from and what it is tied to
        (``review.trace``), as a dict of the WIT ``memory-trace``'s fields."""
        trace = self._call(REVIEW, "trace", _ref_in(memory))
        plain = _plain(trace)
        plain["memory"] = _plain_frame(field(trace, "memory"))
        for key in ("replaced", "merged_from", "branches"):
            plain[key] = [_ref(item) for item in field(trace, key)]
        base = field(trace, "base")
        plain["base"] = None if base is None else _ref(base)
        plain["reviews"] = [_log_row(row) for row in field(trace, "reviews")]
        plain["related"] = [
            {"memory": _ref(field(item, "memory")), "similarity": field(item, "similarity")}
            for item in field(trace, "related")
        ]
        return plain

    def entity(self, entity_id: int, workspace: str | None = None) -> dict[str, Any]:
        """An entity with its relations in and out (``review.get-entity``)."""
        view = self._call(REVIEW, "get-entity", workspace, entity_id)
        plain = _plain(view)
        plain["memories"] = [_ref(item) for item in field(view, "memories")]
        return plain

    def entities(
        self, text: str = "", entity_type: str | None = None, workspace: str | None = None, limit: int = 50
    ) -> list[dict[str, Any]]:
        """Entities whose name contains ``text``, of one type, most seen
        first (``review.list-entities``)."""
        return _plain(self._call(REVIEW, "list-entities", workspace, text, entity_type, limit))

    def neighbours(
        self,
        entity_id: int,
        depth: int = 2,
        entity_type: str | None = None,
        workspace: str | None = None,
        limit: int = 50,
    ) -> list[dict[str, Any]]:
        """The entities within ``depth`` hops, nearest first
        (``review.neighbours``)."""
        return _plain(self._call(REVIEW, "neighbours", workspace, entity_id, depth, entity_type, limit))

    def wiki_pages(self, workspace: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """The wiki's pages: ``you`` first, then the entities the memories
        name, the most stated first (``wiki.list-pages``)."""
        return _plain(self._call(WIKI, "list-pages", workspace, limit))

    def wiki_page(self, page: str, workspace: str | None = None) -> dict[str, Any]:
        """One wiki page (``you`` or ``entity-<id>``): its current
        statements and history as frames, conflicts, related pages and the
        page as Markdown (``wiki.get-page``)."""
        found = self._call(WIKI, "get-page", workspace, page)
        plain = _plain(found)
        plain["current"] = [_plain_frame(frame) for frame in field(found, "current")]
        plain["history"] = [_plain_frame(frame) for frame in field(found, "history")]
        plain["conflicts"] = [
            {"older": _ref(field(pair, "older")), "newer": _ref(field(pair, "newer"))}
            for pair in field(found, "conflicts")
        ]
        return plain

    def search_wiki(self, text: str, workspace: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """The wiki pages whose title or statements contain ``text``
        (``wiki.search-wiki``)."""
        return _plain(self._call(WIKI, "search-wiki", workspace, text, limit))

    def wiki_health(self, workspace: str | None = None, limit: int = 100) -> dict[str, Any]:
        """The health report: counts by kind (in ``wiki.health-kind`` order:
        conflict, stale, orphan, quarantined, replaced, duplicate) and the
        findings (``wiki.health``)."""
        report = self._call(WIKI, "health", workspace, limit)
        plain = _plain(report)
        plain["issues"] = [
            dict(_plain(issue), memories=[_ref(item) for item in field(issue, "memories")])
            for issue in field(report, "issues")
        ]
        return plain

    def sessions(self, workspace: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """A mind's sessions, newest first (``review.list-sessions``)."""
        return _plain(self._call(REVIEW, "list-sessions", workspace, limit))

    def session(self, gop_id: str, workspace: str | None = None, limit: int = 200) -> dict[str, Any]:
        """One session and its memories in the order they were written: a
        whole imported conversation, turn by turn (``review.get-session``)."""
        view = self._call(REVIEW, "get-session", workspace, gop_id, limit)
        return {
            "session": _plain(field(view, "session")),
            "memories": [_plain_frame(frame) for frame in field(view, "memories")],
        }

    def decide_pair(self, older: str, newer: str, verdict: str) -> dict[str, Any]:
        """The owner's word on two memories the engine read as one fact
        changing (``review.decide-pair``): ``verdict`` one of
        :data:`PAIR_VERDICTS` (``replaces``: the newer is true now;
        ``both-stand``: both are true, an automatic replacement undone)."""
        decision = self._call(
            REVIEW, "decide-pair", _ref_in(older), _ref_in(newer), _choice("verdict", verdict, PAIR_VERDICTS)
        )
        return {
            "older": _plain_frame(field(decision, "older")),
            "newer": _plain_frame(field(decision, "newer")),
            "verdict": field(decision, "verdict"),
            "decided_at": field(decision, "decided_at"),
        }

    def close_session(self, gop_id: str, summary: str | None = None, workspace: str | None = None) -> dict[str, Any]:
        """Close a session (``review.close-session``)."""
        return _plain(self._call(REVIEW, "close-session", workspace, gop_id, summary))

    def log(
        self, kind: str, workspace: str | None = None, limit: int = 50, before: int | None = None
    ) -> list[dict[str, Any]]:
        """The newest rows of a log (``review.read-log``): ``kind`` one of
        :data:`LOGS`; each row's ``detail`` parsed from its JSON."""
        rows = self._call(REVIEW, "read-log", workspace, _choice("log", kind, LOGS), limit, before)
        return [_log_row(row) for row in rows]

    def flagged(self, workspace: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """The memories held back as likely prompt injections, not released
        (``review.list-flagged``): quarantined by the detector when written,
        or (written before it) tripping recall's block scan. Each
        ``memory`` (with its stored ``screening``), ``score`` and
        ``patterns`` (the reasons)."""
        return [
            {
                "memory": _plain_frame(field(item, "memory")),
                "score": field(item, "score"),
                "patterns": list(field(item, "patterns")),
            }
            for item in self._call(REVIEW, "list-flagged", workspace, limit)
        ]

    def release(self, memory: str) -> dict[str, Any]:
        """Release a memory from quarantine (``review.release``): you have
        read it and vouch for it, and it is recalled again."""
        return _plain_frame(self._call(REVIEW, "release", _ref_in(memory)))

    def clean_entities(self, rule: str, apply: bool = False, workspace: str | None = None) -> list[dict[str, Any]]:
        """The entities a cleanup ``rule`` (:data:`ENTITY_RULES`) finds; with
        ``apply``, retired (``review.clean-entities``)."""
        rule = _choice("rule", rule, ENTITY_RULES)
        return _plain(self._call(REVIEW, "clean-entities", workspace, rule, apply))

    def delete_workspace(self, workspace: str, confirm: bool = False) -> dict[str, Any]:
        """Delete a workspace mind for good (``review.delete-workspace``).
        Without ``confirm=True`` nothing changes and the answer says what
        would go (its memories, entities and sessions)."""
        return _plain(self._call(REVIEW, "delete-workspace", workspace, not confirm))

    def status(self) -> list[MindStatus]:
        """Every mind's counts, personal first."""
        return [_status(status) for status in self._call(ADMIN, "status")]

    def close(self) -> None:
        """Release the engine and close its databases (idempotent)."""
        with self._lock:
            if self._host is not None:
                self._host.close()
                self._host = None

    def __enter__(self) -> HiveMind:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
