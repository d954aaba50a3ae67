// node hold-connections.mjs PORT COUNT: opens COUNT idle TCP connections to 127.0.0.1:PORT (a
// few hundred at a time, so the listen backlog never overflows), prints "open N in MS ms" once
// they are all established, and holds them until its stdin closes. Run under a raised fd limit.
import net from "node:net";

const [port, count] = process.argv.slice(2).map(Number);
const started = performance.now();
const sockets = [];
const batch = 500;
for (let opened = 0; opened < count; opened += batch) {
  const n = Math.min(batch, count - opened);
  await Promise.all(Array.from({ length: n }, () => new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1", () => resolve());
    s.on("error", reject);
    sockets.push(s);
  })));
}
let closedByServer = 0;
for (const s of sockets) s.on("close", () => closedByServer++);
process.stdout.write(`open ${sockets.length} in ${(performance.now() - started).toFixed(0)} ms\n`);
process.stdin.on("data", () => process.stdout.write(`closed ${closedByServer}\n`));
process.stdin.on("end", () => {
  for (const s of sockets) s.destroy();
  process.exit(0);
});
