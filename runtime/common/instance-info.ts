/**
 * Application instances as the administration API (`/aps/2/instances`, aps-gen's own: the APS
 * documents name none) takes and answers them: the controller's instance service builds these values and
 * the client's administration functions return them.
 */

/**
 * What installing takes: the package, the endpoint URL, the CA of the endpoint's certificate and
 * the root resource's settings. `S` types the settings (generated clients pass the application
 * root's `XSettings`); they are required when `S` has a required property, as the controller
 * refuses the installation without it.
 */
export type InstallRequest<S extends object = Record<string, unknown>> = {
  readonly package: string;
  readonly endpoint: string;
  /** PEM of the CA of the endpoint's HTTPS certificate, when it is not publicly trusted. */
  readonly endpointCa?: string;
  /** OAuth 1.0a consumer key and secret (apsconnect-cli's `auth.oauth`): the instance signs its calls with them, and so does the controller its calls to it. */
  readonly auth?: { readonly oauth: { readonly key: string; readonly secret: string } };
  // biome-ignore lint/complexity/noBannedTypes: `{} extends S` is how a type asks whether S has no required property.
} & ({} extends S ? { readonly settings?: S } : { readonly settings: S });

/** An installed application instance. */
export interface InstanceInfo {
  readonly id: string;
  /** The id of the installed package. */
  readonly package: string;
  readonly endpoint: string;
  /** The APP-META.xml service of the application root type. */
  readonly rootService: string;
  /** The application root resource; installing stores it with the instance, the column alone allows none. */
  readonly rootResource: string | null;
  readonly status: string;
  readonly created: string;
  /** An instance installed with `auth.oauth` shows its consumer key; its secret never. */
  readonly auth?: { readonly oauth: { readonly key: string } };
  /** When the certificate the controller issued it expires; absent for instances installed before this was kept. */
  readonly certificate?: { readonly notAfter: string };
  readonly href: string;
}

/** Whether an instance's endpoint answered a `GET` of its root just now (`GET /aps/2/instances/{id}/health`). */
export interface EndpointHealth {
  readonly endpoint: string;
  /** It answered over HTTPS, whatever the status. */
  readonly reachable: boolean;
  /** The HTTP status it answered. */
  readonly status?: number;
  /** Why it is not reachable: refused, TLS, time-out... */
  readonly error?: string;
  /** Milliseconds until the answer or the failure. */
  readonly ms: number;
  /** When it was checked. */
  readonly checked: string;
}

/** What uninstalling did: how many resources went, and what the endpoint refused on the way (with `force`). */
export interface UninstallReport {
  readonly removed: number;
  readonly endpointErrors: readonly string[];
}
