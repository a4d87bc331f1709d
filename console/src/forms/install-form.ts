/**
 * The form that installs an application instance (`POST /aps/2/instances`, docs/applications.md):
 * the endpoint's URL and CA, and the settings of the package's application root type.
 */
import { ApsError } from "../../../runtime/client/aps-error.ts";
import type { FieldSpec, FormModel } from "./form-model.ts";

/** The install form: its fields are the endpoint, its CA and the settings of the package's application root type. */
export function installForm(settings: FormModel, rootName: string): FormModel {
  const endpoint: FieldSpec = {
    key: "endpoint",
    label: "Endpoint URL",
    input: "text",
    valueType: "string",
    required: true,
    editable: true,
    format: "uri",
    description: "The https:// URL of the application endpoint",
  };
  const ca: FieldSpec = {
    key: "endpointCa",
    label: "Endpoint CA certificate",
    input: "multiline",
    valueType: "string",
    required: false,
    editable: true,
    description: "PEM of the CA of the endpoint's certificate, when it is not publicly trusted",
  };
  const fields: FieldSpec[] = [endpoint, ca];
  if (settings.fields.length)
    fields.push({
      key: "settings",
      label: "settings",
      input: "structure",
      valueType: "structure",
      required: true,
      editable: true,
      structure: rootName,
      fields: settings.fields,
      description: `Settings of the ${rootName} resource`,
    });
  return { mode: "provision", fields, topRequired: true };
}

/**
 * The controller checks the settings as a body of their own, so its error pointers start at the
 * settings object (`/apiKey`); in the install form they are below `settings` (`/settings/apiKey`).
 */
export function settingsErrors(error: unknown): unknown {
  if (!(error instanceof ApsError) || error.details.length === 0) return error;
  return new ApsError(
    error.status,
    error.type,
    error.message,
    error.details.map((d) => ({ ...d, path: `/settings${d.path}` })),
  );
}
