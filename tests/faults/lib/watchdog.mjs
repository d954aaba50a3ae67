// The watchdog: a node that has answered none of the campaign's clients for a while, though no
// fault stops it or cuts it off, is stuck, and a stuck process says why only while it is stuck.
// So, once per stall, the watchdog saves what each of its threads is doing (the kernel's view
// from /proc, and gdb's backtraces where gdb is installed) to DIR/stuck-NODE-MS.txt and says so
// in the campaign's output. It only looks: the checker's promises judge the history alone.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const stallMs = 8000;  // two client timeouts (4 s) with no answer
const gdb = ["/usr/bin/gdb", "/usr/local/bin/gdb"].find(existsSync);

/** Each thread of process `pid`: its name, state, the system call it is in and where the kernel waits. */
function threadsOf(pid) {
  const read = (file) => {
    try {
      return readFileSync(file, "utf8").trim();
    } catch {
      return "?";
    }
  };
  const dir = `/proc/${pid}/task`;
  return readdirSync(dir).map((tid) => {
    const t = join(dir, tid);
    const state = /^State:\s*(.*)$/m.exec(read(join(t, "status")))?.[1] ?? "?";
    return `thread ${tid} ${read(join(t, "comm"))}: ${state}; wchan ${read(join(t, "wchan"))}; syscall ${read(join(t, "syscall"))}\n` +
      read(join(t, "stack")).split("\n").map((l) => `    ${l}`).join("\n");
  }).join("\n");
}

/** Backtraces of every thread of `pid` by gdb (resolves with its output or why there is none). */
const backtraces = (pid) => new Promise((resolve) => {
  if (!gdb) return resolve("(gdb is not installed)");
  execFile(gdb, ["-p", String(pid), "-batch", "-ex", "thread apply all bt 30"], { timeout: 30000, maxBuffer: 16 << 20 },
    (error, stdout, stderr) => resolve(stdout || `${error?.message ?? ""}\n${stderr}`));
});

/**
 * Watches `nodes` through the history's answers; `excused(node)` says whether a fault stops the
 * node or cuts it off now. Returns {stop(), stalls}, stalls listing each {node, t, file}.
 */
export function startWatchdog({ history, nodes, excused, out, log }) {
  const lastAnswer = new Map(nodes.map((n) => [n.name, history.now()]));
  const reported = new Set();
  const stalls = [];
  let seen = 0;
  const timer = setInterval(async () => {
    for (; seen < history.events.length; ++seen) {
      const e = history.events[seen];
      if (e.type === "ok" || e.type === "fail") lastAnswer.set(e.node, Math.max(lastAnswer.get(e.node) ?? 0, e.t));
    }
    const now = history.now();
    for (const node of nodes) {
      // A fault under way, or a process not running (a kill's restart), starts the wait again.
      if (excused(node) || !node.running()) lastAnswer.set(node.name, now);
      const since = lastAnswer.get(node.name);
      if (now - since < stallMs || reported.has(`${node.name}:${since}`)) continue;
      reported.add(`${node.name}:${since}`);
      const file = join(out, `stuck-${node.name}-${now}.txt`);
      stalls.push({ node: node.name, t: now, file });
      log(`${node.name} has answered nothing for ${now - since} ms with no fault on it; its threads: ${file}`);
      const pid = node.child.pid;
      const kernel = threadsOf(pid);
      writeFileSync(file, `${node.name} (pid ${pid}) answered nothing from ${since} ms to ${now} ms\n\n${kernel}\n\n${await backtraces(pid)}`);
    }
  }, 1000);
  return {
    stalls,
    stop() {
      clearInterval(timer);
    },
  };
}
