/**
 * The connector's HTTPS identity, as the scaffold of `aps-gen init` starts with it: a CA of its
 * own and a server certificate for the connector's host names, made on first start by the same
 * certificate authority code as the controller's. The vendor gives the controller the CA
 * certificate (`endpointCa`) when installing an instance.
 */
import { ensureControllerTls, type KeyPairPem } from "../common/certificate-authority.ts";

/** What `startConnector` needs to serve HTTPS, and where the CA certificate to hand over lies. */
export interface ConnectorTls {
  /** The server certificate and key: spread into `startConnector`'s options. */
  readonly server: KeyPairPem;
  /** The CA certificate's path, for people: the controller trusts the endpoint by it. */
  readonly caCertPath: string;
  /** True when this call created them. */
  readonly created: boolean;
}

/**
 * Loads the connector's CA and server certificate from `<dir>/tls/`, creating them when missing;
 * the server certificate names `hosts` and is issued again when that list changes.
 */
export async function ensureConnectorTls(dir: string, hosts: readonly string[]): Promise<ConnectorTls> {
  const tls = await ensureControllerTls(dir, hosts);
  return { server: tls.server, caCertPath: tls.caCertPath, created: tls.created };
}
