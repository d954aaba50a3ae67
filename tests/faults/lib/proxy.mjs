// A cluster link's proxy, in the runner's namespace: a follower's feed connection enters it on
// the follower's pair and leaves it for the primary's. The nemesis sets each direction apart:
// passing, held (its bytes stay in the sender's socket buffers, as behind a partition: TCP
// neither loses nor reorders a stream's bytes, so a userspace proxy's "loss" is a stall and its
// "reordering" a delay that varies between connections), or delayed (each chunk by a drawn
// number of milliseconds, in order); and it can cut every connection it carries (a reset).
import net from "node:net";

/**
 * Listens on `listen` {host, port} and forwards to `target` {host, port}. `random` draws the
 * delays. Returns {set(direction, mode), cut(), close()}: direction "up" (to the primary) or
 * "down" (to the follower); mode {pass:true} | {hold:true} | {delayMs:[lo, hi]}.
 */
export async function linkProxy(listen, target, random) {
  const modes = { up: { pass: true }, down: { pass: true } };
  const pipes = new Set();  // every direction of every connection: {direction, from, to, lastAt}

  const apply = (pipe) => {
    if (modes[pipe.direction].hold) pipe.from.pause();
    else pipe.from.resume();
  };
  const forward = (pipe, chunk) => {
    const mode = modes[pipe.direction];
    if (!mode.delayMs) return void pipe.to.write(chunk);
    // In order: a chunk never overtakes the one before it.
    const at = Math.max(Date.now() + random.int(...mode.delayMs), pipe.lastAt);
    pipe.lastAt = at;
    setTimeout(() => pipe.to.destroyed || pipe.to.write(chunk), at - Date.now());
  };

  const server = net.createServer((follower) => {
    const primary = net.connect(target.port, target.host);
    const both = [{ direction: "up", from: follower, to: primary, lastAt: 0 }, { direction: "down", from: primary, to: follower, lastAt: 0 }];
    for (const pipe of both) {
      pipes.add(pipe);
      pipe.from.on("data", (chunk) => forward(pipe, chunk));
      // Either end gone takes the other with it, as a reset would.
      pipe.from.on("error", () => pipe.to.destroy());
      pipe.from.on("close", () => { pipes.delete(pipe); pipe.to.destroy(); });
      apply(pipe);
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, resolve);
  });
  return {
    set(direction, mode) {
      modes[direction] = mode;
      for (const pipe of pipes) if (pipe.direction === direction) apply(pipe);
    },
    cut() {
      for (const pipe of pipes) pipe.from.destroy();
    },
    close() {
      for (const pipe of pipes) pipe.from.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
