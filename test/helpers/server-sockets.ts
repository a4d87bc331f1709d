import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * The TCP connections a process holds open descriptors for on its local `port`, as the remote
 * ports of their peers: read from the kernel (the process's /proc/<pid>/fd sockets, matched by
 * inode against /proc/net/tcp and tcp6), not from what a client sees. A client that has paused
 * reading never sees a close, and a socket the server destroyed may still be in the kernel's
 * tables (FIN_WAIT, TIME_WAIT) without belonging to any descriptor: this says whether the server
 * still holds it. In the test process itself (`pid` omitted), where a controller runs in process
 * beside its clients, the local port tells the server's ends from the clients'. Linux only.
 */
export function serverConnections(port: number, pid: number | "self" = "self"): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // Closed while listing.
    }
  }
  const peers = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:when retrnsmt uid timeout inode
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || !inodes.has(cols[9]!)) continue;
      const local = parseInt(cols[1]!.split(":")[1]!, 16);
      const remote = parseInt(cols[2]!.split(":")[1]!, 16);
      if (local === port && remote !== 0) peers.add(remote);
    }
  }
  return peers;
}
