"""The case names of the engine world's WIT enums, generated from ``wit/``.

Do not edit: ``host/runtime/build/wit_names.rs`` writes this file's text
from the WIT, and the runtime's ``wit_names`` test fails while the copy
checked in here differs. After a WIT change, run
``HIVE_MIND_UPDATE_WIT_ENUMS=1 cargo test -p hive-mind-runtime --lib wit_names``
to rewrite it.

Each constant is one enum, named after it (``recall-scope`` is
``RECALL_SCOPE``), its cases in declaration order, as wasmtime-py passes
them (``%flag`` is ``"flag"``).
"""

#: ``embedder.input-kind``
INPUT_KIND = (
    "query",
    "document",
)

#: ``llm.model-tier``
MODEL_TIER = (
    "fast",
    "capable",
)

#: ``types.importance``
IMPORTANCE = (
    "critical",
    "important",
    "normal",
    "temporary",
    "deprecated",
)

#: ``types.source``
SOURCE = (
    "user-stated",
    "tool-verified",
    "agent-inferred",
    "import",
    "system",
)

#: ``types.frame-type``
FRAME_TYPE = (
    "i-frame",
    "p-frame",
    "b-frame",
)

#: ``types.memory-status``
MEMORY_STATUS = (
    "active",
    "archived",
)

#: ``types.scoring-profile``
SCORING_PROFILE = (
    "balanced",
    "recent",
    "important",
    "connected",
)

#: ``types.scan-context``
SCAN_CONTEXT = (
    "user-input",
    "tool-output",
)

#: ``types.injection-category``
INJECTION_CATEGORY = (
    "role-override",
    "prompt-extraction",
    "instruction-injection",
)

#: ``memory.recall-scope``
RECALL_SCOPE = (
    "personal",
    "current",
    "all",
)

#: ``memory.recall-note-kind``
RECALL_NOTE_KIND = (
    "keywords-only",
    "default-floor",
    "mind-state",
    "empty-workspace",
    "query-not-embedded",
    "reranker",
    "near-miss",
    "current-versions",
    "as-of",
    "quarantined",
    "changes",
    "token-budget",
    "context-withheld",
)

#: ``memory.lane``
LANE = (
    "semantic",
    "date-window",
    "catch-up",
    "importance",
    "raw-detail",
    "profile",
    "facts",
    "events",
)

#: ``memory.recall-stage``
RECALL_STAGE = (
    "embed-query",
    "search",
    "graph",
    "rank",
    "format",
    "touch",
    "context",
)

#: ``memory.cleanup-reason``
CLEANUP_REASON = (
    "empty",
    "duplicate",
    "near-duplicate",
)

#: ``admin.export-format``
EXPORT_FORMAT = (
    "json-lines",
    "markdown",
)

#: ``admin.awareness-category``
AWARENESS_CATEGORY = (
    "task",
    "action",
    "pending",
    "flag",
)

#: ``review.entity-rule``
ENTITY_RULE = (
    "orphans",
    "noise",
)

#: ``review.log-kind``
LOG_KIND = (
    "reviews",
    "erasures",
    "installs",
    "ai-interactions",
)

#: ``review.pair-verdict``
PAIR_VERDICT = (
    "replaces",
    "both-stand",
)

#: ``harvest.source-format``
SOURCE_FORMAT = (
    "chatgpt",
    "claude",
    "gemini",
    "perplexity",
    "claude-code",
    "markdown",
    "plain-text",
    "pdf",
    "html",
    "universal",
)

#: ``harvest.distillation``
DISTILLATION = (
    "auto",
    "heuristic",
    "llm",
)

#: ``wiki.page-kind``
PAGE_KIND = (
    "you",
    "entity",
    "topic",
)

#: ``wiki.health-kind``
HEALTH_KIND = (
    "conflict",
    "stale",
    "orphan",
    "quarantined",
    "replaced",
    "duplicate",
)
