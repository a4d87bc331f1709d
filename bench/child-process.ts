// Helpers the benchmarks share: a CLI run to its end, and a keep-alive HTTPS call.
import { spawn } from "node:child_process";
import { Agent, request } from "node:https";

export const repoDir = new URL("..", import.meta.url).pathname;

/** Runs `node <args>` to the end and returns its standard output. */
export function runCapture(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: repoDir, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += String(d)));
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args.join(" ")} exited with ${code}`)),
    );
  });
}

const keepAlive = new Agent({ keepAlive: true });

/** One HTTPS call trusting `ca`; resolves with the status and the body text. */
export function httpsCall(
  base: string,
  ca: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, base),
      {
        method,
        ca,
        agent: keepAlive,
        headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += String(d)));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}
