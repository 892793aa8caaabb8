// Messages beside the controls (a refused value, a value another control moved) and the page's
// status line.

export class Messages {
  constructor(form, status, byName) {
    this.form = form;
    this.status = status;
    this.byName = byName;
    this.shown = {}; // field → message shown beside its control ("" = none)
  }

  /** An error beside field `name`'s control ("" clears it); false when it has no place for one. */
  set(name, message) {
    this.shown[name] = message;
    const slot = document.getElementById(`err-${name}`);
    if (!slot) return false;
    if (slot.textContent !== message) slot.textContent = message;
    slot.classList.remove("is-note");
    slot.closest(".control")?.classList.toggle("has-error", Boolean(message));
    return true;
  }

  /** A remark beside a control that is not an error (a value another control moved). */
  note(name, note) {
    const slot = document.getElementById(`err-${name}`);
    if (!slot || this.shown[name]) return;
    slot.textContent = note;
    slot.classList.toggle("is-note", Boolean(note));
  }

  clearNotes() {
    this.form?.querySelectorAll(".control-error.is-note").forEach((slot) => {
      slot.textContent = "";
      slot.classList.remove("is-note");
    });
  }

  setStatus(text, isError = false) {
    if (!this.status) return;
    this.status.textContent = text;
    this.status.classList.toggle("is-error", isError);
  }

  /** A 422's items beside the controls they name (the rest in the status line); the names. */
  showServerErrors(body) {
    const items = Array.isArray(body.detail) ? body.detail : [{ msg: String(body.detail) }];
    const loose = [];
    for (const item of items) {
      const text = item.msg + (item.allowed && item.type !== "rule" ? ` (allowed: ${item.allowed})` : "");
      if (!item.param || !this.set(item.param, text)) loose.push(text);
    }
    if (loose.length) this.setStatus(loose.join(" · "), true);
    return items.map((item) => item.param).filter((name) => name in this.byName);
  }
}
