// V8 settings for a CLI process that compiles a package once and exits.
//
// `aps-gen build` and `aps-gen check` run each emitter and checker over the package once. With
// V8's defaults the optimising compiler (TurboFan) compiles, on a background thread, every
// function that has run a little, and spends more CPU on that than most of them win back before
// the process ends. Turned off altogether (--no-opt), a 1000-type build took 0.87x the CPU of
// the defaults but 1.15x the wall time on the quiet 2-core machine (the hottest loops stayed in
// the interpreter). A budget 8 times V8's default (Node 20: 67584) before a function is
// optimised keeps TurboFan for those loops only: on the loaded machine, same runs in turns
// (minimum of 6), 3.8 s CPU and 3.2 s wall against 4.0 s and 3.8 s with --no-opt and 5.6 s and
// 4.0 s with the defaults (bench/cli.bench.ts times the defaults in the same run). A long-lived
// process (`serve`, `build --watch`) keeps V8's defaults, since there optimised code pays off.
import v8 from "node:v8";

/** Whether `args` (the CLI's arguments) start a one-shot compile. */
export function isOneShotCompile(args) {
  const [command, ...rest] = args;
  return (
    (command === "build" || command === "check") &&
    !rest.some((a) => a === "--watch" || a === "-w" || a.startsWith("--watch="))
  );
}

/** Makes V8 optimise only the hottest functions of a one-shot compile; does nothing for other commands. */
export function tuneForOneShot(args) {
  if (isOneShotCompile(args)) v8.setFlagsFromString("--interrupt-budget=540672");
}
