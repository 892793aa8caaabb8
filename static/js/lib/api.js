// Fetch JSON, cancelling the previous request: a newer slider value wins.

export class LatestRequest {
  constructor() {
    this.controller = null;
  }

  /** Resolves to {ok, status, body}; resolves to null when superseded by a newer call. */
  async get(url) {
    if (this.controller) this.controller.abort();
    const controller = new AbortController();
    this.controller = controller;
    try {
      const response = await fetch(url, { signal: controller.signal, headers: { Accept: "application/json" } });
      const body = await response.json().catch(() => ({ detail: `HTTP ${response.status}` }));
      return controller.signal.aborted ? null : { ok: response.ok, status: response.status, body };
    } catch (error) {
      if (error.name === "AbortError") return null;
      return { ok: false, status: 0, body: { detail: "The server could not be reached." } };
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }
}
