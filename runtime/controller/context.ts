/** What the controller's middleware puts on each request's context. */
import type { Caller } from "./auth/caller.ts";

/** Hono environment of the controller app. */
export interface ControllerEnv {
  Variables: {
    caller: Caller;
  };
}
