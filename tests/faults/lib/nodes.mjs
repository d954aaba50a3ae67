// A node of the campaign: z402-bazaar serving in its host's namespace, restartable with the same
// data dir and arguments. Every node runs under libfaketime, reading its clock's offset from a
// file the nemesis rewrites (the monotonic clock stays true, as when NTP steps a clock); the
// primary also runs under libfiu's POSIX preload, whose failure points the nemesis turns on and
// off through fiu-ctrl. The server's log goes to a file of its own, kept across restarts.
import { spawn, execFile } from "node:child_process";
import { createWriteStream, writeFileSync } from "node:fs";
import { join } from "node:path";

export const faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";
const fiuPreload = ["/usr/lib/fiu/fiu_run_preload.so", "/usr/lib/fiu/fiu_posix_preload.so"];
export const httpPort = 8080;
export const feedPort = 7400;

export class Node {
  /**
   * `name`: how the history names it; `host`: from makeHost(); `args`: serve's own (role);
   * `control`: a directory for its clock file, fiu's pipes and its log; `faults`: whether
   * libfiu is preloaded (its data dir's I/O faults); `beforeStart(dataDir)`: run before each
   * restart (a planted bug's).
   */
  constructor({ name, host, bazaar, dataDir, args, control, faults, beforeStart }) {
    Object.assign(this, { name, host, bazaar, dataDir, args, control, faults, beforeStart });
    this.starts = 0;
    this.url = `http://${host.address}:${httpPort}`;
    this.clockFile = join(control, `${name}.clock`);
    this.fiuPrefix = join(control, `${name}.fiu`);
    this.log = createWriteStream(join(control, `${name}.log`), { flags: "a" });
    this.clockOffsetS = 0;
    this.child = null;
    writeFileSync(this.clockFile, "+0\n");
  }

  running() {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the server and resolves once it listens; throws with its last words if it does not within 20 s. */
  start() {
    if (this.starts++ > 0) this.beforeStart?.(this.dataDir);
    const preload = [...(this.faults ? fiuPreload : []), faketime];
    const env = {
      ...process.env, LD_PRELOAD: preload.join(" "),
      FAKETIME_TIMESTAMP_FILE: this.clockFile, FAKETIME_CACHE_DURATION: "1", FAKETIME_DONT_FAKE_MONOTONIC: "1",
      ...(this.faults ? { FIU_CTRL_FIFO: this.fiuPrefix, FIU_ENABLE: "" } : {}),
    };
    const child = spawn("ip", ["netns", "exec", this.host.ns, this.bazaar, "serve", "--listen", `${this.host.address}:${httpPort}`,
      "--data-dir", this.dataDir, ...this.args], { env, stdio: ["ignore", "ignore", "pipe"] });
    this.child = child;  // `ip netns exec` execs the server: the pid is the server's
    this.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    let said = "";
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name} did not start within 20 s:\n${said.slice(-4000)}`)), 20000);
      child.stderr.on("data", (chunk) => {
        this.log.write(chunk);
        if (said !== null) {
          said += chunk;
          if (/listening on http/.test(said)) {
            said = null;
            clearTimeout(timer);
            resolve();
          }
        }
      });
      child.on("exit", (code, signal) => {
        // In the node's log, so that a death no fault caused shows there, with how it ended.
        this.log.write(`campaign: ${this.name} exited (${code ?? signal})\n`);
        if (said === null) return;
        clearTimeout(timer);
        reject(new Error(`${this.name} exited at start (${code ?? signal}):\n${said.slice(-4000)}`));
      });
    });
  }

  /** Sends `signal`; for SIGKILL, resolves once the process is gone. */
  async signal(signal) {
    if (!this.running()) return;
    this.child.kill(signal);
    if (signal === "SIGKILL" || signal === "SIGTERM") await this.exited;
  }

  /**
   * Runs a libfiu remote-control command in the (primary's) server, e.g. "enable
   * name=posix/io/sync/fsync,failinfo=5"; resolves with whether it was applied within 5 s (not
   * while the server is down or still starting, when its control pipe is not there yet).
   * Asynchronous: a command that waits must not stop the runner, whose clients would all time
   * out and whose reading of the servers' logs would stop (a full pipe stops a server's writes).
   */
  fiu(command) {
    // One command at a time: fiu-ctrl's pipes carry one conversation.
    const run = () => {
      if (!this.faults || !this.running()) return false;
      return new Promise((resolve) => execFile("fiu-ctrl", ["-f", this.fiuPrefix, "-c", command, String(this.child.pid)],
        { timeout: 5000 }, (error) => resolve(!error)));
    };
    this.fiuCommands = (this.fiuCommands ?? Promise.resolve()).then(run);
    return this.fiuCommands;
  }

  /** Moves the node's wall clock by `seconds` (libfaketime rereads its file within a second). */
  jumpClock(seconds) {
    this.clockOffsetS += seconds;
    writeFileSync(this.clockFile, `${this.clockOffsetS >= 0 ? "+" : ""}${this.clockOffsetS}\n`);
  }

  /** The node's wall clock now, in ms since the epoch (what it believes). */
  wallClockMs() {
    return Date.now() + this.clockOffsetS * 1000;
  }
}
