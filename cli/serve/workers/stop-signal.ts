/** Resolves at the first SIGTERM or SIGINT, and stops listening for them (a second one ends the process as Node does). */
export function untilStopSignal(): Promise<void> {
  return new Promise<void>((stop) => {
    const onSignal = () => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      stop();
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}
