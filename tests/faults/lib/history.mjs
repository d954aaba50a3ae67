// The campaign's history, as Jepsen keeps one: every client operation as an invocation and its
// completion (ok: the node acknowledged it; fail: the node refused it, so it did not happen;
// info: no answer, or one that does not say, so it may or may not have happened), and every
// fault the nemesis injected and healed, each stamped with milliseconds since the campaign
// began. The checker reads only this, so a history written to a file is checked again alone.
import { writeFileSync } from "node:fs";

export class History {
  constructor() {
    this.start = Date.now();
    this.events = [];
    this.nextId = 0;
    this.open = new Map();  // id -> its invocation, until it completes
  }

  now() {
    return Date.now() - this.start;
  }

  /** Records an invocation; returns its id, for complete(). */
  invoke(process, node, f, value) {
    const id = this.nextId++;
    const event = { t: this.now(), type: "invoke", id, process, node, f, value };
    this.events.push(event);
    this.open.set(id, event);
    return id;
  }

  /** Records how invocation `id` ended: "ok", "fail" or "info", with what was learnt. */
  complete(id, type, value) {
    const invoked = this.open.get(id);
    this.open.delete(id);
    this.events.push({ t: this.now(), type, id, process: invoked.process, node: invoked.node, f: invoked.f, value });
  }

  /**
   * Records a fault's start or end ("start" | "end") on `target`, stamped `t` (by default now): a
   * start is stamped when its injection began (a kill's, before the process was gone), so
   * the checker never reads what it caused as happening before it.
   */
  fault(phase, kind, target, detail = {}, t = this.now()) {
    this.events.push({ t, type: "fault", phase, kind, target, ...detail });
  }

  /** One JSON object a line, in the order they happened. */
  save(file) {
    writeFileSync(file, this.events.map((e) => JSON.stringify(e)).join("\n") + "\n");
  }
}
