// node crowd-arrival.mjs PORT COUNT: opens COUNT TCP connections to 127.0.0.1:PORT all at once,
// each sending GET /health as soon as it is connected, and prints "answered N, slowest MS ms"
// once every connection has its answer (or when 30 s have passed). Run under a raised fd limit.
import net from "node:net";

const [port, count] = process.argv.slice(2).map(Number);
const started = performance.now();
let answered = 0, slowest = 0;
const sockets = [];
const report = () => {
  process.stdout.write(`answered ${answered}, slowest ${slowest.toFixed(0)} ms\n`);
  for (const s of sockets) s.destroy();
  process.exit(0);
};
const giveUp = setTimeout(report, 30000);
for (let i = 0; i < count; i++) {
  const s = net.connect(port, "127.0.0.1", () => s.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  let got = "";
  s.on("data", (c) => {
    if (got.includes("\r\n\r\n")) return;
    got += c.toString("latin1");
    if (!got.includes("\r\n\r\n")) return;
    slowest = Math.max(slowest, performance.now() - started);
    if (++answered === count) {
      clearTimeout(giveUp);
      report();
    }
  });
  s.on("error", () => {});
  sockets.push(s);
}
