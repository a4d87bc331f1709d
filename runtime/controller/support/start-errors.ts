/**
 * Why a controller could not start, in words an operator acts on: the CLI prints the message as
 * one line and exits 2 (unusable environment), never with a stack trace.
 */
export class ControllerStartError extends Error {
  constructor(
    message: string,
    readonly reason: "port-in-use" | "address-unavailable" | "data-folder-in-use" | "database-unreachable" | "migrations-pending",
  ) {
    super(message);
    this.name = "ControllerStartError";
  }
}
