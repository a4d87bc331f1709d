/**
 * The Node options the package compiler's worker thread starts with: those of this process that
 * shape how modules are found and loaded and what is printed, and no others. Node refuses to
 * start a worker given an option that acts on the whole process (a V8 flag such as
 * `--max-old-space-size=4096`, which operators often give `serve`, or `--stack-trace-limit`,
 * `--expose-gc`, `--liftoff-only`: ERR_WORKER_INVALID_EXEC_ARGV), and one that says how the main
 * script was given (`--input-type`, `-e <code>`) means nothing there. V8 flags need not be passed
 * on: they are set once for the process, so the worker's isolate has them already.
 */

/** Options kept, written `--name=value` or `--name value` (`-C value` for --conditions). */
const KEPT_WITH_VALUE = new Set([
  "--conditions",
  "-C",
  "--import",
  "--require",
  "-r",
  "--loader",
  "--experimental-loader",
  "--disable-warning",
]);
/** Options kept that take no value. */
const KEPT_FLAGS = new Set([
  "--enable-source-maps",
  "--no-warnings",
  "--no-deprecation",
  "--trace-warnings",
  "--trace-deprecation",
  "--trace-uncaught",
  "--preserve-symlinks",
  "--preserve-symlinks-main",
]);

/** The options of `execArgv` (this process's, by default) that a worker thread may take. */
export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (KEPT_FLAGS.has(arg)) kept.push(arg);
    else if (KEPT_WITH_VALUE.has(name)) {
      kept.push(arg);
      if (eq === -1 && i + 1 < execArgv.length) kept.push(execArgv[++i]!);
    } else if (eq === -1 && TAKES_VALUE.has(arg)) i++;
  }
  return kept;
}

/** Options left out whose value is the next argument (which must be left out with them). */
const TAKES_VALUE = new Set([
  "-e",
  "--eval",
  "-p",
  "--print",
  "--input-type",
  "--inspect-port",
  "--title",
  "--openssl-config",
  "--env-file",
  "--watch-path",
]);
