import { isBaseOperation } from "../../model/base-operations.ts";
import type { ApsModel, ModelPackage, Operation, ResolvedType } from "../../model/model.ts";
import { connectorModulePath, connectorNames, serviceTypes } from "./emit-connector.ts";

/**
 * What a vendor's project sees of the connector module generated for a package: where it is,
 * the function that wires every service, and per service the interface its handlers satisfy and
 * the custom operations they implement. `aps-gen init` scaffolds handler stubs and src/main.ts
 * against it (cli/init/init-scaffold.ts), with the names the module itself declares.
 */
export interface ConnectorSurface {
  /** The module's path below the output folder: `connector/<package>/index.gen.ts`. */
  readonly modulePath: string;
  /** The function that wires every service for createConnectorApp (`cloudmailServices`). */
  readonly servicesFn: string;
  /** The resource types with an APP-META.xml service, in the package's order. */
  readonly services: readonly ConnectorService[];
}

/** One service of a package's connector module. */
export interface ConnectorService {
  readonly type: ResolvedType;
  /** Its APP-META.xml service id. */
  readonly service: string;
  /** The generated interface its handlers satisfy: `<Service>Handlers`, unique in the module. */
  readonly iface: string;
  /** Its custom operations: what a handler object implements besides provision, configure and the other base operations. */
  readonly customOperations: readonly Operation[];
}

export function connectorSurface(model: ApsModel, pkg: ModelPackage): ConnectorSurface {
  const names = connectorNames(model, pkg);
  return {
    modulePath: connectorModulePath(pkg),
    servicesFn: names.servicesFn,
    services: serviceTypes(model, pkg).map((type) => ({
      type,
      service: type.decl.service!,
      iface: names.services.get(type.id)!.iface,
      customOperations: [...type.operations.values()].filter((op) => !isBaseOperation(op, type, model)),
    })),
  };
}
