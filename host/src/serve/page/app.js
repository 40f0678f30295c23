/*
 * hive-mind memory browser — plain JavaScript, no library.
 *
 * Structure:
 *   1. Helpers      — $(), el() (builds DOM; text is always textContent),
 *                     dates, JSON pretty-printing, the status area.
 *   2. API          — api(): fetch with the bearer token from sessionStorage,
 *                     RFC 9457 problems turned into errors, and the token
 *                     dialog on 401 (then the call is retried).
 *   3. Minds        — the mind selector, filled from /api/stats.
 *   4. Views        — nav buttons switch <section>s (hash routing).
 *   5. Search, Browse (filters, new memory), selection + merge.
 *   6. Memory detail dialog — fields, history, trace, correct, archive,
 *                     pin, tags, forget (dry run, confirm dialog, erase).
 *   7. Review       — flagged memories (release / forget), sessions.
 *   8. Graph        — SVG force layout (centred in the viewBox), edges of
 *                     the first entities fetched on load, expand on click,
 *                     drag, text list.
 *   8b. Wiki        — the pages (you, then the entities), one page whose
 *                     statements open the memory detail, search, health.
 *   9. Import/export — upload + progress polling, Blob downloads.
 *  10. Identity & awareness (add with optional eviction, remove).
 *  11. Docs page    — when body[data-page=docs], render /openapi.json.
 *
 * Memory text is untrusted: nothing from the server is ever parsed as HTML.
 */
"use strict";

