// The CLI as npm installs it (dist/, built here first), in a process of its own, and servers
// started with their output in a log file, as an operator's would go: the HTTP benchmarks run
// the controller this way, at the default log level.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoDir } from "./child-process.ts";

/** Builds dist/ and writes a runner of its CLI into `work`; returns the runner's path (give it to `node`). */
export function installedCli(work: string): string {
  console.log("building dist/ (the compiled CLI npm installs) ...");
  if (spawnSync(process.execPath, ["scripts/build-package.mjs"], { cwd: repoDir, stdio: "inherit" }).status !== 0)
    throw new Error("the build failed");
  const cli = join(work, "aps-gen.mjs");
  writeFileSync(
    cli,
    `const { main } = await import(${JSON.stringify(join(repoDir, "dist/cli-bundle/main.js"))});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
  );
  return cli;
}

/** Starts `node <args>` with its output in `log` and resolves once `ready` shows there; LOG_LEVEL is left at its default. */
export async function startLogged(
  args: string[],
  ready: RegExp,
  log: string,
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const { LOG_LEVEL: _level, ...inherited } = process.env;
  const fd = openSync(log, "w");
  const child = spawn(process.execPath, args, {
    cwd: repoDir,
    env: { ...inherited, ...env },
    stdio: ["ignore", fd, fd],
  });
  for (let i = 0; i < 240; i++) {
    if (ready.test(readFileSync(log, "utf8"))) return child;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill("SIGKILL");
  throw new Error(`${args.join(" ")} did not start: ${readFileSync(log, "utf8").slice(-2000)}`);
}

/** SIGTERM, and SIGKILL after 10 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await Promise.race([done, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
