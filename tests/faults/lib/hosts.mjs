// The campaign's hosts: one network namespace per node, each joined to the runner's namespace
// by a veth pair (10.247.N.1 on the runner's side, 10.247.N.2 in the node's). Nodes reach each
// other only through the runner, where the link proxies sit, and clients reach each node over
// its own pair, so taking a pair's link down cuts a node from everyone, and a proxy's hold
// cuts one cluster link while clients still read.
import { execFileSync, spawnSync } from "node:child_process";

const ip = (...args) => execFileSync("ip", args, { stdio: ["ignore", "pipe", "pipe"] });

/** Namespace names are fixed, so a run killed half-way is cleaned up by the next one. */
const names = (index) => ({ ns: `z402f-${index}`, outside: `z402f-h${index}`, inside: `z402f-n${index}` });

/** Removes host `index`'s namespace and pair if an earlier run left them. */
export function removeHost(index) {
  const { ns, outside } = names(index);
  spawnSync("ip", ["link", "del", outside], { stdio: "ignore" });
  spawnSync("ip", ["netns", "del", ns], { stdio: "ignore" });
}

/** Removes the route that keeps the hosts' addresses on this machine. */
export function removeHostsRoute() {
  spawnSync("ip", ["route", "del", "unreachable", "10.247.0.0/16", "metric", "4000"], { stdio: "ignore" });
}

/**
 * While a pair is down its addresses must go nowhere: without this route the runner's default
 * route would carry them off the machine, to whoever answers there.
 */
function keepAddressesHome() {
  spawnSync("ip", ["route", "replace", "unreachable", "10.247.0.0/16", "metric", "4000"], { stdio: "ignore" });
}

/** Makes host `index`: {ns, outside, inside, gateway (the runner's address), address (the node's)}. */
export function makeHost(index) {
  removeHost(index);
  keepAddressesHome();
  const { ns, outside, inside } = names(index);
  const gateway = `10.247.${index}.1`, address = `10.247.${index}.2`;
  ip("netns", "add", ns);
  ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", ns);
  ip("addr", "add", `${gateway}/24`, "dev", outside);
  ip("link", "set", outside, "up");
  ip("-n", ns, "addr", "add", `${address}/24`, "dev", inside);
  ip("-n", ns, "link", "set", inside, "up");
  ip("-n", ns, "link", "set", "lo", "up");
  return { index, ns, outside, inside, gateway, address };
}

/** Takes the host's pair down (`up` false) or up again: the node is cut from clients and cluster. */
export function setLink(host, up) {
  ip("link", "set", host.outside, up ? "up" : "down");
}

/**
 * Whether this process may make namespaces and enter them (root, or CAP_NET_ADMIN and
 * CAP_SYS_ADMIN, on a root that is a mount point: in a chroot `ip -n` cannot remount /sys).
 */
export function canMakeHosts() {
  const probe = "z402f-probe";
  if (spawnSync("ip", ["netns", "add", probe], { stdio: "ignore" }).status !== 0) return false;
  const entered = spawnSync("ip", ["-n", probe, "link", "set", "lo", "up"], { stdio: "ignore" }).status === 0;
  spawnSync("ip", ["netns", "del", probe], { stdio: "ignore" });
  return entered;
}