(function () {
  /* ------------------------------------------------------------ 1. Helpers */

  const TOKEN_KEY = "hive-mind-token";
  const MIND_KEY = "hive-mind-mind";
  const SVG_NS = "http://www.w3.org/2000/svg";

  function $(id) {
    return document.getElementById(id);
  }

  /** Build an element: attrs (class, data-*, on<event> functions, …) and children (nodes or text). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttrs(node, attrs);
    appendAll(node, children);
    return node;
  }

  function svgEl(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    setAttrs(node, attrs);
    appendAll(node, children);
    return node;
  }

  function setAttrs(node, attrs) {
    if (!attrs) return;
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        node.addEventListener(key.slice(2), value);
      } else if (key === "text") {
        node.textContent = String(value);
      } else if (value === true) {
        node.setAttribute(key, "");
      } else {
        node.setAttribute(key, String(value));
      }
    }
  }

  function appendAll(node, children) {
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function pretty(value) {
    try {
      return JSON.stringify(value, null, 2);
    } catch (_) {
      return String(value);
    }
  }

  /** "2024-05-01T10:20:30Z" -> "2024-05-01 10:20" (shown as written, UTC). */
  function shortDate(value) {
    if (!value) return "";
    const text = String(value);
    const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(text);
    return match ? match[1] + " " + match[2] : text;
  }

  function timeEl(value) {
    if (!value) return null;
    return el("time", { datetime: String(value), class: "date" }, shortDate(value));
  }

  function pick(obj, ...keys) {
    if (!obj || typeof obj !== "object") return undefined;
    for (const key of keys) {
      if (obj[key] !== undefined && obj[key] !== null) return obj[key];
    }
    return undefined;
  }

  let statusTimer = null;

  /** Show a message in the status area; kind: "info" | "ok" | "error". */
  function setStatus(message, kind) {
    const box = $("status");
    if (!box) return;
    box.textContent = message || "";
    box.className = "status" + (message ? " " + (kind || "info") : "");
    if (statusTimer) clearTimeout(statusTimer);
    if (message && kind === "ok") {
      statusTimer = setTimeout(() => {
        if (box.textContent === message) setStatus("");
      }, 6000);
    }
  }

  function showError(error) {
    const message = error && error.message ? error.message : String(error);
    setStatus(message, "error");
  }

  /** Run an async action; errors go to the status area. */
  function guard(action) {
    return function (...args) {
      return Promise.resolve()
        .then(() => action.apply(this, args))
        .catch((error) => {
          if (error && error.silent) return;
          showError(error);
        });
    };
  }

  /* ---------------------------------------------------------------- 2. API */

  class ApiError extends Error {
    constructor(status, problem, fallback) {
      const detail = problem && (problem.detail || problem.title);
      super(detail || fallback || "request failed (" + status + ")");
      this.status = status;
      this.problem = problem;
    }
  }

  function getToken() {
    try {
      return sessionStorage.getItem(TOKEN_KEY) || "";
    } catch (_) {
      return "";
    }
  }

  function setToken(token) {
    try {
      if (token) sessionStorage.setItem(TOKEN_KEY, token);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch (_) {
      /* storage unavailable: keep nothing */
    }
  }

  /**
   * Call the API. options: {method, body (object → JSON), raw (Blob/File),
   * query (object), expect: "json" | "blob" | "text"}.
   */
  async function api(path, options) {
    const opts = options || {};
    const url = path + queryString(opts.query);
    for (let attempt = 0; attempt < 4; attempt++) {
      const headers = { Accept: opts.expect === "blob" ? "*/*" : "application/json, application/problem+json" };
      const token = getToken();
      if (token && path !== "/api/health") headers.Authorization = "Bearer " + token;
      let body;
      if (opts.raw !== undefined) {
        body = opts.raw;
        headers["Content-Type"] = "application/octet-stream";
      } else if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers["Content-Type"] = "application/json";
      }
      let response;
      try {
        response = await fetch(url, {
          method: opts.method || "GET",
          headers,
          body,
          credentials: "same-origin",
        });
      } catch (error) {
        throw new Error("cannot reach the server: " + (error && error.message ? error.message : error));
      }
      if (response.status === 401) {
        await askToken(token ? "The token was refused; enter another." : "");
        continue;
      }
      if (!response.ok) throw await problemOf(response);
      if (opts.expect === "blob") return response.blob();
      if (opts.expect === "text") return response.text();
      const text = await response.text();
      if (!text) return null;
      try {
        return JSON.parse(text);
      } catch (_) {
        return text;
      }
    }
    throw new ApiError(401, null, "not authorized");
  }

  async function problemOf(response) {
    let problem = null;
    let fallback = response.status + " " + (response.statusText || "");
    try {
      const text = await response.text();
      try {
        problem = JSON.parse(text);
      } catch (_) {
        if (text) fallback = text.slice(0, 300);
      }
    } catch (_) {
      /* no body */
    }
    return new ApiError(response.status, problem, fallback);
  }

  function queryString(query) {
    if (!query) return "";
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined || value === null || value === "") continue;
      params.set(key, String(value));
    }
    const text = params.toString();
    return text ? "?" + text : "";
  }

  function enc(ref) {
    return encodeURIComponent(String(ref));
  }

  /* Token dialog: one pending request for all concurrent 401s. */
  let tokenWait = null;

  function askToken(message) {
    if (tokenWait) return tokenWait.promise;
    const dialog = $("token-dialog");
    const wait = {};
    wait.promise = new Promise((resolve, reject) => {
      wait.resolve = resolve;
      wait.reject = reject;
    });
    tokenWait = wait;
    if (message) setStatus(message, "error");
    else setStatus("This server needs an access token.", "info");
    $("token-input").value = "";
    openDialog(dialog, $("token-input"));
    return wait.promise;
  }

  function initTokenDialog() {
    const dialog = $("token-dialog");
    $("token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const token = $("token-input").value.trim();
      if (!token) return;
      setToken(token);
      const wait = tokenWait;
      tokenWait = null;
      closeDialog(dialog);
      setStatus("Token saved.", "ok");
      if (wait) wait.resolve();
      else refreshAll();
    });
    $("token-cancel").addEventListener("click", () => closeDialog(dialog));
    dialog.addEventListener("close", () => {
      if (tokenWait) {
        const wait = tokenWait;
        tokenWait = null;
        const error = new ApiError(401, null, "A token is needed: use the Token button to enter one.");
        wait.reject(error);
      }
    });
    $("token-open").addEventListener("click", () => {
      $("token-input").value = "";
      openDialog(dialog, $("token-input"));
    });
  }

  /* Dialogs: native <dialog> (focus trap + Escape), focus restored on close. */
  function openDialog(dialog, focusTarget) {
    if (dialog.open) {
      if (focusTarget) focusTarget.focus();
      return;
    }
    dialog._returnFocus = document.activeElement;
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
    if (focusTarget) focusTarget.focus();
  }

  function closeDialog(dialog) {
    if (!dialog.open) return;
    if (typeof dialog.close === "function") dialog.close();
    else {
      dialog.removeAttribute("open");
      dialog.dispatchEvent(new Event("close"));
    }
  }

  function initDialogFocus(dialog) {
    dialog.addEventListener("close", () => {
      const back = dialog._returnFocus;
      dialog._returnFocus = null;
      if (back && typeof back.focus === "function" && document.contains(back)) back.focus();
    });
    // Fallback for browsers without native Escape handling.
    dialog.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && typeof dialog.showModal !== "function") {
        event.preventDefault();
        closeDialog(dialog);
      }
    });
  }

  /* -------------------------------------------------------------- 3. Minds */

  const state = {
    mind: "personal",
    view: "search",
    selection: new Set(),
    memories: [],
    detail: null,
    forgetRefs: [],
  };

  /** Query parameters for a read of the selected mind. */
  function readQuery(extra) {
    const query = Object.assign({}, extra || {});
    if (state.mind !== "personal") query.workspace = state.mind;
    return query;
  }

  /** The fields naming the selected mind for a write (a body's, or a query's). */
  function writeQuery(extra) {
    const query = Object.assign({}, extra || {});
    if (state.mind === "personal") query.mind = "personal";
    else {
      query.mind = "workspace";
      query.workspace = state.mind;
    }
    return query;
  }

  /** "workspace:acme" -> "acme"; "personal" -> "personal". */
  function mindValue(name) {
    const text = String(name || "personal");
    return text.startsWith("workspace:") ? text.slice("workspace:".length) : text;
  }

  async function loadMinds() {
    const select = $("mind-select");
    const stats = await api("/api/stats");
    const list = Array.isArray(stats) ? stats : [];
    const values = new Set();
    clear(select);
    const entries = list.map((item) => ({ value: mindValue(item.mind), item }));
    if (!entries.some((entry) => entry.value === "personal")) {
      entries.unshift({ value: "personal", item: { mind: "personal" } });
    }
    for (const { value, item } of entries) {
      if (values.has(value)) continue;
      values.add(value);
      const label = value === "personal" ? "personal" : "workspace: " + value;
      const count = typeof item.frames === "number" ? " (" + item.frames + ")" : "";
      select.appendChild(el("option", { value }, label + count));
    }
    if (!values.has(state.mind)) {
      select.appendChild(el("option", { value: state.mind }, "workspace: " + state.mind));
    }
    select.value = state.mind;
  }

  async function loadHealth() {
    try {
      const health = await api("/api/health");
      if (health && health.version) $("server-version").textContent = "v" + health.version;
    } catch (_) {
      /* shown elsewhere when other calls fail */
    }
  }

  function initMindSelect() {
    try {
      state.mind = sessionStorage.getItem(MIND_KEY) || "personal";
    } catch (_) {
      state.mind = "personal";
    }
    const select = $("mind-select");
    select.value = state.mind;
    select.addEventListener("change", () => {
      state.mind = select.value || "personal";
      try {
        sessionStorage.setItem(MIND_KEY, state.mind);
      } catch (_) {
        /* ignore */
      }
      clearSelection();
      graph.reset();
      loadView(state.view, true);
    });
  }

  /* -------------------------------------------------------------- 4. Views */

  const VIEWS = ["search", "browse", "timeline", "review", "graph", "wiki", "import", "identity"];
  const loaded = new Set();

  function showView(view, focus) {
    if (!VIEWS.includes(view)) view = "search";
    // A done message belongs to the view it was said in; errors stay.
    const status = $("status");
    if (status && status.classList.contains("ok") && view !== state.view) setStatus("");
    state.view = view;
    for (const name of VIEWS) {
      const section = $("view-" + name);
      const button = $("nav-" + name);
      const active = name === view;
      section.hidden = !active;
      if (active) button.setAttribute("aria-current", "page");
      else button.removeAttribute("aria-current");
    }
    if (location.hash !== "#" + view) history.replaceState(null, "", "#" + view);
    if (focus) {
      const heading = $("view-" + view).querySelector("h2");
      if (heading) {
        heading.setAttribute("tabindex", "-1");
        heading.focus();
      }
    }
    loadView(view, false);
  }

  function loadView(view, force) {
    if (!force && loaded.has(view + ":" + state.mind)) return;
    loaded.add(view + ":" + state.mind);
    const loaders = {
      search: () => {
        if ($("search-input").value.trim()) return runSearch();
        return null;
      },
      browse: loadBrowse,
      timeline: loadTimeline,
      review: loadReview,
      graph: () => graph.loadEntities(),
      wiki: loadWikiPages,
      import: null,
      identity: loadIdentity,
    };
    const loader = loaders[view];
    if (loader) guard(loader)();
  }

  /** After a change to memories: reload the visible view, forget the others' caches. */
  function refreshAll() {
    loaded.clear();
    sessionIndex.mind = null;
    guard(loadMinds)();
    loadView(state.view, true);
  }

  function initNav() {
    for (const name of VIEWS) {
      $("nav-" + name).addEventListener("click", () => showView(name, true));
    }
    window.addEventListener("hashchange", () => {
      const view = location.hash.slice(1);
      if (VIEWS.includes(view) && view !== state.view) showView(view, false);
    });
  }

  /* ------------------------------------------------ 5. Memory list items */

  /** What a memory says, for a person: the engine's `text` (its content
      without storage markings), else the content. */
  function shownText(memory) {
    if (!memory) return "";
    return String(memory.text != null && memory.text !== "" ? memory.text : memory.content || "");
  }

  /** The conversation turn a memory is (its metadata's `raw-turn`), or null. */
  function rawTurn(metadata) {
    const kind = metadata && typeof metadata === "object" ? metadata.kind : null;
    const turn = kind && typeof kind === "object" ? kind["raw-turn"] : null;
    return turn && typeof turn === "object" ? turn : null;
  }

  /** A memory's kind in words: "fact", "event", "profile of Ana"; null for
      a plain memory or a conversation turn (shown as an excerpt instead).
      The WIT variant comes as a name, or an object keyed by its case. */
  function kindName(metadata) {
    const kind = metadata && typeof metadata === "object" ? metadata.kind : null;
    if (!kind || rawTurn(metadata)) return null;
    if (typeof kind === "string") return kind;
    if (typeof kind !== "object") return String(kind);
    if (kind.profile != null) return "profile of " + kind.profile;
    return Object.keys(kind).join(" ");
  }

  /* Sessions by id, for the titles and dates of imported conversations:
     read once per mind, and again after a change. */
  const sessionIndex = { mind: null, byId: new Map(), pending: null };

  async function ensureSessions(memories) {
    // A memory of a session the index has not seen (written since it was
    // read, by another client) reads it again.
    const unseen = (memories || []).some(
      (memory) => memory && memory["gop-id"] && !sessionIndex.byId.has(memory["gop-id"])
    );
    if (sessionIndex.mind === state.mind && !unseen) return sessionIndex.byId;
    if (!sessionIndex.pending) {
      const mind = state.mind;
      sessionIndex.pending = api("/api/sessions", { query: readQuery({ limit: 500 }) })
        .then((sessions) => {
          const list = Array.isArray(sessions) ? sessions : [];
          sessionIndex.byId = new Map(list.map((session) => [session["gop-id"], session]));
          sessionIndex.mind = mind;
        })
        // Titles are a nicety: without them a conversation is named by its key.
        .catch(() => undefined)
        .finally(() => {
          sessionIndex.pending = null;
        });
    }
    await sessionIndex.pending;
    return sessionIndex.byId;
  }

  /** A session's name for a person: its title, else what it is. */
  function sessionName(session, gop) {
    if (session && session.title) return String(session.title);
    const id = String(gop || (session && session["gop-id"]) || "");
    if (id.startsWith("conv:")) return "Conversation " + id.slice(5);
    if (id.startsWith("doc:")) return "Document " + id.slice(4);
    if (id.startsWith("harvest:")) return "Facts learned from " + id.slice(8) + " imports";
    return "Agent session";
  }

  /** "Ana, in “Planning the Kyoto trip”": who spoke a turn and where. */
  function excerptHead(memory, turn) {
    const gop = memory["gop-id"];
    const title = sessionName(sessionIndex.byId.get(gop), gop);
    return el(
      "span",
      { class: "excerpt-head" },
      el("strong", null, String(turn.speaker || "someone")),
      " in ",
      el("cite", null, title),
      turn.turn ? el("span", { class: "muted" }, " · turn " + turn.turn) : null
    );
  }

  /** One memory as a list item: open button, meta line, select checkbox. */
  function memoryItem(memory, extra) {
    const info = extra || {};
    const ref = memory.ref || info.ref || "";
    const item = el("li", { class: "memory-item", "data-ref": ref, "data-testid": "memory-item" });
    if (memory.status === "archived") item.classList.add("archived");
    const head = el("div", { class: "memory-head" });
    if (info.lane) head.appendChild(el("span", { class: "badge lane" }, info.lane));
    if (typeof info.score === "number") {
      head.appendChild(el("span", { class: "badge score", title: "score" }, info.score.toFixed(2)));
    }
    if (memory.pinned) head.appendChild(el("span", { class: "badge pin" }, "pinned"));
    if (memory.status === "archived") head.appendChild(el("span", { class: "badge" }, "archived"));
    if (memory["superseded-by"]) {
      head.appendChild(el("span", { class: "badge replaced" }, "replaced by " + memory["superseded-by"]));
    }
    if (memory.screening && memory.screening.quarantined && !memory.released) {
      head.appendChild(el("span", { class: "badge warning" }, "quarantined"));
    }
    if (memory.importance && memory.importance !== "normal") {
      head.appendChild(el("span", { class: "badge importance" }, memory.importance));
    }
    const kind = kindName(memory.metadata);
    if (kind) head.appendChild(el("span", { class: "badge kind" }, kind));
    const turn = rawTurn(memory.metadata);
    if (turn) {
      item.classList.add("excerpt");
      head.appendChild(excerptHead(memory, turn));
    } else if (memory.source) {
      head.appendChild(el("span", { class: "muted" }, memory.source.replace(/-/g, " ")));
    }
    appendAll(head, [timeEl(memory["created-at"])]);
    if (info.learned && memory["inserted-at"]) {
      head.appendChild(el("span", { class: "muted" }, "learned " + shortDate(memory["inserted-at"])));
    }
    item.appendChild(head);

    item.appendChild(
      el(
        "button",
        {
          type: "button",
          class: "memory-open",
          "data-ref": ref,
          "aria-label": "Open memory " + ref,
          onclick: () => openMemory(ref),
        },
        el("span", { class: "content clamp" }, shownText(memory) || info.preview || "")
      )
    );
    if (info.why) item.appendChild(el("p", { class: "why" }, el("span", { class: "label" }, "why: "), info.why));

    const foot = el("div", { class: "memory-foot" });
    foot.appendChild(el("span", { class: "ref" }, ref));
    if (Array.isArray(memory.tags) && memory.tags.length) {
      foot.appendChild(el("span", { class: "tags-inline" }, memory.tags.map((tag) => "#" + tag).join(" ")));
    }
    if (turn && memory["gop-id"]) {
      foot.appendChild(
        el(
          "button",
          {
            type: "button",
            class: "link-button conversation-link",
            "data-session": memory["gop-id"],
            onclick: guard(() => openConversation(memory["gop-id"])),
          },
          "whole conversation"
        )
      );
    }
    foot.appendChild(selectBox(ref));
    if (info.actions) foot.appendChild(info.actions);
    item.appendChild(foot);
    return item;
  }

  function selectBox(ref) {
    const box = el("input", {
      type: "checkbox",
      class: "select-memory",
      "data-ref": ref,
      "aria-label": "Select " + ref + " for merge",
    });
    box.checked = state.selection.has(ref);
    box.addEventListener("change", () => toggleSelection(ref, box.checked));
    return el("label", { class: "check" }, box, " select");
  }

  function emptyItem(text) {
    return el("li", { class: "empty muted" }, text);
  }

  /* ------------------------------------------------------------- Search */

  async function runSearch() {
    const q = $("search-input").value.trim();
    if (!q) return;
    const list = $("search-results");
    list.setAttribute("aria-busy", "true");
    setStatus("Searching…", "info");
    try {
      const limit = parseInt($("search-limit").value, 10);
      const result = await api(
        "/api/memory/search",
        { query: readQuery({ query: q, scope: $("search-scope").value, limit: limit > 0 ? limit : undefined }) }
      );
      const hits = result && Array.isArray(result.memories) ? result.memories : [];
      await ensureSessions(hits.map((hit) => hit.frame));
      renderSearch(result || {});
      const count = result && Array.isArray(result.memories) ? result.memories.length : 0;
      setStatus(count + (count === 1 ? " memory" : " memories") + " recalled.", "ok");
    } finally {
      list.removeAttribute("aria-busy");
    }
  }

  function renderSearch(result) {
    const list = clear($("search-results"));
    const hits = Array.isArray(result.memories) ? result.memories : [];
    for (const hit of hits) {
      const memory = hit.frame || { ref: hit.ref };
      list.appendChild(memoryItem(memory, { ref: hit.ref, lane: hit.lane, score: hit.score, why: hit.why }));
    }
    if (!hits.length) list.appendChild(emptyItem("Nothing recalled."));

    const withheld = $("search-withheld");
    withheld.hidden = !result.withheld;
    withheld.textContent = result.withheld ? "Withheld: " + result.withheld : "";

    const notes = clear($("search-notes"));
    const noteList = Array.isArray(result.notes) ? result.notes : [];
    for (const note of noteList) {
      const item = el("li", null, String(note && note.text !== undefined ? note.text : note));
      if (note && note.kind) item.dataset.kind = String(note.kind);
      notes.appendChild(item);
    }
    notes.hidden = !noteList.length;

    $("search-text").textContent = result.text || "";
    $("search-context").textContent = result.context || "";
    const stages = clear($("search-stages"));
    for (const stage of Array.isArray(result.stages) ? result.stages : []) {
      stages.appendChild(el("li", null, stage.stage + ": " + (stage.micros / 1000).toFixed(1) + " ms"));
    }
    $("search-extra").hidden = !(result.text || result.context || (result.stages && result.stages.length));
  }

  function initSearch() {
    $("search-form").addEventListener("submit", (event) => {
      event.preventDefault();
      guard(runSearch)();
    });
  }

  /* ------------------------------------------------------------- Browse */

  async function loadBrowse() {
    const limit = parseInt($("browse-limit").value, 10);
    const list = $("memory-list");
    list.setAttribute("aria-busy", "true");
    try {
      const memories = await api("/api/memories", { query: readQuery({ limit: limit > 0 ? limit : undefined }) });
      state.memories = Array.isArray(memories) ? memories : [];
      await ensureSessions(state.memories);
      fillFilterOptions();
      renderBrowse();
    } finally {
      list.removeAttribute("aria-busy");
    }
  }

  /** A memory's kind by its case name (fact, event, profile, raw-turn),
      for the kind filter; "" for a plain memory. */
  function kindOf(memory) {
    const kind = memory.metadata && typeof memory.metadata === "object" ? memory.metadata.kind : null;
    if (kind === undefined || kind === null) return "";
    if (typeof kind === "object") return Object.keys(kind)[0] || "";
    return String(kind);
  }

  function fillOptions(select, values) {
    const current = select.value;
    clear(select);
    select.appendChild(el("option", { value: "" }, "any"));
    for (const value of [...values].sort()) select.appendChild(el("option", { value }, value));
    select.value = values.has(current) ? current : "";
  }

  function fillFilterOptions() {
    fillOptions($("filter-source"), new Set(state.memories.map((m) => m.source).filter(Boolean)));
    fillOptions($("filter-kind"), new Set(state.memories.map(kindOf).filter(Boolean)));
  }

  function browseFilter(memory) {
    const text = $("filter-text").value.trim().toLowerCase();
    const source = $("filter-source").value;
    const kind = $("filter-kind").value;
    const status = $("filter-status").value;
    const from = $("filter-from").value;
    const to = $("filter-to").value;
    const day = String(memory["created-at"] || "").slice(0, 10);
    if (text && !shownText(memory).toLowerCase().includes(text)) return false;
    if (source && memory.source !== source) return false;
    if (kind && kindOf(memory) !== kind) return false;
    if (status && (memory.status || "active") !== status) return false;
    if (from && day < from) return false;
    if (to && day > to) return false;
    return true;
  }

  function renderBrowse() {
    const list = clear($("memory-list"));
    const shown = state.memories.filter(browseFilter);
    for (const memory of shown) list.appendChild(memoryItem(memory));
    if (!shown.length) list.appendChild(emptyItem(state.memories.length ? "No memory matches the filters." : "No memories yet."));
    $("memory-count").textContent = shown.length + " of " + state.memories.length + " memories shown";
  }

  async function createMemory() {
    const content = $("new-memory-content").value;
    if (!content.trim()) {
      setStatus("Write the memory's text first.", "error");
      return;
    }
    const body = writeQuery({
      content,
      importance: $("new-memory-importance").value || undefined,
      source: $("new-memory-source").value || undefined,
    });
    const date = $("new-memory-date").value;
    if (date) body.created_at = date + "T00:00:00Z";
    const saved = await api("/api/memories", { method: "POST", body });
    $("new-memory-form").reset();
    const ref = saved && saved.ref;
    setStatus(saved && saved.duplicate ? "Already stored as " + ref + "." : "Saved " + ref + ".", "ok");
    loaded.clear();
    guard(loadMinds)();
    await loadBrowse();
  }

  function initBrowse() {
    const form = $("browse-filters");
    form.addEventListener("submit", (event) => event.preventDefault());
    form.addEventListener("input", () => renderBrowse());
    form.addEventListener("change", (event) => {
      if (event.target && event.target.id === "browse-limit") guard(loadBrowse)();
      else renderBrowse();
    });
    form.addEventListener("reset", () => setTimeout(renderBrowse, 0));
    $("browse-refresh").addEventListener("click", guard(loadBrowse));
    $("new-memory-form").addEventListener("submit", (event) => {
      event.preventDefault();
      guard(createMemory)();
    });
  }

  /* ----------------------------------------------------- Selection, merge */

  function toggleSelection(ref, on) {
    if (on) state.selection.add(ref);
    else state.selection.delete(ref);
    syncSelection();
  }

  function clearSelection() {
    state.selection.clear();
    syncSelection();
  }

  function syncSelection() {
    const count = state.selection.size;
    $("selection-bar").hidden = count === 0;
    $("selection-count").textContent = count + " selected";
    $("merge-button").disabled = count < 2;
    for (const box of document.querySelectorAll("input.select-memory")) {
      box.checked = state.selection.has(box.getAttribute("data-ref"));
    }
    if (state.detail) $("memory-select").checked = state.selection.has(state.detail.ref);
  }

  function openMerge() {
    const refs = [...state.selection];
    if (refs.length < 2) {
      setStatus("Select at least two memories to merge.", "error");
      return;
    }
    const list = clear($("merge-list"));
    for (const ref of refs) list.appendChild(el("li", { "data-ref": ref }, ref));
    $("merge-content").value = "";
    openDialog($("merge-dialog"), $("merge-content"));
  }

  async function doMerge() {
    const refs = [...state.selection];
    const content = $("merge-content").value.trim();
    const body = { memories: refs };
    if (content) body.content = content;
    const result = await api("/api/memories/merge", { method: "POST", body });
    closeDialog($("merge-dialog"));
    clearSelection();
    const merged = result && result.memory;
    setStatus("Merged into " + (merged ? merged.ref : "a new memory") + ".", "ok");
    refreshAll();
    if (merged && merged.ref) openMemory(merged.ref);
  }

  function initSelection() {
    $("merge-button").addEventListener("click", openMerge);
    $("forget-selected-button").addEventListener("click", guard(() => startForget([...state.selection])));
    $("selection-clear").addEventListener("click", clearSelection);
    $("merge-form").addEventListener("submit", (event) => {
      event.preventDefault();
      guard(doMerge)();
    });
    $("merge-cancel").addEventListener("click", () => closeDialog($("merge-dialog")));
    syncSelection();
  }

  /* --------------------------------------------------- 6. Memory detail */

  async function openMemory(ref) {
    if (!ref) return;
    const dialog = $("memory-detail");
    $("memory-ref").textContent = ref;
    $("memory-content").textContent = "Loading…";
    clear($("memory-fields"));
    clear($("memory-history"));
    $("memory-trace").textContent = "";
    $("correct-form").hidden = true;
    openDialog(dialog, $("memory-close"));
    try {
      const memory = await api("/api/memories/" + enc(ref));
      renderDetail(memory);
    } catch (error) {
      $("memory-content").textContent = "Could not load " + ref + ".";
      showError(error);
      return;
    }
    guard(loadHistory)(ref);
    guard(loadTrace)(ref);
  }

  function renderDetail(memory) {
    state.detail = memory;
    $("memory-ref").textContent = memory.ref;
    const dialog = $("memory-detail");
    dialog.setAttribute("data-ref", memory.ref);
    $("memory-content").textContent = shownText(memory);
    const archived = memory.status === "archived";
    $("archive-button").textContent = archived ? "Restore" : "Archive";
    $("pin-button").textContent = memory.pinned ? "Unpin" : "Pin";
    $("pin-button").setAttribute("aria-pressed", memory.pinned ? "true" : "false");
    $("memory-select").checked = state.selection.has(memory.ref);

    const tags = clear($("memory-tags"));
    for (const tag of Array.isArray(memory.tags) ? memory.tags : []) {
      tags.appendChild(
        el(
          "li",
          { class: "tag" },
          tag,
          el("button", {
            type: "button",
            class: "tag-remove",
            "aria-label": "Remove tag " + tag,
            text: "×",
            onclick: guard(() => changeMemory({ remove_tags: [tag] })),
          })
        )
      );
    }
    if (!tags.firstChild) tags.appendChild(el("li", { class: "muted" }, "none"));

    const fields = clear($("memory-fields"));
    for (const [key, value] of Object.entries(memory)) {
      if (key === "content") continue;
      let shown;
      if (value === null || value === undefined) shown = "—";
      else if (typeof value === "object") shown = el("pre", { class: "small" }, pretty(value));
      else shown = String(value);
      fields.appendChild(el("div", { class: "field-row" }, el("dt", null, key), el("dd", null, shown)));
    }
  }

  async function loadHistory(ref) {
    const history = await api("/api/memories/" + enc(ref) + "/history");
    const list = clear($("memory-history"));
    const versions = Array.isArray(history) ? history : [];
    for (const version of versions) {
      const current = version.ref === ref;
      list.appendChild(
        el(
          "li",
          { "data-ref": version.ref, class: current ? "current" : null },
          el(
            "button",
            { type: "button", class: "link-button", onclick: () => openMemory(version.ref), "aria-current": current ? "true" : null },
            version.ref
          ),
          " ",
          timeEl(version["created-at"]),
          version["valid-to"] ? el("span", { class: "muted" }, " (until " + shortDate(version["valid-to"]) + ")") : null,
          el("div", { class: "content clamp" }, shownText(version))
        )
      );
    }
    if (!versions.length) list.appendChild(emptyItem("No history."));
  }

  async function loadTrace(ref) {
    const trace = await api("/api/memories/" + enc(ref) + "/trace");
    $("memory-trace").textContent = pretty(trace);
  }

  async function changeMemory(change) {
    if (!state.detail) return;
    const memory = await api("/api/memories/" + enc(state.detail.ref), { method: "PATCH", body: change });
    if (memory && memory.ref) renderDetail(memory);
    setStatus("Updated " + state.detail.ref + ".", "ok");
    loaded.clear();
    loadView(state.view, true);
  }

  async function submitCorrection() {
    if (!state.detail) return;
    const content = $("correct-input").value;
    if (!content.trim()) return;
    const result = await api("/api/memories/" + enc(state.detail.ref) + "/correct", {
      method: "POST",
      body: { content },
    });
    $("correct-form").hidden = true;
    const next = result && result.memory;
    setStatus("Corrected: the new version is " + (next ? next.ref : "saved") + ".", "ok");
    refreshAll();
    if (next && next.ref) await openMemory(next.ref);
  }

  function initDetail() {
    const dialog = $("memory-detail");
    $("memory-close").addEventListener("click", () => closeDialog(dialog));
    dialog.addEventListener("close", () => {
      state.detail = null;
    });
    $("correct-button").addEventListener("click", () => {
      if (!state.detail) return;
      const form = $("correct-form");
      form.hidden = !form.hidden;
      if (!form.hidden) {
        $("correct-input").value = shownText(state.detail);
        $("correct-input").focus();
      }
    });
    $("correct-cancel").addEventListener("click", () => {
      $("correct-form").hidden = true;
      $("correct-button").focus();
    });
    $("correct-form").addEventListener("submit", (event) => {
      event.preventDefault();
      guard(submitCorrection)();
    });
    $("archive-button").addEventListener(
      "click",
      guard(() => {
        if (!state.detail) return null;
        return changeMemory({ archived: state.detail.status !== "archived" });
      })
    );
    $("pin-button").addEventListener(
      "click",
      guard(() => (state.detail ? changeMemory({ pinned: !state.detail.pinned }) : null))
    );
    $("memory-select").addEventListener("change", () => {
      if (state.detail) toggleSelection(state.detail.ref, $("memory-select").checked);
    });
    $("forget-button").addEventListener(
      "click",
      guard(() => (state.detail ? startForget([state.detail.ref]) : null))
    );
    $("tag-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const tag = $("tag-input").value.trim();
      if (!tag) return;
      guard(async () => {
        await changeMemory({ add_tags: [tag] });
        $("tag-input").value = "";
      })();
    });
  }

  /* Forget: dry run first, show exactly what goes, erase only on confirm. */
  async function startForget(refs) {
    if (!refs.length) return;
    setStatus("Checking what would be forgotten…", "info");
    const report = await api("/api/forget", { method: "POST", body: { memories: refs, confirm: false } });
    const items = report && Array.isArray(report.memories) ? report.memories : [];
    const list = clear($("forget-list"));
    for (const item of items) {
      const ref = typeof item === "string" ? item : item.ref;
      const preview = typeof item === "string" ? "" : pick(item, "preview", "content") || "";
      list.appendChild(
        el(
          "li",
          { "data-ref": ref, class: "forget-item" },
          el("strong", { class: "ref" }, ref),
          item["event-day"] ? el("span", { class: "muted" }, " " + item["event-day"]) : null,
          el("div", { class: "content clamp" }, preview)
        )
      );
    }
    if (!items.length) list.appendChild(emptyItem("Nothing matches: nothing would be forgotten."));
    const rest = Object.assign({}, report || {});
    delete rest.memories;
    $("forget-report").textContent = Object.keys(rest).length ? pretty(rest) : "";
    $("forget-confirm").disabled = !items.length;
    $("forget-reason").value = "";
    state.forgetRefs = items.length ? refs.slice() : [];
    setStatus("");
    openDialog($("forget-dialog"), $("forget-cancel"));
  }

  async function confirmForget() {
    const refs = state.forgetRefs;
    if (!refs.length) return;
    const body = { memories: refs, confirm: true };
    const reason = $("forget-reason").value.trim();
    if (reason) body.reason = reason;
    $("forget-confirm").disabled = true;
    try {
      await api("/api/forget", { method: "POST", body });
    } finally {
      $("forget-confirm").disabled = false;
    }
    state.forgetRefs = [];
    closeDialog($("forget-dialog"));
    if (state.detail && refs.includes(state.detail.ref)) closeDialog($("memory-detail"));
    for (const ref of refs) state.selection.delete(ref);
    syncSelection();
    setStatus("Forgot " + refs.length + (refs.length === 1 ? " memory." : " memories."), "ok");
    refreshAll();
  }

  function initForget() {
    $("forget-confirm").addEventListener("click", guard(confirmForget));
    $("forget-cancel").addEventListener("click", () => closeDialog($("forget-dialog")));
    $("forget-dialog").addEventListener("close", () => {
      state.forgetRefs = [];
    });
  }

  /* ------------------------------------------------------------ 7. Review */

  function asList(value) {
    if (Array.isArray(value)) return value;
    if (value && typeof value === "object") {
      for (const key of ["memories", "flagged", "items", "results"]) {
        if (Array.isArray(value[key])) return value[key];
      }
    }
    return null;
  }

  async function loadReview() {
    await Promise.all([guard(loadDecisions)(), guard(loadFlagged)(), guard(loadSessions)()]);
  }

  /* The decisions the engine made, or could not make, on its own: an
     automatic replacement (confirm it, or say both stand and undo it) and
     two current statements that may disagree (the newer replaces the
     older, or both stand). Read from the wiki's health report. */
  const DECISION_KINDS = {
    replaced: {
      badge: "replaced on its own",
      actions: [
        ["replaces", "Confirm: the newer is true"],
        ["both-stand", "Undo: both stand"],
      ],
    },
    conflict: {
      badge: "may disagree",
      actions: [
        ["replaces", "The newer replaces the older"],
        ["both-stand", "Both stand"],
      ],
    },
  };

  async function loadDecisions() {
    const report = await api("/api/wiki/health", { query: readQuery({ limit: 200 }) });
    const list = clear($("decisions-list"));
    const issues = (report && Array.isArray(report.issues) ? report.issues : []).filter(
      (issue) => DECISION_KINDS[issue.kind] && Array.isArray(issue.memories) && issue.memories.length === 2
    );
    for (const issue of issues) list.appendChild(decisionItem(issue));
    if (!issues.length) list.appendChild(emptyItem("Nothing to decide: every replacement is confirmed."));
  }

  function decisionItem(issue) {
    const kind = DECISION_KINDS[issue.kind];
    const [older, newer] = issue.memories;
    const item = el("li", { class: "memory-item decision", "data-kind": issue.kind, "data-testid": "decision" });
    item.appendChild(el("div", { class: "memory-head" }, el("span", { class: "badge kind" }, kind.badge)));
    item.appendChild(el("p", { class: "content" }, String(issue.text || "")));
    const actions = el("div", { class: "memory-foot" });
    for (const [ref, label] of [
      [older, "open the older"],
      [newer, "open the newer"],
    ]) {
      actions.appendChild(el("button", { type: "button", class: "link-button", onclick: () => openMemory(ref) }, label));
    }
    for (const [verdict, label] of kind.actions) {
      actions.appendChild(
        el(
          "button",
          {
            type: "button",
            class: "decide-button",
            "data-verdict": verdict,
            onclick: guard(() => decide(older, newer, verdict)),
          },
          label
        )
      );
    }
    item.appendChild(actions);
    return item;
  }

  async function decide(older, newer, verdict) {
    await api("/api/decisions", { method: "POST", body: { older, newer, verdict } });
    setStatus(
      verdict === "replaces" ? newer + " replaces " + older + "." : older + " and " + newer + " both stand.",
      "ok"
    );
    refreshAll();
  }

  async function loadFlagged() {
    const flagged = await api("/api/flagged", { query: readQuery() });
    const list = clear($("flagged-list"));
    const items = asList(flagged);
    if (!items) {
      list.appendChild(el("li", null, el("pre", null, pretty(flagged))));
      return;
    }
    for (const item of items) list.appendChild(flaggedItem(item));
    if (!items.length) list.appendChild(emptyItem("Nothing flagged."));
  }

  function flaggedItem(item) {
    const memory = item && typeof item.memory === "object" && item.memory ? item.memory : item || {};
    const ref = pick(item, "ref") || memory.ref || "";
    const actions = el(
      "span",
      { class: "actions" },
      el("button", { type: "button", class: "release-button", "data-ref": ref, onclick: guard(() => releaseMemory(ref)) }, "release"),
      el("button", { type: "button", class: "danger forget-item-button", "data-ref": ref, onclick: guard(() => startForget([ref])) }, "forget")
    );
    const content = shownText(memory) || pick(item, "content", "preview");
    if (!ref && !content) return el("li", null, el("pre", null, pretty(item)));
    const li = memoryItem(Object.assign({}, memory, { ref, content }), { actions });
    const details = [];
    if (typeof item.score === "number") details.push("scan score " + item.score.toFixed(2));
    if (Array.isArray(item.patterns) && item.patterns.length) details.push("patterns: " + item.patterns.join(", "));
    if (details.length) li.insertBefore(el("p", { class: "flag-why warning" }, details.join(" — ")), li.lastChild);
    return li;
  }

  async function releaseMemory(ref) {
    await api("/api/memories/" + enc(ref) + "/release", { method: "POST" });
    setStatus("Released " + ref + ".", "ok");
    await loadFlagged();
  }

  async function loadSessions() {
    sessionIndex.mind = null;
    const byId = await ensureSessions();
    const list = clear($("sessions-list"));
    const items = [...byId.values()];
    for (const session of items) {
      const id = session["gop-id"];
      const first = session["first-event"];
      const last = session["last-event"];
      const range =
        first && last && shortDate(first).slice(0, 10) !== shortDate(last).slice(0, 10)
          ? [timeEl(first), " – ", timeEl(last)]
          : [timeEl(first || session["started-at"])];
      list.appendChild(
        el(
          "li",
          { class: "session", "data-session": String(id) },
          el(
            "button",
            {
              type: "button",
              class: "link-button session-open",
              "data-session": String(id),
              onclick: guard(() => openConversation(id)),
            },
            sessionName(session, id)
          ),
          session.project ? el("span", { class: "badge" }, String(session.project)) : null,
          " ",
          ...range,
          el("span", { class: "muted" }, " · " + session.memories + (session.memories === 1 ? " memory" : " memories")),
          session.closed === false ? el("span", { class: "badge" }, "open") : null,
          session.summary ? el("p", { class: "content" }, String(session.summary)) : null
        )
      );
    }
    if (!items.length) list.appendChild(emptyItem("No sessions yet."));
  }

  /** A session read whole, in a dialog: an imported conversation turn by
      turn (who spoke, when), or what an agent saved in one session. */
  async function openConversation(id) {
    const view = await api("/api/sessions/" + enc(id), { query: readQuery({ limit: 500 }) });
    const session = (view && view.session) || {};
    const memories = (view && Array.isArray(view.memories) ? view.memories : []);
    $("conversation-title").textContent = sessionName(session, id);
    const first = session["first-event"];
    $("conversation-meta").textContent =
      (first ? shortDate(first) : "") + " · " + memories.length + (memories.length === 1 ? " memory" : " memories");
    const list = clear($("conversation-turns"));
    for (const memory of memories) {
      const turn = rawTurn(memory.metadata);
      const speaker = turn ? String(turn.speaker || "") : kindName(memory.metadata) || "memory";
      list.appendChild(
        el(
          "li",
          { class: "turn", "data-speaker": speaker, "data-ref": memory.ref },
          el("span", { class: "speaker" }, speaker),
          timeEl(memory["created-at"]),
          el(
            "button",
            { type: "button", class: "memory-open", onclick: () => openMemory(memory.ref) },
            el("span", { class: "content" }, shownText(memory))
          )
        )
      );
    }
    if (!memories.length) list.appendChild(emptyItem("This session holds no memories."));
    openDialog($("conversation-dialog"), $("conversation-close"));
  }

  function initReview() {
    $("review-refresh").addEventListener("click", guard(loadReview));
    $("conversation-close").addEventListener("click", () => closeDialog($("conversation-dialog")));
  }

  /* ----------------------------------------------------------- 7b. Timeline */

  /** What the mind learned when: its newest memories by either clock, one
      group per day. "When it happened" is a memory's event time (a
      conversation's own date); "when it was learned" is when it was
      written into the mind. */
  async function loadTimeline() {
    const clock = $("timeline-clock").value === "happened" ? "happened" : "learned";
    const key = clock === "happened" ? "created-at" : "inserted-at";
    const memories = await api("/api/memories", { query: readQuery({ limit: 500 }) });
    const items = Array.isArray(memories) ? memories.slice() : [];
    await ensureSessions(items);
    items.sort((a, b) => String(b[key] || "").localeCompare(String(a[key] || "")));
    const list = clear($("timeline-list"));
    let day = null;
    let group = null;
    for (const memory of items) {
      const today = String(memory[key] || "").slice(0, 10);
      if (today !== day) {
        day = today;
        group = el("ol", { class: "memory-list" });
        list.appendChild(
          el("li", { class: "timeline-day", "data-day": day }, el("h3", null, el("time", { datetime: day }, day)), group)
        );
      }
      group.appendChild(memoryItem(memory, { learned: clock === "happened" }));
    }
    if (!items.length) list.appendChild(emptyItem("Nothing learned yet."));
    $("timeline-count").textContent =
      items.length +
      (items.length === 1 ? " memory" : " memories") +
      (items.length >= 500 ? " (the 500 learned last)" : "") +
      ", by when " +
      (clock === "happened" ? "it happened." : "it was learned.");
  }

  function initTimeline() {
    $("timeline-clock").addEventListener("change", guard(loadTimeline));
    $("timeline-refresh").addEventListener("click", guard(loadTimeline));
  }

  /* ------------------------------------------------------------- 8. Graph */

  const graph = (function () {
    const W = 800;
    const H = 560;
    const nodes = new Map(); // id -> {id, name, type, x, y, vx, vy, el}
    const edges = new Map(); // "a|b" -> {a, b, depth, el}
    const RELATIONS_MAX = 30; // entities whose relations are fetched after a load
    const RELATIONS_PARALLEL = 4; // requests in flight at once
    let drag = null;
    let generation = 0; // bumped by reset(): late answers of an older load are dropped

    function entityOf(raw) {
      const entity = raw && typeof raw.entity === "object" && raw.entity ? raw.entity : raw || {};
      const id = pick(entity, "id", "entity-id", "entity_id");
      return {
        id: id === undefined ? null : String(id),
        name: String(pick(entity, "name", "label") || (id !== undefined ? "#" + id : "?")),
        type: String(pick(entity, "entity-type", "entity_type", "type") || ""),
        depth: pick(raw, "depth", "distance", "hops"),
        relation: pick(raw, "relation", "via"),
        from: pick(raw, "from", "parent", "source"),
      };
    }

    function typeClass(type) {
      let hash = 0;
      for (const ch of type) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
      return "t" + (hash % 8);
    }

    function addNode(entity, near) {
      if (entity.id === null) return null;
      let node = nodes.get(entity.id);
      if (node) return node;
      const base = near || { x: W / 2, y: H / 2 };
      const angle = Math.random() * Math.PI * 2;
      const radius = near ? 40 + Math.random() * 40 : 50 + Math.random() * 200;
      node = {
        id: entity.id,
        name: entity.name,
        type: entity.type,
        x: base.x + Math.cos(angle) * radius,
        // Spread fresh nodes over an ellipse of the viewBox's shape.
        y: base.y + Math.sin(angle) * radius * (near ? 1 : H / W),
        vx: 0,
        vy: 0,
        expanded: false,
      };
      nodes.set(entity.id, node);
      return node;
    }

    function addEdge(a, b, depth, label) {
      if (a === b) return;
      const key = a < b ? a + "|" + b : b + "|" + a;
      const old = edges.get(key);
      if (old && (old.depth || 1) <= (depth || 1)) return;
      edges.set(key, { a, b, depth: depth || 1, label: label || "" });
    }

    /* Simple force layout: repulsion, springs, centring; then clamp to the box. */
    function layout(iterations) {
      const list = [...nodes.values()];
      const n = list.length;
      if (!n) return;
      const k = Math.sqrt((W * H) / Math.max(n, 1)) * 0.55;
      // Gravity balances the repulsion so the nodes fill about 80% of the box.
      const radius = Math.min(W, H) * 0.4;
      const gravity = (0.5 * n * k * k) / (radius * radius);
      let temperature = W / 10;
      for (let step = 0; step < iterations; step++) {
        for (const node of list) {
          node.vx = 0;
          node.vy = 0;
        }
        for (let i = 0; i < n; i++) {
          const a = list[i];
          for (let j = i + 1; j < n; j++) {
            const b = list[j];
            let dx = a.x - b.x;
            let dy = a.y - b.y;
            let dist2 = dx * dx + dy * dy;
            if (dist2 < 0.01) {
              dx = Math.random() - 0.5;
              dy = Math.random() - 0.5;
              dist2 = dx * dx + dy * dy;
            }
            const dist = Math.sqrt(dist2);
            const force = (k * k) / dist;
            const fx = (dx / dist) * force;
            const fy = (dy / dist) * force;
            a.vx += fx;
            a.vy += fy;
            b.vx -= fx;
            b.vy -= fy;
          }
        }
        for (const edge of edges.values()) {
          const a = nodes.get(edge.a);
          const b = nodes.get(edge.b);
          if (!a || !b) continue;
          const dx = a.x - b.x;
          const dy = a.y - b.y;
          const dist = Math.sqrt(dx * dx + dy * dy) || 0.01;
          const want = k * (edge.depth > 1 ? 1.6 : 1);
          const force = ((dist - want) * dist) / (want * 1.5);
          const fx = (dx / dist) * force;
          const fy = (dy / dist) * force;
          a.vx -= fx;
          a.vy -= fy;
          b.vx += fx;
          b.vy += fy;
        }
        for (const node of list) {
          node.vx += (W / 2 - node.x) * gravity;
          node.vy += (H / 2 - node.y) * gravity * (W / H);
          if (node.fixed) continue;
          const speed = Math.sqrt(node.vx * node.vx + node.vy * node.vy) || 1;
          const move = Math.min(speed, temperature);
          node.x += (node.vx / speed) * move;
          node.y += (node.vy / speed) * move;
          node.x = Math.max(30, Math.min(W - 30, node.x));
          node.y = Math.max(24, Math.min(H - 24, node.y));
        }
        temperature = Math.max(1, temperature * 0.985);
      }
      centre(list);
    }

    /* Move (and if needed shrink) the free nodes so that the drawing — circles
       and their labels, which run to the right — sits in the middle of the
       viewBox. Dragged (fixed) nodes stay where the user put them. */
    function centre(list) {
      const free = list.filter((node) => !node.fixed);
      if (!free.length) return;
      let left = Infinity;
      let right = -Infinity;
      let top = Infinity;
      let bottom = -Infinity;
      for (const node of free) {
        left = Math.min(left, node.x - 12);
        right = Math.max(right, node.x + 13 + labelWidth(node));
        top = Math.min(top, node.y - 12);
        bottom = Math.max(bottom, node.y + 12);
      }
      const margin = 12;
      const scale = Math.min(1, (W - 2 * margin) / Math.max(right - left, 1), (H - 2 * margin) / Math.max(bottom - top, 1));
      const cx = (left + right) / 2;
      const cy = (top + bottom) / 2;
      for (const node of free) {
        node.x = W / 2 + (node.x - cx) * scale;
        node.y = H / 2 + (node.y - cy) * scale;
        node.x = Math.max(14, Math.min(W - 14, node.x));
        node.y = Math.max(14, Math.min(H - 14, node.y));
      }
    }

    /** About how wide a label is drawn (SVG units), capped: long names may overflow. */
    function labelWidth(node) {
      return Math.min(node.name.length, 24) * 6.5;
    }

    /** Add an edge for each relation of an entity view whose both ends are shown; returns how many are new. */
    function addRelations(view) {
      if (!view || typeof view !== "object") return 0;
      const before = edges.size;
      for (const rel of [].concat(view.outgoing || [], view.incoming || [])) {
        const a = pick(rel, "subject");
        const b = pick(rel, "object");
        if (a === undefined || b === undefined) continue;
        if (nodes.has(String(a)) && nodes.has(String(b))) addEdge(String(a), String(b), 1, rel.relation);
      }
      return edges.size - before;
    }

    /** Redraw, keeping keyboard focus on the node that had it. */
    function renderKeepFocus() {
      const active = document.activeElement;
      const focusedId =
        active && active.closest && active.closest("#graph-svg") ? active.getAttribute("data-entity-id") : null;
      render();
      if (focusedId === null) return;
      const again = $("graph-nodes").querySelector('[data-entity-id="' + CSS.escape(focusedId) + '"]');
      if (again) again.focus();
    }

    function render() {
      const edgeLayer = clear($("graph-edges"));
      const nodeLayer = clear($("graph-nodes"));
      for (const edge of edges.values()) {
        const a = nodes.get(edge.a);
        const b = nodes.get(edge.b);
        if (!a || !b) continue;
        edge.el = svgEl(
          "line",
          { class: "edge" + (edge.depth > 1 ? " far" : ""), x1: a.x, y1: a.y, x2: b.x, y2: b.y },
          svgEl("title", null, a.name + " — " + b.name + (edge.label ? " (" + edge.label + ")" : ""))
        );
        edgeLayer.appendChild(edge.el);
      }
      for (const node of nodes.values()) {
        const group = svgEl(
          "g",
          {
            class: "node " + typeClass(node.type) + (node.expanded ? " expanded" : ""),
            transform: "translate(" + node.x.toFixed(1) + " " + node.y.toFixed(1) + ")",
            tabindex: "0",
            role: "button",
            "data-entity-id": node.id,
            "aria-label": node.name + (node.type ? " (" + node.type + ")" : "") + ": load neighbours",
          },
          svgEl("circle", { r: node.expanded ? 11 : 8 }),
          svgEl("text", { x: 13, y: 4 }, node.name)
        );
        group.addEventListener("pointerdown", (event) => startDrag(event, node, group));
        group.addEventListener("keydown", (event) => {
          if (event.key === "Enter" || event.key === " ") {
            event.preventDefault();
            guard(expand)(node.id);
          }
        });
        node.el = group;
        nodeLayer.appendChild(group);
      }
      renderList();
    }

    function renderList() {
      const list = clear($("graph-list"));
      const sorted = [...nodes.values()].sort((a, b) => a.name.localeCompare(b.name));
      for (const node of sorted) {
        const neighbours = [];
        for (const edge of edges.values()) {
          if (edge.a === node.id || edge.b === node.id) {
            const other = nodes.get(edge.a === node.id ? edge.b : edge.a);
            if (other) neighbours.push(other.name + (edge.depth > 1 ? " (2 hops)" : ""));
          }
        }
        list.appendChild(
          el(
            "li",
            { "data-entity-id": node.id },
            el(
              "button",
              { type: "button", class: "link-button", onclick: guard(() => expand(node.id)) },
              node.name
            ),
            node.type ? el("span", { class: "badge" }, node.type) : null,
            neighbours.length ? el("span", { class: "muted" }, " — linked to " + neighbours.join(", ")) : null
          )
        );
      }
      if (!sorted.length) {
        list.appendChild(
          emptyItem(
            $("graph-query").value.trim() || $("graph-type").value.trim()
              ? "No entity matches the name and type."
              : "No entities in this mind yet. The graph holds the people, places, projects and " +
                  "tools recognised in its memories: learning from exchanges and imports adds them " +
                  "(and an agent's save_entity); a memory saved as plain text may name none."
          )
        );
      }
    }

    function svgPoint(event) {
      const svg = $("graph-svg");
      const matrix = svg.getScreenCTM();
      if (!matrix) return { x: 0, y: 0 };
      const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
      return { x: point.x, y: point.y };
    }

    function startDrag(event, node, group) {
      if (event.button !== undefined && event.button !== 0) return;
      const start = svgPoint(event);
      drag = { node, group, start, moved: false, pointer: event.pointerId };
      try {
        group.setPointerCapture(event.pointerId);
      } catch (_) {
        /* ignore */
      }
      group.addEventListener("pointermove", moveDrag);
      group.addEventListener("pointerup", endDrag);
      group.addEventListener("pointercancel", endDrag);
      event.preventDefault();
    }

    function moveDrag(event) {
      if (!drag) return;
      const point = svgPoint(event);
      if (!drag.moved && Math.hypot(point.x - drag.start.x, point.y - drag.start.y) < 4) return;
      drag.moved = true;
      const node = drag.node;
      node.x = Math.max(10, Math.min(W - 10, point.x));
      node.y = Math.max(10, Math.min(H - 10, point.y));
      node.fixed = true;
      drag.group.setAttribute("transform", "translate(" + node.x.toFixed(1) + " " + node.y.toFixed(1) + ")");
      for (const edge of edges.values()) {
        if (!edge.el) continue;
        if (edge.a === node.id) {
          edge.el.setAttribute("x1", node.x);
          edge.el.setAttribute("y1", node.y);
        } else if (edge.b === node.id) {
          edge.el.setAttribute("x2", node.x);
          edge.el.setAttribute("y2", node.y);
        }
      }
    }

    function endDrag(event) {
      if (!drag) return;
      const { group, moved, node } = drag;
      group.removeEventListener("pointermove", moveDrag);
      group.removeEventListener("pointerup", endDrag);
      group.removeEventListener("pointercancel", endDrag);
      drag = null;
      if (!moved && event.type === "pointerup") guard(expand)(node.id);
    }

    async function loadEntities() {
      const limit = parseInt($("graph-limit").value, 10);
      const found = await api("/api/graph/entities", {
        query: readQuery({
          text: $("graph-query").value.trim(),
          entity_type: $("graph-type").value.trim(),
          limit: limit > 0 ? limit : undefined,
        }),
      });
      reset();
      const run = generation;
      for (const raw of Array.isArray(found) ? found : asList(found) || []) addNode(entityOf(raw));
      layout(300);
      render();
      const count = nodes.size + (nodes.size === 1 ? " entity" : " entities");
      if (!nodes.size) {
        setStatus(count + ".", "ok");
        return;
      }
      setStatus(count + "; loading their relations…", "info");
      const linked = await loadRelations(run);
      if (run !== generation) return;
      if (linked) {
        layout(300);
        renderKeepFocus();
      }
      setStatus(count + ", " + edges.size + (edges.size === 1 ? " link." : " links."), "ok");
    }

    /* The edges between the entities just loaded: fetch the relations of the
       first RELATIONS_MAX of them, RELATIONS_PARALLEL at a time. A failed
       fetch only loses that entity's edges. Returns how many edges are new. */
    async function loadRelations(run) {
      const ids = [...nodes.keys()].slice(0, RELATIONS_MAX);
      let next = 0;
      let linked = 0;
      async function worker() {
        while (next < ids.length && run === generation) {
          const id = ids[next++];
          let view = null;
          try {
            view = await api("/api/graph/entities/" + enc(id), { query: readQuery() });
          } catch (error) {
            if (error && error.status === 401) throw error;
            view = null;
          }
          if (run === generation) linked += addRelations(view);
        }
      }
      const workers = [];
      for (let i = 0; i < Math.min(RELATIONS_PARALLEL, ids.length); i++) workers.push(worker());
      await Promise.all(workers);
      return linked;
    }

    async function expand(id) {
      const center = nodes.get(id);
      if (!center) return;
      const hops = await api("/api/graph/entities/" + enc(id) + "/neighbours", {
        query: readQuery({ depth: 2 }),
      });
      center.expanded = true;
      const items = Array.isArray(hops) ? hops : asList(hops) || [];
      // Exact relations, when the entity view gives them (optional).
      let view = null;
      try {
        view = await api("/api/graph/entities/" + enc(id), { query: readQuery() });
      } catch (_) {
        view = null;
      }
      let added = 0;
      for (const raw of items) {
        const entity = entityOf(raw);
        if (entity.id === null || entity.id === id) continue;
        if (!nodes.has(entity.id)) added++;
        addNode(entity, center);
        const depth = Number(entity.depth) || 1;
        const from = entity.from !== undefined && nodes.has(String(entity.from)) ? String(entity.from) : id;
        addEdge(from, entity.id, from === id ? depth : 1, entity.relation);
      }
      if (view && typeof view === "object") {
        addRelations(view);
        showInfo(view, center);
      }
      layout(200);
      render();
      setStatus(center.name + ": " + items.length + " neighbours (" + added + " new).", "ok");
      const again = $("graph-nodes").querySelector('[data-entity-id="' + CSS.escape(id) + '"]');
      if (again && document.activeElement && document.activeElement.closest && document.activeElement.closest("#graph-svg")) again.focus();
    }

    function showInfo(view, center) {
      const box = clear($("graph-info"));
      box.hidden = false;
      box.appendChild(el("h3", null, center.name));
      if (center.type) box.appendChild(el("p", { class: "muted" }, "type: " + center.type));
      const relations = [].concat(view.outgoing || [], view.incoming || []);
      if (relations.length) {
        const list = el("ul", { class: "plain-list" });
        for (const rel of relations) {
          const a = nodes.get(String(rel.subject));
          const b = nodes.get(String(rel.object));
          list.appendChild(
            el("li", null, (a ? a.name : "#" + rel.subject) + " — " + (rel.relation || "related") + " → " + (b ? b.name : "#" + rel.object))
          );
        }
        box.appendChild(list);
      }
      const memories = Array.isArray(view.memories) ? view.memories : [];
      if (memories.length) {
        const list = el("ul", { class: "plain-list" });
        for (const ref of memories) {
          list.appendChild(
            el("li", { "data-ref": ref }, el("button", { type: "button", class: "link-button", onclick: () => openMemory(ref) }, ref))
          );
        }
        box.appendChild(el("p", null, "Mentioned in:"));
        box.appendChild(list);
      }
    }

    function reset() {
      generation++;
      nodes.clear();
      edges.clear();
      const box = $("graph-info");
      if (box) {
        clear(box);
        box.hidden = true;
      }
      if ($("graph-nodes")) render();
    }

    function relayout() {
      for (const node of nodes.values()) node.fixed = false;
      layout(300);
      render();
    }

    return { loadEntities, expand, reset, relayout };
  })();

  function initGraph() {
    $("graph-form").addEventListener("submit", (event) => {
      event.preventDefault();
      guard(graph.loadEntities)();
    });
    $("graph-relayout").addEventListener("click", () => graph.relayout());
  }

  /* ---------------------------------------------------- 9. Import, export */

  let importTimer = null;

  async function startImport() {
    const file = $("import-file").files && $("import-file").files[0];
    if (!file) {
      setStatus("Choose a file to import first.", "error");
      $("import-file").focus();
      return;
    }
    const progress = $("import-progress");
    progress.max = 1;
    progress.value = 0;
    $("import-result").textContent = "";
    $("import-state").textContent = "uploading…";
    $("import-start").disabled = true;
    try {
      const job = await api("/api/imports", {
        method: "POST",
        query: writeQuery({ name: file.name }),
        raw: file,
      });
      showJob(job);
      if (job && job.state === "running") pollImport(job.id);
      else $("import-start").disabled = false;
    } catch (error) {
      $("import-start").disabled = false;
      $("import-state").textContent = "failed";
      throw error;
    }
  }

  function showJob(job) {
    if (!job) return;
    const progress = $("import-progress");
    const total = typeof job.total === "number" ? job.total : null;
    const done = typeof job.done === "number" ? job.done : 0;
    if (total !== null && total > 0) {
      progress.max = total;
      progress.value = Math.min(done, total);
    } else if (job.state === "done") {
      progress.max = 1;
      progress.value = 1;
    } else {
      progress.removeAttribute("value");
    }
    $("import-state").textContent =
      job.state + " — " + done + (total !== null ? " / " + total : "") + (job.input ? " · " + job.input : "");
    if (job.state === "done") {
      $("import-result").textContent = pretty(job.report);
      setStatus("Import finished.", "ok");
    } else if (job.state === "failed") {
      $("import-result").textContent = "Import failed: " + (job.error || "unknown error");
      setStatus("Import failed: " + (job.error || "unknown error"), "error");
    }
  }

  function pollImport(id) {
    if (importTimer) clearTimeout(importTimer);
    importTimer = setTimeout(
      guard(async () => {
        importTimer = null;
        let job;
        try {
          job = await api("/api/imports/" + enc(id));
        } catch (error) {
          $("import-start").disabled = false;
          throw error;
        }
        showJob(job);
        if (job && job.state === "running") pollImport(id);
        else {
          $("import-start").disabled = false;
          loaded.clear();
          guard(loadMinds)();
        }
      }),
      500
    );
  }

  async function downloadExport(format) {
    setStatus("Preparing the export…", "info");
    const blob = await api("/api/export", { query: readQuery({ format }), expect: "blob" });
    const url = URL.createObjectURL(blob);
    const name = "hive-mind-" + state.mind.replace(/[^A-Za-z0-9._-]/g, "_") + (format === "markdown" ? ".md" : ".jsonl");
    const link = el("a", { href: url, download: name, class: "visually-hidden" }, name);
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    setStatus("Downloaded " + name + ".", "ok");
  }

  function initImport() {
    $("import-form").addEventListener("submit", (event) => {
      event.preventDefault();
      guard(startImport)();
    });
    for (const id of ["export-jsonl", "export-markdown"]) {
      const button = $(id);
      button.addEventListener("click", guard(() => downloadExport(button.getAttribute("data-format"))));
    }
  }

  /* ----------------------------------------------- 10. Identity, awareness */

  const IDENTITY_FIELDS = {
    name: "identity-name",
    role: "identity-role",
    personality: "identity-personality",
    capabilities: "identity-capabilities",
    system_prompt: "identity-system-prompt",
  };

  async function loadIdentity() {
    await Promise.all([guard(loadIdentityForm)(), guard(loadAwareness)()]);
  }

  function fillIdentity(identity) {
    for (const [key, id] of Object.entries(IDENTITY_FIELDS)) {
      const value = identity ? pick(identity, key, key.replace("_", "-")) : "";
      $(id).value = value === undefined || value === null ? "" : String(value);
    }
    const updated = identity ? pick(identity, "updated_at", "updated-at") : null;
    $("identity-updated").textContent = identity
      ? updated
        ? "Last updated " + shortDate(updated) + "."
        : ""
      : "No identity set for this mind yet.";
  }

  async function loadIdentityForm() {
    const identity = await api("/api/identity", { query: readQuery() });
    fillIdentity(identity && typeof identity === "object" ? identity : null);
  }

  async function saveIdentity() {
    const body = {};
    for (const [key, id] of Object.entries(IDENTITY_FIELDS)) body[key] = $(id).value;
    if (!body.name.trim()) {
      setStatus("The identity needs a name.", "error");
      $("identity-name").focus();
      return;
    }
    const identity = await api("/api/identity", { method: "PATCH", body: writeQuery(body) });
    fillIdentity(identity);
    setStatus("Identity saved.", "ok");
  }

  async function loadAwareness() {
    const items = await api("/api/awareness", { query: readQuery() });
    const list = clear($("awareness-list"));
    const all = Array.isArray(items) ? items : asList(items) || [];
    for (const item of all) list.appendChild(awarenessItem(item));
    if (!all.length) list.appendChild(emptyItem("No awareness items."));
  }

  function awarenessItem(item) {
    const id = pick(item, "id");
    const content = String(pick(item, "content") || "");
    const created = pick(item, "created_at", "created-at");
    const expires = pick(item, "expires_at", "expires-at");
    const short = content.length > 60 ? content.slice(0, 57) + "…" : content;
    return el(
      "li",
      { class: "awareness", "data-awareness-id": id },
      item.category ? el("span", { class: "badge" }, String(item.category)) : null,
      item.priority !== undefined && item.priority !== null ? el("span", { class: "badge score" }, "priority " + item.priority) : null,
      el("p", { class: "content" }, content),
      el(
        "span",
        { class: "muted awareness-meta" },
        (created ? "since " + shortDate(created) : "") + (expires ? (created ? " · " : "") + "expires " + shortDate(expires) : "")
      ),
      id === undefined
        ? null
        : el(
            "button",
            {
              type: "button",
              class: "awareness-remove",
              "data-awareness-id": id,
              "aria-label": "Remove awareness item: " + short,
              onclick: guard(() => removeAwareness(id)),
            },
            "remove"
          )
    );
  }

  async function addAwareness() {
    const content = $("awareness-content").value;
    if (!content.trim()) {
      setStatus("Write the awareness item's text first.", "error");
      $("awareness-content").focus();
      return;
    }
    const body = { category: $("awareness-category").value, content };
    const priority = $("awareness-priority").value.trim();
    if (priority !== "") {
      const number = Number(priority);
      if (!Number.isInteger(number)) {
        setStatus("The priority must be a whole number.", "error");
        $("awareness-priority").focus();
        return;
      }
      body.priority = number;
    }
    const expires = $("awareness-expires").value;
    if (expires) {
      // datetime-local is local time without a zone: send it as UTC.
      const when = new Date(expires);
      if (Number.isNaN(when.getTime())) {
        setStatus("The expiry is not a valid date and time.", "error");
        $("awareness-expires").focus();
        return;
      }
      body.expires_at = when.toISOString();
    }
    const evict = $("awareness-evict").checked;
    if (evict) body.evict = true;
    let result;
    try {
      result = await api("/api/awareness", { method: "POST", body: writeQuery(body) });
    } catch (error) {
      if (error && error.status === 400 && !evict && /\bfull\b/i.test(error.message || "")) {
        setStatus(error.message + " Tick “evict the lowest-priority item” to replace one.", "error");
        $("awareness-evict").focus();
        error.silent = true;
      }
      throw error;
    }
    $("awareness-form").reset();
    const evicted = result && result.evicted;
    setStatus(
      evicted
        ? "Awareness item added; evicted “" + String(pick(evicted, "content") || "#" + pick(evicted, "id")) + "”."
        : "Awareness item added.",
      "ok"
    );
    await loadAwareness();
  }

  async function removeAwareness(id) {
    await api("/api/awareness", { method: "DELETE", query: writeQuery({ id }) });
    setStatus("Awareness item removed.", "ok");
    await loadAwareness();
    // The button is gone: keep keyboard focus in the section.
    const next = $("awareness-list").querySelector(".awareness-remove") || $("awareness-content");
    if (next) next.focus();
  }

  function initIdentity() {
    $("identity-form").addEventListener("submit", (event) => {
      event.preventDefault();
      guard(saveIdentity)();
    });
    $("awareness-form").addEventListener("submit", (event) => {
      event.preventDefault();
      guard(addAwareness)();
    });
  }

  /* ---------------------------------------------------------- Start page */

  function startApp() {
    initTokenDialog();
    for (const id of ["memory-detail", "conversation-dialog", "forget-dialog", "merge-dialog", "token-dialog"]) {
      initDialogFocus($(id));
    }
    initMindSelect();
    initNav();
    initSearch();
    initBrowse();
    initSelection();
    initDetail();
    initForget();
    initReview();
    initTimeline();
    initGraph();
    initWiki();
    initImport();
    initIdentity();
    loadHealth();
    guard(loadMinds)();
    const view = location.hash.slice(1);
    showView(VIEWS.includes(view) ? view : "search", false);
  }

  /* ----------------------------------------------------------- 11. Docs */

  const METHODS = ["get", "post", "put", "patch", "delete", "head", "options"];

  async function startDocs() {
    const container = $("docs");
    let doc;
    try {
      const response = await fetch("/openapi.json", { headers: { Accept: "application/json" } });
      if (!response.ok) throw await problemOf(response);
      doc = await response.json();
    } catch (error) {
      $("docs-intro").textContent = "Could not load /openapi.json.";
      showError(error);
      return;
    }
    const info = doc.info || {};
    $("docs-version").textContent = (info.title || "") + (info.version ? " v" + info.version : "");
    const intro = clear($("docs-intro"));
    intro.appendChild(document.createTextNode((info.description || "The REST API of hive-mind.") + " Machine-readable: "));
    intro.appendChild(el("a", { href: "/openapi.json" }, "/openapi.json"));
    intro.appendChild(document.createTextNode("."));

    const groups = groupOperations(doc);
    const toc = clear($("docs-toc"));
    const tocList = el("ul", { class: "toc" });
    toc.appendChild(tocList);
    clear(container);
    for (const [tag, operations] of groups) {
      const anchor = "tag-" + tag.replace(/[^A-Za-z0-9_-]/g, "-");
      tocList.appendChild(el("li", null, el("a", { href: "#" + anchor }, tag + " (" + operations.length + ")")));
      const section = el("section", { id: anchor, class: "docs-tag" }, el("h2", null, tag));
      const tagInfo = (doc.tags || []).find((t) => t.name === tag);
      if (tagInfo && tagInfo.description) section.appendChild(el("p", { class: "muted" }, tagInfo.description));
      for (const op of operations) section.appendChild(renderOperation(doc, op));
      container.appendChild(section);
    }
    const schemas = doc.components && doc.components.schemas;
    if (schemas && Object.keys(schemas).length) {
      tocList.appendChild(el("li", null, el("a", { href: "#schemas" }, "schemas")));
      container.appendChild(renderSchemas(schemas));
    }
    if (location.hash) {
      const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target) target.scrollIntoView();
    }
  }

  function groupOperations(doc) {
    const groups = new Map();
    for (const [path, item] of Object.entries(doc.paths || {})) {
      for (const method of METHODS) {
        const op = item && item[method];
        if (!op) continue;
        const tag = (op.tags && op.tags[0]) || "other";
        if (!groups.has(tag)) groups.set(tag, []);
        groups.get(tag).push({ path, method, op, shared: item.parameters || [] });
      }
    }
    return groups;
  }

  function resolve(doc, value) {
    let current = value;
    for (let i = 0; i < 8 && current && typeof current.$ref === "string"; i++) {
      const parts = current.$ref.replace(/^#\//, "").split("/");
      let next = doc;
      for (const part of parts) next = next ? next[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
      current = next;
    }
    return current || {};
  }

  function schemaName(schema) {
    if (!schema) return "";
    if (schema.$ref) return schema.$ref.split("/").pop();
    if (schema.type === "array") return schemaName(schema.items) + "[]";
    if (Array.isArray(schema.type)) return schema.type.join(" | ");
    if (schema.oneOf || schema.anyOf) return (schema.oneOf || schema.anyOf).map(schemaName).join(" | ");
    return schema.type || "object";
  }

  function renderOperation(doc, entry) {
    const { path, method, op } = entry;
    const id = "op-" + method + "-" + path.replace(/[^A-Za-z0-9]+/g, "-");
    const article = el("article", { class: "operation", id });
    article.appendChild(
      el("h3", null, el("span", { class: "method method-" + method }, method.toUpperCase()), " ", el("code", null, path))
    );
    if (op.summary) article.appendChild(el("p", { class: "summary" }, op.summary));
    if (op.description && op.description !== op.summary) article.appendChild(el("p", null, op.description));
    if (op.security && op.security.length) article.appendChild(el("p", { class: "muted" }, "Needs a bearer token."));

    const params = [].concat(entry.shared, op.parameters || []).map((p) => resolve(doc, p));
    if (params.length) {
      const table = el(
        "table",
        { class: "params" },
        el("thead", null, el("tr", null, el("th", null, "name"), el("th", null, "in"), el("th", null, "type"), el("th", null, "required"), el("th", null, "description")))
      );
      const body = el("tbody");
      for (const p of params) {
        body.appendChild(
          el(
            "tr",
            null,
            el("td", null, el("code", null, p.name || "")),
            el("td", null, p.in || ""),
            el("td", null, schemaName(p.schema)),
            el("td", null, p.required ? "yes" : "no"),
            el("td", null, p.description || "")
          )
        );
      }
      table.appendChild(body);
      article.appendChild(el("h4", null, "Parameters"));
      article.appendChild(el("div", { class: "table-wrap" }, table));
    }

    if (op.requestBody) {
      const request = resolve(doc, op.requestBody);
      const list = el("ul", { class: "plain-list" });
      for (const [media, content] of Object.entries(request.content || {})) {
        list.appendChild(el("li", null, el("code", null, media), " ", schemaName(content.schema)));
      }
      article.appendChild(el("h4", null, "Request body" + (request.required ? " (required)" : "")));
      if (request.description) article.appendChild(el("p", null, request.description));
      article.appendChild(list);
    }

    const responses = Object.entries(op.responses || {});
    if (responses.length) {
      const list = el("dl", { class: "responses" });
      for (const [code, raw] of responses) {
        const response = resolve(doc, raw);
        const media = Object.entries(response.content || {})
          .map(([type, content]) => type + (content.schema ? " " + schemaName(content.schema) : ""))
          .join(", ");
        list.appendChild(el("dt", null, el("code", null, code)));
        list.appendChild(el("dd", null, (response.description || "") + (media ? " — " + media : "")));
      }
      article.appendChild(el("h4", null, "Responses"));
      article.appendChild(list);
    }
    return article;
  }

  function renderSchemas(schemas) {
    const section = el("section", { id: "schemas", class: "docs-tag" }, el("h2", null, "Schemas"));
    for (const [name, schema] of Object.entries(schemas)) {
      const details = el("details", { class: "schema", id: "schema-" + name.replace(/[^A-Za-z0-9_-]/g, "-") });
      details.appendChild(el("summary", null, name));
      if (schema.description) details.appendChild(el("p", null, schema.description));
      const props = schema.properties || {};
      const required = new Set(schema.required || []);
      if (Object.keys(props).length) {
        const list = el("dl", { class: "fields" });
        for (const [prop, value] of Object.entries(props)) {
          list.appendChild(el("dt", null, el("code", null, prop), " ", el("span", { class: "muted" }, schemaName(value) + (required.has(prop) ? ", required" : ""))));
          list.appendChild(el("dd", null, value.description || ""));
        }
        details.appendChild(list);
      } else {
        details.appendChild(el("pre", { class: "small" }, pretty(schema)));
      }
      section.appendChild(details);
    }
    return section;
  }

  /* ------------------------------------------------------------- 8b. Wiki */

  function wikiPageItem(page) {
    const counts = page.statements + " statement(s)" + (page.conflicts ? ", " + page.conflicts + " possibly in conflict" : "");
    const kind = page["entity-type"] ? " (" + page["entity-type"] + ")" : page.kind === "topic" ? " (topic)" : "";
    return el(
      "li",
      { class: "wiki-page-item" },
      el("button", { type: "button", class: "link-button", "data-slug": page.slug, onclick: () => guard(openWikiPage)(page.slug) }, page.title + kind),
      " ",
      el("span", { class: "muted" }, counts),
    );
  }

  function showWikiPages(pages, empty) {
    const list = clear($("wiki-pages"));
    const all = Array.isArray(pages) ? pages : asList(pages) || [];
    for (const page of all) list.appendChild(wikiPageItem(page));
    if (!all.length || (all.length === 1 && !all[0].statements)) {
      list.appendChild(el("li", { class: "muted" }, empty));
    }
  }

  async function loadWikiPages() {
    $("wiki-page").hidden = true;
    $("wiki-health").hidden = true;
    const pages = await api("/api/wiki", { query: readQuery() });
    showWikiPages(pages, "Pages come from the people, places and things your memories name: save or import some.");
  }

  async function searchWiki() {
    const text = $("wiki-query").value.trim();
    if (!text) return loadWikiPages();
    const pages = await api("/api/wiki/search", { query: readQuery({ q: text }) });
    showWikiPages(pages, "No page says that.");
  }

  /** One statement: its day, its text, a button that opens the memory. */
  function wikiStatement(frame, note) {
    const ref = frame.ref;
    return el(
      "li",
      { class: "wiki-statement" },
      el("span", { class: "muted" }, shortDate(frame["created-at"]) + " "),
      el("button", { type: "button", class: "link-button", "data-ref": ref, onclick: () => openMemory(ref) }, shownText(frame)),
      note ? el("span", { class: "muted" }, " " + note) : null,
    );
  }

  /** A language model's paragraph atop a page: its citations open the
      memories they name; marked as a model's. */
  function synthesisBlock(synthesis) {
    const paragraph = el("p", { class: "content" });
    const parts = String(synthesis.text).split(/(\[[^\]]+\])/);
    for (const part of parts) {
      const cited = /^\[([^\]]+)\]$/.exec(part);
      if (cited) {
        const ref = cited[1];
        paragraph.appendChild(
          el("button", { type: "button", class: "link-button citation", "data-ref": ref, onclick: () => openMemory(ref) }, "[" + ref + "]")
        );
      } else if (part) {
        paragraph.appendChild(document.createTextNode(part));
      }
    }
    return el(
      "blockquote",
      { class: "synthesis", "data-testid": "wiki-synthesis" },
      paragraph,
      el("p", { class: "muted small" }, "Summary written by " + (synthesis.model || "a language model") + " from the statements below.")
    );
  }

  async function openWikiPage(slug) {
    const page = await api("/api/wiki/pages/" + encodeURIComponent(slug), { query: readQuery() });
    const article = clear($("wiki-page"));
    const summary = page.summary || {};
    article.appendChild(el("h3", null, summary.title || slug));
    if (summary.kind === "topic") article.appendChild(el("p", { class: "muted" }, "A theme your memories return to."));
    for (const line of page.about || []) article.appendChild(el("p", null, line));
    if (page.synthesis && page.synthesis.text) article.appendChild(synthesisBlock(page.synthesis));
    const conflicted = new Map();
    for (const conflict of page.conflicts || []) {
      conflicted.set(conflict.older, conflict.newer);
      conflicted.set(conflict.newer, conflict.older);
    }
    article.appendChild(el("h4", null, "What is known now"));
    const current = el("ul", { class: "plain-list" });
    for (const frame of page.current || []) {
      const other = conflicted.get(frame.ref);
      current.appendChild(wikiStatement(frame, other ? "⚠ may conflict with " + other : null));
    }
    if (!(page.current || []).length) current.appendChild(el("li", { class: "muted" }, "Nothing current."));
    article.appendChild(current);
    if ((page.history || []).length) {
      article.appendChild(el("h4", null, "History"));
      const history = el("ul", { class: "plain-list" });
      for (const frame of page.history) {
        const by = frame["superseded-by"];
        history.appendChild(wikiStatement(frame, by ? "(replaced by " + by + ")" : "(replaced)"));
      }
      article.appendChild(history);
    }
    if ((page.related || []).length) {
      article.appendChild(el("h4", null, "Related"));
      const related = el("ul", { class: "plain-list" });
      for (const link of page.related) {
        related.appendChild(
          el(
            "li",
            null,
            link.outgoing ? link.relation + " " : "",
            el("button", { type: "button", class: "link-button", "data-slug": link.slug, onclick: () => guard(openWikiPage)(link.slug) }, link.title),
            link.outgoing ? "" : " " + link.relation + " this",
          ),
        );
      }
      article.appendChild(related);
    }
    article.hidden = false;
    $("wiki-health").hidden = true;
  }

  async function loadWikiHealth() {
    const report = await api("/api/wiki/health", { query: readQuery() });
    const box = clear($("wiki-health"));
    const counts = report.counts || {};
    box.appendChild(el("h3", null, "Health"));
    box.appendChild(
      el(
        "p",
        null,
        Object.entries(counts)
          .map(([kind, count]) => count + " " + kind)
          .join(", "),
      ),
    );
    const list = el("ul", { class: "plain-list" });
    for (const issue of report.issues || []) {
      const first = (issue.memories || [])[0];
      list.appendChild(
        el(
          "li",
          null,
          el("span", { class: "badge" }, issue.kind),
          " ",
          first ? el("button", { type: "button", class: "link-button", onclick: () => openMemory(first) }, issue.text) : issue.text,
        ),
      );
    }
    box.appendChild(list);
    box.hidden = false;
    $("wiki-page").hidden = true;
  }

  function initWiki() {
    $("wiki-form").addEventListener("submit", (event) => {
      event.preventDefault();
      guard(searchWiki)();
    });
    $("wiki-all").addEventListener("click", () => guard(loadWikiPages)());
    $("wiki-health-load").addEventListener("click", () => guard(loadWikiHealth)());
  }

  /* ---------------------------------------------------------------- boot */

  function boot() {
    if (document.body && document.body.dataset.page === "docs") guard(startDocs)();
    else if (document.getElementById("search-form")) startApp();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
