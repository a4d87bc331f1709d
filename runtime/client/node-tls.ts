/**
 * Node only: a dispatcher for {@link ApsClientOptions.dispatcher} that presents a client
 * certificate (application instances, docs/aps/security.md, "Application credentials") and trusts
 * the controller's CA. undici is imported here alone, so browser bundles that never import this
 * file never load it.
 */
import { Agent } from "undici";

/** TLS settings of a Node client. */
export interface NodeTlsOptions {
  /** PEM of the CA that signed the controller's certificate (its own CA). */
  readonly ca?: string;
  /** PEM certificate and key of the caller (an application instance). */
  readonly cert?: string;
  readonly key?: string;
}

/** An undici Agent with these TLS settings, keeping connections alive. */
export function nodeDispatcher(options: NodeTlsOptions): Agent {
  return new Agent({
    connect: {
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.cert ? { cert: options.cert } : {}),
      ...(options.key ? { key: options.key } : {}),
    },
  });
}
