// V8 settings for a CLI process that compiles a package once and exits.
//
// `aps-gen build` and `aps-gen check` run each emitter and checker over the package once. V8's
// optimising compiler (TurboFan) then spends more CPU, on background threads, compiling hot
// functions than the optimised code wins back before the process ends: a 1000-type build took
// 0.59-0.76x the CPU without it (bench/cli.bench.ts times both in the same run). A long-lived process (`serve`, `build --watch`) keeps it,
// since there the optimised code pays off.
import v8 from "node:v8";

/** Whether `args` (the CLI's arguments) start a one-shot compile. */
export function isOneShotCompile(args) {
  const [command, ...rest] = args;
  return (command === "build" || command === "check") && !rest.some((a) => a === "--watch" || a === "-w" || a.startsWith("--watch="));
}

/** Turns the optimising compiler off for a one-shot compile; does nothing for other commands. */
export function tuneForOneShot(args) {
  if (isOneShotCompile(args)) v8.setFlagsFromString("--no-opt");
}
