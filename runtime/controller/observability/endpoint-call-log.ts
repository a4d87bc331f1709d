/**
 * The last calls to application endpoints, in memory, for the console's live log
 * (`GET /aps/2/console/calls`, routes/console-calls.ts): a ring of the newest
 * {@link ENDPOINT_CALL_LOG_SIZE}, replayed to each new subscriber and then followed. Fed by
 * forward/observed-endpoint-call.ts. Nothing secret is kept, not even for a moment past the
 * call: headers that carry credentials are dropped and encrypted property values masked before
 * an entry is made. The log is one node's: a controller of one process keeps the ring here; the
 * workers of `serve --workers N` hand their entries to a {@link SharedEndpointCallLog}, which
 * merges those of every worker (cli/serve/workers/), so a console connected to any worker sees
 * them all. Several controllers behind a load balancer each have their own.
 */
import {
  MASKED_VALUE,
  MAX_LOGGED_BODY_BYTES,
  type EndpointCallEntry,
  type UnnumberedCallEntry,
} from "../../common/endpoint-call-entry.ts";
import { parseJsonText, stringifyJson } from "../../common/json-text.ts";
import type { TypeRegistry } from "../registry.ts";

/** How many calls are kept. */
export const ENDPOINT_CALL_LOG_SIZE = 200;

/** A call as observed-endpoint-call.ts sees it, before anything is removed. */
export interface ObservedCall {
  readonly at: Date;
  readonly instance: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  readonly status?: number;
  readonly outcome: string;
  readonly ms: number;
  readonly replyBody?: Buffer;
  readonly error?: string;
}

/**
 * Header names that carry credentials or may: the token and authorization headers, cookies,
 * `X-Auth-*`, and any name with key, secret, password or token in it.
 */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-auth-.*)$|key|secret|passw|token/i;

/**
 * Members that carry credentials whatever their type declares: `aps.x509` (the instance's
 * certificate and private key, sent on install and re-issue), `aps.auth`/`oauth` (OAuth key and
 * secret), and any name with secret, password or private key in it.
 */
const CREDENTIAL_MEMBER = /^(x509|auth|oauth)$|secret|passw|private.?key/i;
/** A PEM private key, under whatever name it travels. */
const PRIVATE_KEY_PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
/** Whether a body's text may hold a credential (a member named as one, or a PEM private key): checked before parsing it. */
const MAY_HOLD_CREDENTIALS = /"(?:x509|auth|oauth|[^"]*(?:secret|passw|private.?key)[^"]*)"\s*:|PRIVATE KEY-----/i;

/**
 * The live log of several processes serving together (`serve --workers N`:
 * cli/serve/workers/worker-call-log.ts): the entries made here go to it, secrets already removed,
 * and it numbers them; a subscriber follows the entries of every process.
 */
export interface SharedEndpointCallLog {
  publish(entry: UnnumberedCallEntry): void;
  /** As {@link EndpointCallLog.subscribe}, over the entries of every process. */
  subscribe(listener: (entry: EndpointCallEntry) => void): () => void;
}

export class EndpointCallLog {
  private readonly entries: EndpointCallEntry[] = [];
  private readonly subscribers = new Set<(entry: EndpointCallEntry) => void>();
  private nextId = 1;
  /** The encrypted property names of the registry they were read from (read again when it changes). */
  private encrypted: { readonly registry: TypeRegistry; readonly names: ReadonlySet<string> } | undefined;

  constructor(
    /** The types the controller knows now (imported packages add some). */
    private readonly registry: () => TypeRegistry,
    private readonly size = ENDPOINT_CALL_LOG_SIZE,
    /** Where the entries go instead of the ring here, when this process is one of several. */
    private readonly shared?: SharedEndpointCallLog,
  ) {}

  /** Adds a call, with its secrets removed, and tells every subscriber. */
  record(call: ObservedCall): void {
    const names = this.encryptedNames();
    const made: UnnumberedCallEntry = {
      at: call.at.toISOString(),
      instance: call.instance,
      method: call.method,
      path: call.path.split("?")[0]!,
      requestHeaders: withoutSecretHeaders(call.headers),
      ...(call.status !== undefined ? { status: call.status } : {}),
      outcome: call.outcome,
      ms: call.ms,
      ...(call.body?.length ? { requestBody: maskedBody(call.body, names) } : {}),
      ...(call.replyBody?.length ? { responseBody: maskedBody(call.replyBody, names) } : {}),
      ...(call.error ? { error: call.error } : {}),
    };
    if (this.shared) {
      this.shared.publish(made);
      return;
    }
    const entry: EndpointCallEntry = { id: this.nextId++, ...made };
    this.entries.push(entry);
    if (this.entries.length > this.size) this.entries.shift();
    for (const subscriber of this.subscribers) subscriber(entry);
  }

  /** Calls `listener` with each kept entry, oldest first, then with each new one until the returned function is called. */
  subscribe(listener: (entry: EndpointCallEntry) => void): () => void {
    if (this.shared) return this.shared.subscribe(listener);
    for (const entry of this.entries) listener(entry);
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  /**
   * Every property name that is encrypted in some type. A body is masked by name, at any depth,
   * whatever type it is of: the call's type is not always known here (a custom operation's
   * arguments, an application's reply), and a value masked that need not be costs nothing.
   */
  private encryptedNames(): ReadonlySet<string> {
    const registry = this.registry();
    if (this.encrypted?.registry !== registry) {
      const names = new Set<string>();
      for (const type of registry.values())
        for (const [name, property] of Object.entries(type.properties)) if (property.encrypted) names.add(name);
      this.encrypted = { registry, names };
    }
    return this.encrypted.names;
  }
}

function withoutSecretHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!SECRET_HEADER.test(name)) kept[name] = value;
  return kept;
}

/**
 * The body as text with every value of a property named in `encrypted`, of a credential member
 * and every PEM private key replaced by {@link MASKED_VALUE}, cut at {@link MAX_LOGGED_BODY_BYTES}. A body that names none of them is
 * kept as it is; one that may and is not JSON is withheld, since what to mask cannot be told.
 */
export function maskedBody(body: Buffer, encrypted: ReadonlySet<string>): string {
  const text = body.toString("utf8");
  const named = MAY_HOLD_CREDENTIALS.test(text) || [...encrypted].some((name) => text.includes(`"${name}"`));
  let shown = text;
  if (named) {
    try {
      // Exact for 64-bit integers, as the application sent them.
      shown = stringifyJson(masked(parseJsonText(text), encrypted));
    } catch {
      return `(${body.length} bytes, not JSON, withheld: they may hold encrypted values)`;
    }
  }
  return cut(shown);
}

function masked(value: unknown, encrypted: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => masked(v, encrypted));
  if (typeof value === "string") return PRIVATE_KEY_PEM.test(value) ? MASKED_VALUE : value;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value))
    out[key] = (encrypted.has(key) || CREDENTIAL_MEMBER.test(key)) && v !== null ? MASKED_VALUE : masked(v, encrypted);
  return out;
}

/** `text` cut to at most MAX_LOGGED_BODY_BYTES of UTF-8, saying how much was left out. */
function cut(text: string): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= MAX_LOGGED_BODY_BYTES) return text;
  // Cut on a character boundary: decoding a cut buffer would end in U+FFFD.
  const head = Buffer.from(text)
    .subarray(0, MAX_LOGGED_BODY_BYTES)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  return `${head}… (${bytes - Buffer.byteLength(head)} more bytes not shown)`;
}
