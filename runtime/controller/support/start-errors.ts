/**
 * Why a controller could not start, in words an operator acts on: the CLI prints the message as
 * one line and exits 2 (unusable environment), never with a stack trace.
 */
export class ControllerStartError extends Error {
  constructor(
    message: string,
    readonly reason:
      | "port-in-use"
      | "address-unavailable"
      | "data-folder-in-use"
      | "database-unreachable"
      | "migrations-pending"
      /** The deployment key does not open the keys stored in the database (deployment/shared-keys.ts). */
      | "deployment-key-wrong"
      /** A deployment key where it cannot serve: the embedded database, a stored set that is incomplete, a key variable that disagrees with it. */
      | "deployment-key-unusable"
      /** `join` on a database where no controller has stored the deployment's keys yet. */
      | "deployment-keys-absent"
      /** Read replicas that cannot be used: on the embedded database, a URL that is not one, a replica given twice. */
      | "read-replicas-unusable",
  ) {
    super(message);
    this.name = "ControllerStartError";
  }
}
