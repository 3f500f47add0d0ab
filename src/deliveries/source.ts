/**
 * Who is delivering: the client address, and whether WEBHOOK_ALLOWED_IPS lets it in.
 *
 * With TRUST_PROXY the address is the last entry of X-Forwarded-For: the one the proxy in front of
 * the bot (yours, the only one trusted) appended. Earlier entries are whatever the client claimed.
 */
import type { IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";

/** `::ffff:127.0.0.2` → `127.0.0.2`. */
export function normalizeAddress(addr: string): string {
  const a = addr.trim();
  return a.startsWith("::ffff:") && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}

export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = req.headers["x-forwarded-for"];
    const raw = Array.isArray(xff) ? xff.join(",") : xff;
    const last = raw
      ?.split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "")
      .pop();
    if (last && isIP(normalizeAddress(last)) !== 0) return normalizeAddress(last);
  }
  return normalizeAddress(req.socket.remoteAddress ?? "");
}

/** An allow-list from WEBHOOK_ALLOWED_IPS entries (addresses or CIDR blocks); null = allow all. */
export function allowList(entries: readonly string[]): ((addr: string) => boolean) | null {
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const e of entries) {
    const [addr = "", bits] = e.split("/");
    const type = isIP(addr) === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return (addr: string) => {
    const a = normalizeAddress(addr);
    const family = isIP(a);
    if (family === 0) return false;
    return list.check(a, family === 6 ? "ipv6" : "ipv4");
  };
}
