// Engram dashboard: one Alpine.js component over the /v1 API. No build step.
// Views follow the URL hash (#/memories, #/m/<id>, #/review, #/conflicts, #/overview),
// so the browser's back button and links work, and every action has a key.

const PAGE = 50;
const SEARCH_K = 100;
const PROVENANCE_LABELS = {
  human: "human", agent: "agent save", hook: "hook capture", checkpoint: "checkpoint",
  import: "import", consolidation: "consolidated",
};

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  // Per browser session: a team server's token is not left behind in the profile.
  const token = sessionStorage.getItem("engram.token");
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    const error = new Error((data && data.message) || `${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

// Word-level differences between two texts (longest common subsequence of words): what a
// new version or a conflicting memory changed, shown as removed and added runs.
function wordDiff(before, after) {
  const a = (before || "").split(/(\s+)/).filter((w) => w !== "");
  const b = (after || "").split(/(\s+)/).filter((w) => w !== "");
  if (a.length * b.length > 250000) return [{ kind: "del", text: before }, { kind: "add", text: after }];
  const rows = a.length + 1, cols = b.length + 1;
  const lcs = new Uint16Array(rows * cols);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * cols + j] = a[i] === b[j] ? lcs[(i + 1) * cols + j + 1] + 1
        : Math.max(lcs[(i + 1) * cols + j], lcs[i * cols + j + 1]);
    }
  }
  const parts = [];
  const push = (kind, text) => {
    const last = parts[parts.length - 1];
    if (last && last.kind === kind) last.text += text; else parts.push({ kind, text });
  };
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) { push("same", a[i]); i++; j++; }
    else if (lcs[(i + 1) * cols + j] >= lcs[i * cols + j + 1]) push("del", a[i++]);
    else push("add", b[j++]);
  }
  while (i < a.length) push("del", a[i++]);
  while (j < b.length) push("add", b[j++]);
  return parts;
}

// The memories list's state in the URL (#/memories?q=…&type=…), so a search can be shared,
// bookmarked and reloaded.
const LIST_KEYS = ["q", "project", "type", "status", "provenance", "tag", "since", "until"];

function query(params) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) q.set(key, value);
  }
  return q.toString();
}

document.addEventListener("alpine:init", () => {
  Alpine.data("dashboard", () => ({
    view: "memories",
    vocab: { types: [], statuses: ["active"], provenances: [], projects: [] },
    f: { q: "", project: "", type: "", status: "active", provenance: "", tag: "", since: "", until: "" },
    items: [], total: 0, offset: 0, order: "newest", cursor: 0, mode: "browse", shownQuery: "", elapsed: null, cut: 0,
    memory: null, history: [], changes: null, editing: false, draft: {}, confirmDelete: false,
    review: { items: [], total: 0 }, reviewCursor: 0, reviewTotal: 0, reviewReturn: false,
    conflicts: [], conflictCursor: 0, conflictsLoading: false, conflictScan: 100,
    ov: null, charts: [],
    failure: "", flash: "", help: false, needToken: false, tokenDraft: "", storeEmpty: false,

    async init() {
      let resizeTimer = null;
      window.addEventListener("resize", () => {
        clearTimeout(resizeTimer);
        resizeTimer = setTimeout(() => { if (this.view === "overview" && this.ov) this.drawCharts(); }, 150);
      });
      await this.start();
    },
    async start() {
      await this.guard(async () => {
        this.vocab = await api("GET", "/v1/vocabulary");
      });
      this._loaded = false;
      this.route();
      this.refreshReviewCount();
    },

    // --- plumbing ---------------------------------------------------------------------
    async guard(work) {
      try {
        this.failure = "";
        return await work();
      } catch (error) {
        if (error.status === 401) { this.needToken = true; return null; }
        this.failure = error.message;
        return null;
      }
    },
    say(text) {
      this.flash = text;
      clearTimeout(this._flashTimer);
      this._flashTimer = setTimeout(() => { this.flash = ""; }, 2500);
    },
    saveToken() {
      sessionStorage.setItem("engram.token", this.tokenDraft.trim());
      this.needToken = false;
      this.start();
    },
    route() {
      const before = this.view;
      const [path, search] = location.hash.replace(/^#\/?/, "").split("?");
      const hash = path;
      const [head, rest] = [hash.split("/")[0], hash.split("/").slice(1).join("/")];
      if (head === "memories" || head === "") {
        // a link with its own state sets it; a bare #/memories (the tab, the way back from
        // one memory) keeps the filters already chosen and shows them in the URL again
        if (search !== undefined) this.readListState(new URLSearchParams(search));
        else if (this._loaded) this.writeListState();
      }
      this.editing = false;
      this.confirmDelete = false;
      if (head === "m" && rest) { this.view = "memory"; this.loadMemory(decodeURIComponent(rest)); }
      else if (head === "review") { this.view = "review"; this.loadReview(); }
      else if (head === "conflicts") { this.view = "conflicts"; this.loadConflicts(); }
      else if (head === "overview") { this.view = "overview"; this.loadOverview(); }
      else { this.view = "memories"; if (!this._loaded) this.loadList(); }
      if (this.view !== before) window.scrollTo(0, 0);
    },

    // --- formatting -------------------------------------------------------------------
    diff(before, after) { return wordDiff(before, after); },
    label(type) { return (type || "").replace(/_/g, " "); },
    provenanceLabel(p) { return PROVENANCE_LABELS[p] || p; },
    snippet(text, n = 160) {
      const flat = (text || "").replace(/\s+/g, " ").trim();
      return flat.length > n ? flat.slice(0, n - 1) + "…" : flat;
    },
    fmt(iso) { return iso ? new Date(iso).toLocaleString() : "—"; },
    ago(iso) {
      if (!iso) return "";
      const seconds = (Date.now() - new Date(iso).getTime()) / 1000;
      const steps = [[60, "s", 1], [3600, "min", 60], [86400, "h", 3600], [86400 * 30, "d", 86400],
                     [86400 * 365, "mo", 86400 * 30], [Infinity, "y", 86400 * 365]];
      if (seconds < 0) return "just now";
      for (const [limit, unit, size] of steps) {
        if (seconds < limit) return `${Math.floor(seconds / size)} ${unit} ago`;
      }
      return "";
    },

    // --- memories list ----------------------------------------------------------------
    filterParams() {
      const day = (d, end) => (d ? (end ? `${d}T23:59:59Z` : `${d}T00:00:00Z`) : "");
      return {
        project: this.f.project, type: this.f.type, status: this.f.status,
        provenance: this.f.provenance, tag: this.f.tag.trim().replace(/^#/, ""),
        since: day(this.f.since, false), until: day(this.f.until, true),
      };
    },
    applyFilters() { this.offset = 0; this.cursor = 0; this.writeListState(); this.loadList(); },
    readListState(params) {
      const wanted = {};
      for (const key of LIST_KEYS) wanted[key] = params.get(key) || (key === "status" ? "active" : "");
      const order = params.get("order") || "newest";
      const offset = Math.max(0, parseInt(params.get("offset") || "0", 10) || 0);
      const same = LIST_KEYS.every((k) => this.f[k] === wanted[k]) && order === this.order
        && offset === this.offset;
      if (!same) { Object.assign(this.f, wanted); this.order = order; this.offset = offset; this._loaded = false; }
    },
    writeListState() {
      const state = {};
      for (const key of LIST_KEYS) {
        const value = (this.f[key] || "").trim();
        if (value && !(key === "status" && value === "active")) state[key] = value;
      }
      if (this.order !== "newest") state.order = this.order;
      if (this.offset) state.offset = this.offset;
      const q = query(state);
      history.replaceState(null, "", `#/memories${q ? "?" + q : ""}`);
    },
    filtersAreDefault() {
      return LIST_KEYS.every((k) => !this.f[k] || (k === "status" && this.f[k] === "active"));
    },
    async loadList() {
      this._loaded = true;
      await this.guard(async () => {
        const q = this.f.q.trim();
        const params = this.filterParams();
        if (q) {
          const data = await api("GET", `/v1/search?${query({ q, k: SEARCH_K, ...params })}`);
          const best = data.results.length ? data.results[0].score : 1;
          const results = data.results.map((r) => ({ ...r.memory, _match: best > 0 ? r.score / best : 0 }));
          this.items = results;
          this.mode = "search";
          this.shownQuery = q;
          this.elapsed = Math.round(data.elapsed_ms);
          this.total = results.length;
          this.cut = data.cut || 0;
        } else {
          const started = performance.now();
          const data = await api("GET", `/v1/memories?${query({ ...params, order: this.order, limit: PAGE, offset: this.offset })}`);
          this.items = data.items;
          this.total = data.total;
          this.mode = "browse";
          if (!data.total && this.filtersAreDefault()) {  // nothing at all yet, or all archived?
            const stats = await api("GET", "/v1/stats");
            this.storeEmpty = !stats.total;
          } else if (data.total) {
            this.storeEmpty = false;
          }
          this.elapsed = Math.round(performance.now() - started);
        }
        this.cursor = Math.min(this.cursor, Math.max(0, this.items.length - 1));
      });
    },
    page(step) {
      const next = this.offset + step * PAGE;
      if (next < 0 || next >= this.total) return;
      this.offset = next;
      this.cursor = 0;
      this.writeListState();
      this.loadList();
      window.scrollTo(0, 0);
    },
    open(id) { location.hash = `#/m/${encodeURIComponent(id)}`; },

    // --- one memory -------------------------------------------------------------------
    async loadMemory(id) {
      await this.guard(async () => {
        const memory = await api("GET", `/v1/memories/${encodeURIComponent(id)}?track=false`);
        const chain = await api("GET", `/v1/memories/${encodeURIComponent(memory.id)}/history`);
        this.memory = memory;
        this.history = chain.items.slice().reverse();
        const older = chain.items.findIndex((h) => h.id === memory.id) - 1;  // oldest first
        this.changes = older >= 0 ? wordDiff(chain.items[older].content, memory.content) : null;
      });
    },
    startEdit() {
      const m = this.memory;
      this.draft = {
        content: m.content, type: m.type, project: m.project || "", tags: m.tags.join(", "),
        files: m.files.join(", "), importance: m.importance, confidence: m.confidence,
        problem: m.problem || "", solution: m.solution || "", in_place: false,
      };
      this.editing = true;
      this.$nextTick(() => document.getElementById("edit-content").focus());
    },
    async saveEdit() {
      const d = this.draft;
      const list = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);
      const body = {
        content: d.content, type: d.type, project: d.project.trim(), tags: list(d.tags),
        files: list(d.files), importance: Number(d.importance), confidence: Number(d.confidence),
        problem: d.problem.trim() || null, solution: d.solution.trim() || null,
        in_place: d.in_place,
      };
      const updated = await this.guard(() =>
        api("PATCH", `/v1/memories/${encodeURIComponent(this.memory.id)}`, body));
      if (!updated) return;
      this.editing = false;
      if (this.reviewReturn) {
        await this.guard(() => api("POST", `/v1/review/${updated.id}/reviewed?outcome=edited`));
        this.reviewReturn = false;
        this.say("Saved and reviewed");
        location.hash = "#/review";
        return;
      }
      this.say(updated.id === this.memory.id ? "Saved" : "Saved as a new version");
      this._loaded = false;
      if (updated.id === this.memory.id) this.loadMemory(updated.id);
      else this.open(updated.id);
    },
    async togglePin() {
      const action = this.memory.pinned ? "unpin" : "pin";
      const m = await this.guard(() => api("POST", `/v1/memories/${this.memory.id}/${action}`));
      if (m) { this.memory = m; this._loaded = false; this.say(m.pinned ? "Pinned" : "Unpinned"); }
    },
    async act(action) {
      const m = await this.guard(() => api("POST", `/v1/memories/${this.memory.id}/${action}`));
      if (m) { this.memory = m; this._loaded = false; this.say(action === "archive" ? "Archived" : "Restored"); this.loadMemory(m.id); }
    },
    async hardDelete() {
      this.confirmDelete = false;
      const done = await this.guard(() => api("DELETE", `/v1/memories/${this.memory.id}?hard=true`));
      if (done) { this.say("Deleted"); this._loaded = false; location.hash = "#/memories"; }
    },

    // --- review queue -----------------------------------------------------------------
    async refreshReviewCount() {
      const data = await this.guard(() => api("GET", "/v1/review?limit=0"));
      if (data) this.reviewTotal = data.total;
    },
    async loadReview() {
      const data = await this.guard(() => api("GET", "/v1/review?limit=100"));
      if (data) {
        this.review = data;
        this.reviewTotal = data.total;
        this.reviewCursor = Math.min(this.reviewCursor, Math.max(0, data.items.length - 1));
      }
    },
    current() { return this.review.items[this.reviewCursor]; },
    async reviewAction(path, message) {
      const m = this.current();
      if (!m) return;
      const done = await this.guard(() => api("POST", `/v1/review/${m.id}/${path}`));
      if (!done) return;
      this.review.items.splice(this.reviewCursor, 1);
      this.review.total -= 1;
      this.reviewTotal = this.review.total;
      this.reviewCursor = Math.min(this.reviewCursor, Math.max(0, this.review.items.length - 1));
      this._loaded = false;
      this.say(message);
      if (!this.review.items.length && this.review.total > 0) this.loadReview();
    },
    approve() { return this.reviewAction("approve", "Approved"); },
    rejectReview() { return this.reviewAction("reject", "Rejected (archived)"); },
    reviewEdit() {
      const m = this.current();
      if (!m) return;
      this.reviewReturn = true;
      this.open(m.id);
      const wait = setInterval(() => {
        if (this.memory && this.memory.id === m.id) { clearInterval(wait); this.startEdit(); }
      }, 30);
      setTimeout(() => clearInterval(wait), 3000);
    },

    // --- conflicts --------------------------------------------------------------------
    async loadConflicts() {
      this.conflictsLoading = true;
      const data = await this.guard(() => api("GET", `/v1/conflicts?limit=50&scan=${this.conflictScan}`));
      this.conflictsLoading = false;
      if (data) {
        this.conflicts = data.items;
        this.conflictCursor = Math.min(this.conflictCursor, Math.max(0, data.items.length - 1));
      }
    },
    scanMore() {
      this.conflictScan = Math.min(2000, this.conflictScan * 4);
      this.loadConflicts();
    },
    async resolveConflict(path, body, message) {
      const done = await this.guard(() => api("POST", `/v1/conflicts/${path}`, body));
      if (!done) return;
      this.conflicts.splice(this.conflictCursor, 1);
      this.conflictCursor = Math.min(this.conflictCursor, Math.max(0, this.conflicts.length - 1));
      this._loaded = false;
      this.say(message);
    },
    supersede() {
      const c = this.conflicts[this.conflictCursor];
      if (c) return this.resolveConflict("supersede", { old_id: c.older.id, new_id: c.newer.id }, "The newer one supersedes the older");
    },
    keepBoth() {
      const c = this.conflicts[this.conflictCursor];
      if (c) return this.resolveConflict("keep-both", { first_id: c.older.id, second_id: c.newer.id }, "Kept both");
    },

    // --- overview ---------------------------------------------------------------------
    async loadOverview() {
      const data = await this.guard(() => api("GET", "/v1/overview?weeks=26&top=10"));
      if (!data) return;
      this.ov = data;
      this.reviewTotal = data.review_pending;
      this.$nextTick(() => requestAnimationFrame(() => this.drawCharts()));
    },
    drawCharts() {
      this.charts.forEach((c) => c.destroy());
      this.charts = [];
      const weeks = this.ov.weeks.map((w) => new Date(w).getTime() / 1000);
      const palette = ["#2563eb", "#16a34a", "#dc2626", "#9333ea", "#ea580c", "#0891b2",
                       "#ca8a04", "#db2777", "#4b5563", "#65a30d", "#7c3aed", "#0d9488"];
      // Stacked bars: series i is drawn as the sum of series 0..i, tallest first, so each
      // colour shows its own share of the week.
      const bars = uPlot.paths && uPlot.paths.bars ? uPlot.paths.bars({ size: [0.8, 40] }) : undefined;
      const draw = (id, seriesMap) => {
        const el = document.getElementById(id);
        if (!el || typeof uPlot === "undefined") return;
        const names = Object.keys(seriesMap).filter((n) => seriesMap[n].some((v) => v > 0));
        const stacked = [];
        names.forEach((name, i) => {
          stacked.push(seriesMap[name].map((v, w) => v + (i ? stacked[i - 1][w] : 0)));
        });
        const order = names.map((_, i) => i).reverse();
        const box = el.parentElement.getBoundingClientRect();
        const width = Math.max(240, Math.floor(box.width) - 40);
        const opts = {
          width, height: 230,
          series: [{}, ...order.map((i) => ({
            label: this.label(names[i]), stroke: palette[i % palette.length],
            fill: palette[i % palette.length], width: 0, paths: bars, points: { show: false },
            value: (u, v, s, idx) => (idx == null ? "" : seriesMap[names[i]][idx]),
          }))],
          axes: [{}, { size: 40 }],
          scales: { x: { time: true } },
          legend: { live: false },
        };
        const data = [weeks, ...order.map((i) => stacked[i])];
        this.charts.push(new uPlot(opts, data, el));
      };
      draw("chart-type", this.ov.by_type);
      draw("chart-project", this.ov.by_project);
    },

    // --- keyboard ---------------------------------------------------------------------
    onKey(e) {
      const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName);
      if (e.key === "Escape") {
        if (this.help || this.confirmDelete) { this.help = false; this.confirmDelete = false; return; }
        if (typing) { e.target.blur(); if (this.editing) this.editing = false; return; }
        if (this.view === "memory") { history.length > 1 ? history.back() : (location.hash = "#/memories"); }
        return;
      }
      if (this.editing && e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); this.saveEdit(); return; }
      if (typing || e.ctrlKey || e.metaKey || e.altKey || this.needToken) return;
      if (this.confirmDelete) { if (e.key === "Enter") this.hardDelete(); return; }
      const tabs = { 1: "#/memories", 2: "#/review", 3: "#/conflicts", 4: "#/overview" };
      if (tabs[e.key]) { location.hash = tabs[e.key]; return; }
      if (e.key === "?") { this.help = !this.help; return; }
      const handlers = {
        memories: () => this.listKey(e),
        memory: () => this.memoryKey(e),
        review: () => this.reviewKey(e),
        conflicts: () => this.conflictKey(e),
      };
      if (handlers[this.view]) handlers[this.view]();
    },
    move(cursor, length, key) {
      if (key === "j" || key === "ArrowDown") return Math.min(length - 1, cursor + 1);
      if (key === "k" || key === "ArrowUp") return Math.max(0, cursor - 1);
      return cursor;
    },
    scrollSelected() {
      this.$nextTick(() => {
        const el = document.querySelector("section:not([style*='none']) .selected");
        if (el) el.scrollIntoView({ block: "nearest" });
      });
    },
    listKey(e) {
      if (e.key === "/") { e.preventDefault(); document.getElementById("q").focus(); return; }
      if (["j", "k", "ArrowDown", "ArrowUp"].includes(e.key)) {
        e.preventDefault();
        this.cursor = this.move(this.cursor, this.items.length, e.key);
        this.scrollSelected();
      } else if (e.key === "Enter" && this.items[this.cursor]) this.open(this.items[this.cursor].id);
      else if (e.key === "]") this.page(1);
      else if (e.key === "[") this.page(-1);
    },
    memoryKey(e) {
      if (!this.memory || this.editing) return;
      if (e.key === "e") { e.preventDefault(); this.startEdit(); }
      else if (e.key === "p") this.togglePin();
      else if (e.key === "a") this.act(this.memory.status === "active" ? "archive" : "restore");
      else if (e.key === "D") this.confirmDelete = true;
    },
    reviewKey(e) {
      if (["j", "k", "ArrowDown", "ArrowUp"].includes(e.key)) {
        e.preventDefault();
        this.reviewCursor = this.move(this.reviewCursor, this.review.items.length, e.key);
        this.scrollSelected();
      } else if (e.key === "a") this.approve();
      else if (e.key === "r") this.rejectReview();
      else if (e.key === "e") { e.preventDefault(); this.reviewEdit(); }
    },
    conflictKey(e) {
      if (["j", "k", "ArrowDown", "ArrowUp"].includes(e.key)) {
        e.preventDefault();
        this.conflictCursor = this.move(this.conflictCursor, this.conflicts.length, e.key);
        this.scrollSelected();
      } else if (e.key === "s") this.supersede();
      else if (e.key === "b") this.keepBoth();
    },
  }));
});
