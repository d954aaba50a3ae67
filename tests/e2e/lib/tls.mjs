// Test certificates made with the openssl CLI: a CA, and server certificates it signs for
// localhost and 127.0.0.1 (valid, or already expired), keys readable by their owner only.
import { execFileSync } from "node:child_process";
import { chmodSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const openssl = (args, cwd) => execFileSync("openssl", args, { cwd, stdio: ["ignore", "pipe", "pipe"] });

/** Makes ca.pem/ca.key in `dir`; returns {dir, ca}. */
export function makeCa(dir, name = "z402 test CA") {
  openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
    "-out", "ca.pem", "-days", "30", "-subj", `/CN=${name}`], dir);
  return { dir, ca: join(dir, "ca.pem") };
}

/**
 * A server certificate signed by the CA in `dir`, written as NAME.pem and NAME.key (mode
 * 0600). `days` 0 makes one that expires the second it is made; `usage` is its
 * extendedKeyUsage (a cluster node's is "serverAuth,clientAuth": it is both ends of a link).
 * Returns {cert, key, serial}.
 */
export function makeServerCert(dir, name, { days = 30, hosts = ["DNS:localhost", "IP:127.0.0.1"], usage = "serverAuth" } = {}) {
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${hosts.join(",")}\nextendedKeyUsage=${usage}\n`);
  openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`,
    "-out", `${name}.csr`, "-subj", "/CN=localhost"], dir);
  openssl(["x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
    "-days", String(days), "-extfile", `${name}.ext`, "-out", `${name}.pem`], dir);
  chmodSync(join(dir, `${name}.key`), 0o600);
  const serial = openssl(["x509", "-in", `${name}.pem`, "-noout", "-serial"], dir).toString().trim().split("=")[1];
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`), serial };
}

/** Puts `from`'s certificate and key in place of `to`'s, each by an atomic rename. */
export function replaceCert(from, to) {
  for (const [a, b] of [[from.cert, to.cert], [from.key, to.key]]) {
    execFileSync("cp", ["-p", a, `${b}.new`]);
    renameSync(`${b}.new`, b);
  }
}
