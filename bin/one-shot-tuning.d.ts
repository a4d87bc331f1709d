/** Whether `args` (the CLI's arguments) start a one-shot compile. */
export function isOneShotCompile(args: readonly string[]): boolean;
/** Makes V8 optimise only the hottest functions of a one-shot compile; does nothing for other commands. */
export function tuneForOneShot(args: readonly string[]): void;
